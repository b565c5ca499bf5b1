package login_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func addr(i int) string { return fmt.Sprintf("198.51.%d.%d:4321", i/256, i%256) }

// 1,000 failures on one account from 1,000 addresses trip the account limit.
func TestAccountLimitAcrossAddresses(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{})
	a := &app{}
	h := g.Handler(a)
	codes := map[int]int{}
	for i := range 1000 {
		codes[serve(h, formRequest("alice", "guess", addr(i))).Code]++
	}
	// 5 free failures and the one that sets the first lock.
	assert.Equal(t, int64(6), a.checks.Load())
	assert.Equal(t, map[int]int{401: 6, 429: 994}, codes)
}

// One address trying 1,000 accounts once each trips the network limit.
func TestNetworkLimitAcrossAccounts(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{})
	a := &app{}
	h := g.Handler(a)
	codes := map[int]int{}
	for i := range 1000 {
		codes[serve(h, formRequest(fmt.Sprintf("user%d", i), "guess", "203.0.113.9:1")).Code]++
	}
	assert.Equal(t, int64(101), a.checks.Load())
	assert.Equal(t, map[int]int{401: 101, 429: 899}, codes)
	// Another address is not affected.
	assert.Equal(t, http.StatusUnauthorized, serve(h, formRequest("user5", "guess", "192.0.2.1:1")).Code)
}

// Successful logins to the attacker's own account never reset the network
// counter, even with ResetAccountOnSuccess.
func TestSuccessNeverResetsNetwork(t *testing.T) {
	clk := coretest.NewClock(t0)
	net := core.Backoff{Free: 3, Window: time.Hour, Base: time.Minute, Max: time.Hour}
	g := newGuard(t, clk, login.Options{Network: net, ResetAccountOnSuccess: true})
	h := g.Handler(&app{})
	const attacker = "203.0.113.9:1"
	var codes []int
	for i := range 6 {
		codes = append(codes, serve(h, formRequest("alice", "secret", attacker)).Code)
		codes = append(codes, serve(h, formRequest(fmt.Sprintf("victim%d", i), "guess", attacker)).Code)
	}
	// Successes are free; the victims' failures accumulate: 3 free, the
	// 4th locks, then the network is throttled, for successes too.
	assert.Equal(t, []int{200, 401, 200, 401, 200, 401, 200, 401, 429, 429, 429, 429}, codes)
}

// The account counter is reset by a success only when asked to.
func TestResetAccountOnSuccess(t *testing.T) {
	for _, reset := range []bool{false, true} {
		clk := coretest.NewClock(t0)
		acc := core.Backoff{Free: 2, Window: time.Hour}
		g := newGuard(t, clk, login.Options{Account: acc, ResetAccountOnSuccess: reset})
		h := g.Handler(&app{})
		serve(h, formRequest("alice", "x", "192.0.2.1:1"))
		serve(h, formRequest("alice", "x", "192.0.2.1:1"))
		require.Equal(t, 200, serve(h, formRequest("alice", "secret", "192.0.2.1:1")).Code)
		serve(h, formRequest("alice", "x", "192.0.2.1:1")) // free again only after a reset; else locks
		want := http.StatusTooManyRequests
		if reset {
			want = http.StatusUnauthorized
		}
		assert.Equal(t, want, serve(h, formRequest("alice", "x", "192.0.2.1:1")).Code, "reset %v", reset)
	}
}

// 200 concurrent wrong attempts against a threshold of 5 (4 free failures
// and the one that locks) let at most 5 reach the credential check.
func TestConcurrentGuessesCannotRacePastThreshold(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{Account: core.Backoff{Free: 4, Base: time.Hour}})
	a := &app{}
	h := g.Handler(a)
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for i := range 200 {
		wg.Go(func() {
			c := serve(h, formRequest("alice", "guess", addr(i))).Code
			mu.Lock()
			codes[c]++
			mu.Unlock()
		})
	}
	within.Wait(t, &wg, "the test's goroutines")
	assert.LessOrEqual(t, a.checks.Load(), int64(5))
	assert.Equal(t, map[int]int{401: 5, 429: 195}, codes)
}

// Each lockout doubles and stops at the cap, through the guard; OnLockout
// hears of every one.
func TestLockoutDoublesToCap(t *testing.T) {
	clk := coretest.NewClock(t0)
	type lockout struct {
		kind  string
		retry time.Duration
	}
	var got []lockout
	g := newGuard(t, clk, login.Options{
		Account:   core.Backoff{Free: 1, Base: time.Second, Max: 4 * time.Second},
		OnLockout: func(kind string, retry time.Duration) { got = append(got, lockout{kind, retry}) },
	})
	h := g.Handler(&app{})
	var retries []string
	require.Equal(t, http.StatusUnauthorized, serve(h, formRequest("alice", "x", "192.0.2.1:1")).Code) // free
	for range 6 {
		require.Equal(t, http.StatusUnauthorized, serve(h, formRequest("alice", "x", "192.0.2.1:1")).Code)
		w := serve(h, formRequest("alice", "x", "192.0.2.1:1"))
		require.Equal(t, http.StatusTooManyRequests, w.Code)
		retries = append(retries, w.Header().Get("Retry-After"))
		d, err := time.ParseDuration(w.Header().Get("Retry-After") + "s")
		require.NoError(t, err)
		clk.Advance(d)
	}
	assert.Equal(t, []string{"1", "2", "4", "4", "4", "4"}, retries)
	want := []lockout{{"account", time.Second}, {"account", 2 * time.Second}, {"account", 4 * time.Second}, {"account", 4 * time.Second}, {"account", 4 * time.Second}, {"account", 4 * time.Second}}
	assert.Equal(t, want, got)
}

