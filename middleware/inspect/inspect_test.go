package inspect_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/middleware/inspect"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// call serves method path through h and decodes the JSON answer into
// out (nil: a map), checking the headers every answer carries.
func call(t *testing.T, h http.Handler, method, path string, hdr map[string]string, out any) int {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	assert.Equal(t, "no-store", w.Header().Get("Cache-Control"))
	assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
	if out == nil {
		out = &map[string]any{}
	}
	require.NoError(t, json.NewDecoder(w.Body).Decode(out), "%s %s", method, path)
	return w.Code
}

// errorOf calls and returns the status and the error message.
func errorOf(t *testing.T, h http.Handler, method, path string, hdr map[string]string) (int, string) {
	t.Helper()
	var e struct{ Error string }
	code := call(t, h, method, path, hdr, &e)
	return code, e.Error
}

// limiters returns the limiters of two policies on s (nil: a memory
// store): "api", with a shadow limit and a heavy-hitter sketch, and
// "login", with neither.
func limiters(t *testing.T, s core.Store, clk core.Clock) (api, login *core.Limiter) {
	t.Helper()
	if s == nil {
		ms, err := core.NewMemoryStore(core.MemoryOptions{})
		require.NoError(t, err)
		s = ms
	}
	p, err := core.ParsePolicy("api", "minute: 3/min; trial: shadow 1/min")
	require.NoError(t, err)
	api, err = core.NewLimiter(p, core.WithStore(s), core.WithClock(clk), core.WithTopKeys(core.TopKeysOptions{Capacity: 4}))
	require.NoError(t, err)
	login, err = core.NewLimiter(core.MustPolicy("login", core.Limit{Name: "login", Algorithm: core.GCRA{Rate: core.PerHour(5), Burst: 5}}),
		core.WithStore(s), core.WithClock(clk))
	require.NoError(t, err)
	return api, login
}

func TestNewRefuses(t *testing.T) {
	api, _ := limiters(t, nil, coretest.NewClock(coretest.T0))
	for name, ls := range map[string][]*core.Limiter{
		"none":      nil,
		"nil":       {api, nil},
		"zero":      {{}},
		"duplicate": {api, api},
	} {
		_, err := inspect.New(ls...)
		assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
	}
}

// behaviour runs the handler's behaviour on limiters of store s.
func behaviour(t *testing.T, s core.Store) {
	ctx := context.Background()
	clk := coretest.NewClock(coretest.T0)
	api, login := limiters(t, s, clk)
	h, err := inspect.New(api, login)
	require.NoError(t, err)
	for range 4 {
		_, err := api.Allow(ctx, "client a") // 3 admitted, 1 denied; the shadow would deny 3
		require.NoError(t, err)
	}
	_, err = api.Allow(ctx, "client-b")
	require.NoError(t, err)
	_, err = login.Allow(ctx, "client a")
	require.NoError(t, err)

	// Inspect: every policy, every limit, shadow ones marked; nothing consumed.
	var in inspect.Inspection
	for range 2 {
		require.Equal(t, http.StatusOK, call(t, h, "GET", "/inspect?key=client+a", nil, &in))
	}
	assert.Equal(t, inspect.Inspection{Key: "client a", Policies: []inspect.PolicyReport{
		{Policy: "api", Allowed: false, Limits: []inspect.LimitReport{
			{Name: "minute", Quota: 3, Window: 60, Remaining: 0, ResetAfter: 60, RetryAfter: 20},
			{Name: "trial", Shadow: true, Quota: 1, Window: 60, Remaining: 0, ResetAfter: 60, RetryAfter: 60},
		}},
		{Policy: "login", Allowed: true, Limits: []inspect.LimitReport{
			{Name: "login", Quota: 5, Window: 3600, Allowed: true, Remaining: 3, ResetAfter: 1440},
		}},
	}}, in)
	require.Equal(t, http.StatusOK, call(t, h, "GET", "/x/inspect?key=client+a&policy=login", nil, &in))
	require.Len(t, in.Policies, 1)
	assert.Equal(t, "login", in.Policies[0].Policy)

	// Top: the policies with a sketch only, bounded by n.
	var top inspect.TopReport
	require.Equal(t, http.StatusOK, call(t, h, "GET", "/top", nil, &top))
	require.Len(t, top.Policies, 1)
	assert.Equal(t, int64(5), top.Policies[0].Takes)
	assert.Equal(t, []inspect.KeyReport{
		{Key: "client a", Count: 4, Admitted: 3, Denied: 1},
		{Key: "client-b", Count: 1, Admitted: 1},
	}, top.Policies[0].Keys)
	require.Equal(t, http.StatusOK, call(t, h, "GET", "/top?n=1&policy=api", nil, &top))
	assert.Len(t, top.Policies[0].Keys, 1)
	code, msg := errorOf(t, h, "GET", "/top?policy=login", nil)
	assert.Equal(t, http.StatusNotFound, code)
	assert.Contains(t, msg, "counts no keys")

	// A cross-origin browser request resets nothing.
	code, _ = errorOf(t, h, "POST", "/reset?key=client+a", map[string]string{"Sec-Fetch-Site": "cross-site"})
	assert.Equal(t, http.StatusForbidden, code)
	code, _ = errorOf(t, h, "POST", "/reset?key=client+a", map[string]string{"Origin": "https://evil.example", "Host": "admin.example"})
	assert.Equal(t, http.StatusForbidden, code)
	require.Equal(t, http.StatusOK, call(t, h, "GET", "/inspect?key=client+a&policy=api", nil, &in))
	assert.False(t, in.Policies[0].Allowed, "not reset")

	// Reset one policy, then every one.
	var rs inspect.Reset
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/reset?key=client+a&policy=api", nil, &rs))
	assert.Equal(t, inspect.Reset{Key: "client a", Policies: []string{"api"}}, rs)
	require.Equal(t, http.StatusOK, call(t, h, "GET", "/inspect?key=client+a", nil, &in))
	assert.Equal(t, int64(2), in.Policies[0].Limits[0].Remaining, "api reset (a peek reports what a take would leave)")
	assert.Equal(t, int64(0), in.Policies[0].Limits[1].Remaining, "its shadow limit reset: 1 - 1")
	assert.True(t, in.Policies[0].Limits[1].Allowed, "its shadow limit reset")
	assert.Equal(t, int64(3), in.Policies[1].Limits[0].Remaining, "login untouched")
	require.Equal(t, http.StatusOK, call(t, h, "POST", "/reset?key=client+a", nil, &rs))
	assert.Equal(t, []string{"api", "login"}, rs.Policies)
	require.Equal(t, http.StatusOK, call(t, h, "GET", "/inspect?key=client+a&policy=login", nil, &in))
	assert.Equal(t, int64(4), in.Policies[0].Limits[0].Remaining, "login reset")
}

