package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/internal/httpbench"
	"github.com/floodgate-go/floodgate/internal/race"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
)

var noContent = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })

// allocsPerRequest serves r through h (after one request that fills the
// header map's keys, whose growth is the server's cost) and returns the
// allocations of one request, checking its status.
func allocsPerRequest(t *testing.T, h http.Handler, r *http.Request, status int) float64 {
	t.Helper()
	w := httpbench.NewSink()
	h.ServeHTTP(w, r)
	require.Equal(t, status, w.Code)
	return testing.AllocsPerRun(200, func() {
		w.Reset()
		h.ServeHTTP(w, r)
	})
}

// What one request costs in allocations, with every header on, for every
// header Writer draft: an admitted request one (the header values in one
// block: the default client-IP key is hashed from a buffer on the stack),
// a denied one two (the problem+json answer's fields are one more block);
// a custom Limiter is given the key as a string, one more. The guard is on
// the count: a per-request closure, boxing or fmt call would show here.
func TestAllocationsPerRequest(t *testing.T) {
	for _, draft := range []headers.Draft{headers.DraftIETF11, headers.DraftIETF7, headers.DraftIETF6} {
		hw, err := headers.New(headers.Options{Draft: draft})
		require.NoError(t, err)
		opts := middleware.Options{Headers: hw}
		r := httptest.NewRequest(http.MethodGet, "/x", nil)
		r.RemoteAddr = "192.0.2.7:4321"

		allow := handler(t, limiter(t, newClock(), core.GCRA{Rate: core.PerSecond(1_000_000_000)}), opts, noContent)
		assert.Equal(t, 1.0, allocsPerRequest(t, allow, r, http.StatusNoContent), "%v admitted", draft)

		deny := handler(t, limiter(t, newClock(), core.GCRA{Rate: core.Per(1, time.Hour)}), opts, noContent)
		allocsPerRequest(t, deny, r, http.StatusNoContent) // spends the one unit
		if !race.Enabled {                                 // the problem bodies' buffers are pooled
			assert.Equal(t, 2.0, allocsPerRequest(t, deny, r, http.StatusTooManyRequests), "%v denied", draft)
		}

		// A custom Limiter's denial and a custom answer: no problem body,
		// and Retry-After from the Writer is kept as it is.
		l := limiter(t, newClock(), core.GCRA{Rate: core.Per(1, time.Hour)})
		res, err := l.AllowN(t.Context(), "k", 1)
		require.NoError(t, err)
		res, err = l.AllowN(t.Context(), "k", 1)
		require.NoError(t, err)
		require.False(t, res.Allowed)
		opts.Denied = func(w http.ResponseWriter, _ *http.Request, _ core.Result) { w.WriteHeader(http.StatusTooManyRequests) }
		custom := handler(t, denier{res}, opts, noContent)
		assert.Equal(t, 2.0, allocsPerRequest(t, custom, r, http.StatusTooManyRequests), "%v custom denial", draft)
	}
}

// Skipped requests and requests without a limiter cost nothing.
func TestAllocationsUnlimited(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/x", nil)
	skip := handler(t, limiter(t, newClock(), core.GCRA{Rate: core.PerSecond(1)}),
		middleware.Options{Skip: func(*http.Request) bool { return true }}, noContent)
	assert.Equal(t, 0.0, allocsPerRequest(t, skip, r, http.StatusNoContent))
	m, err := middleware.NewSelect(unlimited{}, middleware.Options{})
	require.NoError(t, err)
	assert.Equal(t, 0.0, allocsPerRequest(t, m.Handler(noContent), r, http.StatusNoContent))
}

// unlimited is a Selector that limits nothing.
type unlimited struct{}

func (unlimited) Select(*http.Request, string) (middleware.Limiter, string, error) {
	return nil, "", nil
}

// A header Writer with a PartitionKeySecret gets the key each request was
// counted by, under the default key and Options.Key alike. Before, the
// middleware only ever called Writer.Write, so the secret was silently
// ignored: no "pk" parameter in RateLimit or RateLimit-Policy. Now every
// item carries one, the same for one client's requests, admitted or
// denied, and another for another client; the key is never written, and
// an admitted request costs 2 allocations (1 without a partition key: the
// key, which the default key builds only when needed, is one more).
func TestPartitionKeyIsWritten(t *testing.T) {
	hw, err := headers.New(headers.Options{PartitionKeySecret: []byte("0123456789abcdef0123")})
	require.NoError(t, err)
	for name, key := range map[string]keyfunc.Func{"client IP": nil, "Options.Key": keyfunc.Header("X-Client")} {
		t.Run(name, func(t *testing.T) {
			h := handler(t, limiter(t, newClock(), core.FixedWindow{Quota: 2, Window: time.Hour}),
				middleware.Options{Headers: hw, Key: key}, noContent)
			pkOf := func(client string, status int) string {
				r := httptest.NewRequest(http.MethodGet, "/x", nil)
				r.RemoteAddr = client + ":1"
				r.Header.Set("X-Client", client)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				require.Equal(t, status, w.Code)
				rl, pol := w.Header().Get("RateLimit"), w.Header().Get("RateLimit-Policy")
				_, pk, ok := strings.Cut(rl, ";pk=")
				require.True(t, ok, "RateLimit: %q", rl)
				assert.Contains(t, pol, ";pk="+pk, "RateLimit-Policy: %q", pol)
				assert.NotContains(t, rl+pol, client)
				return pk
			}
			a := pkOf("192.0.2.1", http.StatusNoContent)
			assert.Regexp(t, `^:[A-Za-z0-9+/]{16}:$`, a)
			assert.Equal(t, a, pkOf("192.0.2.1", http.StatusNoContent))
			assert.Equal(t, a, pkOf("192.0.2.1", http.StatusTooManyRequests))
			assert.NotEqual(t, a, pkOf("192.0.2.2", http.StatusNoContent))
		})
	}
	r := httptest.NewRequest(http.MethodGet, "/x", nil)
	r.RemoteAddr = "192.0.2.7:4321"
	allow := handler(t, limiter(t, newClock(), core.GCRA{Rate: core.PerSecond(1_000_000_000)}), middleware.Options{Headers: hw}, noContent)
	if n := allocsPerRequest(t, allow, r, http.StatusNoContent); !race.Enabled { // the HMAC states are pooled
		assert.Equal(t, 2.0, n)
	}
}