// Throttled answers are byte for byte the same for unknown and known
// usernames, and whichever key throttled.
func TestThrottledResponsesIdentical(t *testing.T) {
	b := core.Backoff{Free: 2, Base: time.Minute, Max: time.Hour}
	throttled := func(user, addr string, spread bool) string {
		clk := coretest.NewClock(t0)
		g := newGuard(t, clk, login.Options{Account: b, Network: b})
		h := g.Handler(&app{})
		for i := range 3 {
			u := user
			if spread { // trip the network key rather than the account's
				u = fmt.Sprintf("%s%d", user, i)
			}
			require.Equal(t, http.StatusUnauthorized, serve(h, formRequest(u, "x", addr)).Code)
		}
		w := serve(h, formRequest(user, "x", addr))
		require.Equal(t, http.StatusTooManyRequests, w.Code)
		return dump(t, w)
	}
	known := throttled("alice", "192.0.2.1:1", false)
	assert.Equal(t, known, throttled("nobody-by-this-name", "192.0.2.1:1", false))
	assert.Equal(t, known, throttled("alice", "[2001:db8::1]:1", false))
	assert.Equal(t, known, throttled("alice", "192.0.2.1:1", true))
	assert.Contains(t, known, "Retry-After: 60\r\n")
	assert.NotContains(t, known, "RateLimit")
}

// The guard never sees 401 vs 200 before the handler: responses of known
// and unknown users are the handler's own, without any guard header.
func TestAdmittedResponsesCarryNoCounters(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{})
	h := g.Handler(&app{})
	a := serve(h, formRequest("alice", "x", "192.0.2.1:1"))
	b := serve(h, formRequest("mallory", "x", "192.0.2.2:1"))
	assert.Equal(t, dump(t, a), dump(t, b))
}

// The password-reset route, outside the guard, stays reachable for a
// locked account.
func TestResetPasswordNotBlocked(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{})
	mux := http.NewServeMux()
	mux.Handle("POST /login", g.Handler(&app{}))
	mux.HandleFunc("POST /reset-password", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) })
	for range 10 {
		serve(mux, formRequest("alice", "x", "192.0.2.1:1"))
	}
	require.Equal(t, http.StatusTooManyRequests, serve(mux, formRequest("alice", "secret", "192.0.2.1:1")).Code)
	r := formRequest("alice", "", "192.0.2.1:1")
	r.URL.Path = "/reset-password"
	assert.Equal(t, http.StatusAccepted, serve(mux, r).Code)
}

func TestManualAPI(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{Account: core.Backoff{Free: 1, Base: time.Minute}})
	ctx := context.Background()
	r := httptest.NewRequest(http.MethodPost, "/login", nil)
	for range 3 { // successes cost nothing
		a, err := g.Begin(ctx, "Alice ", r)
		require.NoError(t, err)
		a.Succeeded()
		a.Failed() // ignored: only the first report counts
	}
	for range 2 {
		a, err := g.Begin(ctx, "alice", r)
		require.NoError(t, err)
		a.Failed()
	}
	_, err := g.Begin(ctx, "ALICE", r)
	var te *login.ThrottledError
	require.ErrorAs(t, err, &te)
	assert.True(t, errors.Is(err, login.ErrThrottled))
	assert.Equal(t, time.Minute, te.RetryAfter)
	_, err = g.Begin(ctx, "  ", r)
	assert.ErrorIs(t, err, login.ErrNoUsername)
}

func TestNewValidates(t *testing.T) {
	_, err := login.New(login.Options{Account: core.Backoff{}})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = login.New(login.Options{MaxBody: -1})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = login.New(login.Options{IP: login.Options{}.IP, Network: core.GCRA{}})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
}

// With the defaults, an attacker retrying the instant each lock ends never
// makes more than 100 failed attempts on one account in any hour.
func TestDefaultsBoundFailuresPerHour(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{})
	ctx := context.Background()
	var at []time.Time
	for clk.Now().Before(t0.Add(48 * time.Hour)) {
		r := httptest.NewRequest(http.MethodPost, "/login", nil)
		r.RemoteAddr = addr(len(at)) // a botnet: every network fresh
		a, err := g.Begin(ctx, "alice", r)
		var te *login.ThrottledError
		if errors.As(err, &te) {
			clk.Advance(te.RetryAfter)
			continue
		}
		require.NoError(t, err)
		a.Failed()
		at = append(at, clk.Now())
	}
	most := 0
	for i := range at {
		j := i
		for j < len(at) && at[j].Sub(at[i]) < time.Hour {
			j++
		}
		most = max(most, j-i)
	}
	assert.LessOrEqual(t, most, 100)
	assert.Equal(t, 17, most, "5 free, then locks 1 s, 2 s, ... within the first hour")
	assert.Less(t, len(at), 17+6*48)
}