func TestMemoryStore(t *testing.T) {
	s, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(t, err)
	behaviour(t, s)
}

func TestRedisStore(t *testing.T) {
	srv := redistest.Start(t)
	s, err := redisstore.New(srv.Client(t), redisstore.Options{CallerClock: true, Timeout: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	behaviour(t, s)
}

func TestBadRequests(t *testing.T) {
	api, login := limiters(t, nil, coretest.NewClock(coretest.T0))
	h, err := inspect.New(api, login)
	require.NoError(t, err)
	long := strings.Repeat("k", inspect.MaxKeyBytes+1)
	for _, c := range []struct {
		method, path string
		code         int
		msg          string
	}{
		{"GET", "/inspect", 400, "want a key parameter"},
		{"GET", "/inspect?key=" + long, 400, "at most 4096"},
		{"POST", "/reset?policy=api", 400, "want a key parameter"},
		{"GET", "/inspect?key=k&policy=nope", 404, `no policy "nope"`},
		{"POST", "/reset?key=k&policy=" + url.QueryEscape(long), 404, "no policy"},
		{"GET", "/top?n=0", 400, "want a whole number from 1 to 1000"},
		{"GET", "/top?n=1001", 400, "from 1 to 1000"},
		{"GET", "/top?n=ten", 400, "from 1 to 1000"},
		{"GET", "/reset?key=k", 405, "want POST"},
		{"POST", "/inspect?key=k", 405, "want GET"},
		{"DELETE", "/top", 405, "want GET"},
		{"GET", "/", 404, "no such operation"},
		{"GET", "/metrics", 404, "no such operation"},
	} {
		code, msg := errorOf(t, h, c.method, c.path, nil)
		assert.Equal(t, c.code, code, "%s %s", c.method, c.path)
		assert.Contains(t, msg, c.msg, "%s %s", c.method, c.path)
		assert.Less(t, len(msg), 200, "bounded: %s %s", c.method, c.path)
	}
}

// failing is a store whose every operation fails.
type failing struct{}

func (failing) Bind(*core.Policy) (store.Table, error) { return failing{}, nil }
func (failing) Do(context.Context, store.Request) (store.Decision, error) {
	return store.Decision{}, errors.New("backend down")
}

func TestStoreErrors(t *testing.T) {
	l, err := core.NewLimiter(core.MustPolicy("api", core.Limit{Algorithm: core.GCRA{Rate: core.PerSecond(1)}}), core.WithStore(failing{}))
	require.NoError(t, err)
	h, err := inspect.New(l)
	require.NoError(t, err)
	for _, c := range [][2]string{{"GET", "/inspect?key=k"}, {"POST", "/reset?key=k"}} {
		code, msg := errorOf(t, h, c[0], c[1], nil)
		assert.Equal(t, http.StatusInternalServerError, code, c[1])
		assert.Contains(t, msg, "backend down", c[1])
		assert.Contains(t, msg, fmt.Sprintf("%q", "api"), c[1])
	}
}
