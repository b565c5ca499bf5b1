package middleware_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// accounts is an API-key lookup: the identity is the account a known key
// belongs to.
var accounts = map[string]string{"key-alice-1": "alice", "key-alice-2": "alice", "key-bob": "bob"}

func lookup(r *http.Request) (string, bool) {
	acct, ok := accounts[r.Header.Get("X-API-Key")]
	return acct, ok
}

func apiKeyHandler(t *testing.T, clk core.Clock, opts middleware.Options) http.Handler {
	t.Helper()
	m, err := middleware.APIKeyOrIP(lookup,
		middleware.Rate("api-key", "3/min", core.WithClock(clk)),
		middleware.Rate("anonymous", "1/min", core.WithClock(clk)), opts)
	require.NoError(t, err)
	return m.Handler(okHandler)
}

func withKey(h http.Handler, key, remote string) int {
	hdr := map[string]string{}
	if key != "" {
		hdr["X-API-Key"] = key
	}
	return serve(h, http.MethodGet, "/", remote, hdr)
}

// A valid key gets the API-key rate, counted per account across addresses
// and keys; the rest is counted per IP at the anonymous rate.
func TestAPIKeyOrIPTiers(t *testing.T) {
	h := apiKeyHandler(t, newClock(), middleware.Options{})
	// alice: 3 per minute, whichever key and address she uses.
	assert.Equal(t, []int{200, 200, 200, 429}, []int{
		withKey(h, "key-alice-1", "198.51.100.1:1"), withKey(h, "key-alice-2", "198.51.100.2:1"),
		withKey(h, "key-alice-1", "198.51.100.3:1"), withKey(h, "key-alice-2", "198.51.100.4:1"),
	})
	// bob has his own bucket, from alice's last address too.
	assert.Equal(t, 200, withKey(h, "key-bob", "198.51.100.4:1"))
	// anonymous: 1 per minute per IP; alice's use of an address takes
	// nothing from its anonymous bucket.
	assert.Equal(t, []int{200, 429}, []int{withKey(h, "", "198.51.100.1:1"), withKey(h, "", "198.51.100.1:1")})
	assert.Equal(t, 200, withKey(h, "", "198.51.100.9:1"))
}

// Attack: random or forged API keys do not buy fresh buckets. Each
// request carries a new made-up key; all are counted by their IP at the
// anonymous rate, and they take nothing from a real key's bucket.
func TestAttackForgedAPIKeysAreCountedByIP(t *testing.T) {
	h := apiKeyHandler(t, newClock(), middleware.Options{})
	attacker := "203.0.113.66:4444"
	admitted := 0
	for i := range 100 {
		if withKey(h, "forged-"+strconv.Itoa(i), attacker) == http.StatusOK {
			admitted++
		}
	}
	assert.Equal(t, 1, admitted, "the anonymous rate, once")
	// Guessing a real key's shape or an account name buys nothing either.
	assert.Equal(t, 429, withKey(h, "alice", attacker))
	assert.Equal(t, 429, withKey(h, "key-alice-3", attacker))
	// The real key, from the attacker's address, still has its whole rate.
	assert.Equal(t, []int{200, 200, 200, 429}, []int{
		withKey(h, "key-alice-1", attacker), withKey(h, "key-alice-1", attacker),
		withKey(h, "key-alice-1", attacker), withKey(h, "key-alice-1", attacker),
	})
}

// Identified and anonymous keys never collide, even with one limiter and
// an identity spelled like the anonymous key; identities are hashed before
// they reach the store, and ("", true) is not an identity.
func TestAPIKeyOrIPKeys(t *testing.T) {
	rec := &recorder{}
	ipKey := "198.51.100.7/32"
	m, err := middleware.APIKeyOrIP(func(r *http.Request) (string, bool) {
		v := r.Header.Get("X-Id")
		return v, v != "none"
	}, rec, rec, middleware.Options{})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	serve(h, http.MethodGet, "/", "198.51.100.7:1", map[string]string{"X-Id": ipKey})
	serve(h, http.MethodGet, "/", "198.51.100.7:1", map[string]string{"X-Id": "none"})
	serve(h, http.MethodGet, "/", "198.51.100.7:1", map[string]string{"X-Id": ""})
	require.Len(t, rec.keys, 3)
	assert.NotEqual(t, rec.keys[0], rec.keys[1])
	assert.NotContains(t, rec.keys[0], ipKey, "the identity is hashed")
	assert.Contains(t, rec.keys[1], ipKey)
	assert.Equal(t, rec.keys[1], rec.keys[2], `("", true) is anonymous`)
}

// Options.Key keys the anonymous requests (behind a proxy, the client IP
// from trusted headers); one that fails refuses the request, while an
// identified request does not need it.
func TestAPIKeyOrIPAnonymousKey(t *testing.T) {
	h := apiKeyHandler(t, newClock(), middleware.Options{Key: keyfunc.Header("X-Client")})
	assert.Equal(t, http.StatusForbidden, withKey(h, "", "198.51.100.1:1"))
	assert.Equal(t, http.StatusOK, withKey(h, "key-bob", "198.51.100.1:1"))
	c := map[string]string{"X-Client": "c1"}
	assert.Equal(t, []int{200, 429}, []int{
		serve(h, http.MethodGet, "/", "198.51.100.1:1", c), serve(h, http.MethodGet, "/", "198.51.100.2:1", c),
	})
}

func TestAPIKeyOrIPConstruction(t *testing.T) {
	good := middleware.Rate("x", "1/s")
	for name, build := range map[string]func() error{
		"nil identify": func() error { _, err := middleware.APIKeyOrIP(nil, good, good, middleware.Options{}); return err },
		"nil keyed":    func() error { _, err := middleware.APIKeyOrIP(lookup, nil, good, middleware.Options{}); return err },
		"nil anonymous": func() error {
			_, err := middleware.APIKeyOrIP(lookup, good, (*core.Limiter)(nil), middleware.Options{})
			return err
		},
		"bad option": func() error {
			_, err := middleware.APIKeyOrIP(lookup, good, good, middleware.Options{MaxDelay: -1})
			return err
		},
	} {
		assert.ErrorIs(t, build(), core.ErrInvalidConfig, name)
	}
}

// recorder is a Limiter that admits everything and records the keys.
type recorder struct {
	mu   sync.Mutex
	keys []string
}

func (r *recorder) AllowN(_ context.Context, key string, _ int64) (core.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, key)
	return core.Result{Allowed: true}, nil
}

func (r *recorder) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, nil
}

// NewKeyed: the selector's key counts; an empty key or an error refuses,
// a nil limiter leaves the request unlimited; Options.Key is refused.
func TestNewKeyed(t *testing.T) {
	clk := newClock()
	lim := limiter(t, clk, core.GCRA{Rate: core.PerMinute(1)})
	sel := keySelectorFunc(func(r *http.Request, _ string) (middleware.Limiter, string, error) {
		switch k := r.Header.Get("X-K"); {
		case k == "free":
			return nil, "", nil
		case k == "fail":
			return nil, "", keyfunc.ErrNoKey
		case strings.HasPrefix(k, "lim"):
			return lim, k[3:], nil
		default:
			return lim, "", nil
		}
	})
	m, err := middleware.NewKeyed(sel, middleware.Options{})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	code := func(k string) int {
		return serve(h, http.MethodGet, "/", "198.51.100.1:1", map[string]string{"X-K": k})
	}
	assert.Equal(t, []int{200, 429, 200, 200, 200, 403, 403}, []int{
		code("lim-a"), code("lim-a"), code("lim-b"), code("free"), code("free"), code("fail"), code("lim"),
	})

	_, err = middleware.NewKeyed(sel, middleware.Options{Key: keyfunc.Method})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = middleware.NewKeyed(nil, middleware.Options{})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = middleware.NewKeyed((keySelectorFunc)(nil), middleware.Options{})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
}

type keySelectorFunc func(*http.Request, string) (middleware.Limiter, string, error)

func (f keySelectorFunc) SelectKey(r *http.Request, route string) (middleware.Limiter, string, error) {
	return f(r, route)
}
