package login_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var secret = bytes.Repeat([]byte{7}, login.MinDeviceSecret)

func deviceGuard(t *testing.T, clk *coretest.Clock, dev login.DeviceOptions) *login.Guard {
	t.Helper()
	if dev.Secret == nil {
		dev.Secret = secret
	}
	return newGuard(t, clk, login.Options{Devices: &dev})
}

// loginCookie logs user in with the right password and returns the device
// cookie the guard set on the success.
func loginCookie(t *testing.T, h http.Handler, user, pass, from string) *http.Cookie {
	t.Helper()
	w := serve(h, formRequest(user, pass, from))
	require.Equal(t, http.StatusOK, w.Code)
	cs := w.Result().Cookies()
	require.Len(t, cs, 1)
	return cs[0]
}

func withCookie(r *http.Request, c *http.Cookie) *http.Request {
	if c != nil {
		r.AddCookie(c)
	}
	return r
}

// users is app with two accounts.
type users struct{ app }

func (u *users) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("username") == "bob" && r.PostFormValue("password") == "hunter2" {
		w.WriteHeader(http.StatusOK)
		return
	}
	u.app.ServeHTTP(w, r)
}

// An attacker flooding alice's account with wrong passwords from 1,000
// addresses locks the anonymous stream; alice, with the cookie of her
// earlier login, still gets in (after a typo too), and gets a fresh cookie.
func TestDeviceCookieDefeatsLockout(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := deviceGuard(t, clk, login.DeviceOptions{})
	h := g.Handler(&app{})
	c := loginCookie(t, h, "alice", "secret", "192.0.2.1:1")
	assert.True(t, c.HttpOnly)
	assert.True(t, c.Secure)
	assert.Equal(t, http.SameSiteLaxMode, c.SameSite)
	assert.Equal(t, "/", c.Path)
	assert.Equal(t, int(login.DefaultDeviceTTL/time.Second), c.MaxAge)

	for i := range 1000 {
		serve(h, formRequest("alice", "guess", addr(i)))
	}
	require.Equal(t, http.StatusTooManyRequests, serve(h, formRequest("alice", "secret", "192.0.2.1:1")).Code)
	require.Equal(t, http.StatusTooManyRequests, serve(h, formRequest("alice", "secret", "192.0.2.1:1")).Code)

	assert.Equal(t, http.StatusUnauthorized, serve(h, withCookie(formRequest("alice", "typo", "192.0.2.1:1"), c)).Code)
	w := serve(h, withCookie(formRequest("alice", "secret", "192.0.2.1:1"), c))
	require.Equal(t, http.StatusOK, w.Code, "the device is judged apart")
	require.Len(t, w.Result().Cookies(), 1, "a success renews the cookie")
	assert.NotEqual(t, c.Value, w.Result().Cookies()[0].Value)
	// A failure never issues a cookie.
	assert.Empty(t, serve(h, withCookie(formRequest("alice", "typo", "192.0.2.1:1"), c)).Result().Cookies())
}

// A cookie that is forged, expired, for another user, signed with another
// secret, or malformed counts as no cookie: the locked anonymous stream.
func TestInvalidDeviceCookieIsAnonymous(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := deviceGuard(t, clk, login.DeviceOptions{TTL: 24 * time.Hour})
	h := g.Handler(&users{})
	good := loginCookie(t, h, "alice", "secret", "192.0.2.1:1")
	bobs := loginCookie(t, h, "bob", "hunter2", "192.0.2.2:1")
	other := deviceGuard(t, clk, login.DeviceOptions{Secret: bytes.Repeat([]byte{8}, 32)})
	foreign := loginCookie(t, other.Handler(&app{}), "alice", "secret", "192.0.2.1:1")
	for i := range 1000 {
		serve(h, formRequest("alice", "guess", addr(i)))
	}
	flip := func(c *http.Cookie, i int) *http.Cookie {
		b := []byte(c.Value)
		b[i] ^= 'A' ^ 'B'
		if b[i] == c.Value[i] {
			b[i] ^= 1
		}
		return &http.Cookie{Name: c.Name, Value: string(b)}
	}
	renamed := *good
	renamed.Name = "other"
	cases := map[string]*http.Cookie{
		"none":          nil,
		"forged mac":    flip(good, len(good.Value)-2),
		"forged expiry": flip(good, 3),
		"forged nonce":  flip(good, 20),
		"other user":    bobs,
		"other secret":  foreign,
		"truncated":     {Name: good.Name, Value: good.Value[:len(good.Value)-1]},
		"padded":        {Name: good.Name, Value: good.Value + "="},
		"empty":         {Name: good.Name, Value: ""},
		"other name":    &renamed,
		"garbage":       {Name: good.Name, Value: strings.Repeat("!", len(good.Value))},
	}
	for name, c := range cases {
		assert.Equal(t, http.StatusTooManyRequests, serve(h, withCookie(formRequest("alice", "secret", "192.0.2.1:1"), c)).Code, name)
	}
	// The good cookie works, until it expires.
	assert.Equal(t, http.StatusUnauthorized, serve(h, withCookie(formRequest("alice", "typo", "192.0.2.1:1"), good)).Code)
	clk.Advance(24 * time.Hour)
	for i := range 1000 {
		serve(h, formRequest("alice", "guess", addr(i)))
	}
	assert.Equal(t, http.StatusTooManyRequests, serve(h, withCookie(formRequest("alice", "secret", "192.0.2.1:1"), good)).Code, "expired")
}

// The device stream is throttled too, on its own counter, which the
// anonymous stream and other devices do not share.
func TestDeviceStreamThrottled(t *testing.T) {
	clk := coretest.NewClock(t0)
	var locks []string
	g := newGuard(t, clk, login.Options{
		Account:   core.Backoff{Free: 5, Base: time.Hour},
		Devices:   &login.DeviceOptions{Secret: secret, Limit: core.Backoff{Free: 2, Base: time.Hour}},
		OnLockout: func(kind string, _ time.Duration) { locks = append(locks, kind) },
	})
	a := &app{}
	h := g.Handler(a)
	c1 := loginCookie(t, h, "alice", "secret", "192.0.2.1:1")
	c2 := loginCookie(t, h, "alice", "secret", "192.0.2.1:1")
	var codes []int
	for range 5 {
		codes = append(codes, serve(h, withCookie(formRequest("alice", "guess", "192.0.2.1:1"), c1)).Code)
	}
	assert.Equal(t, []int{401, 401, 401, 429, 429}, codes)
	assert.Equal(t, []string{"device"}, locks)
	assert.Equal(t, http.StatusTooManyRequests, serve(h, withCookie(formRequest("alice", "secret", "192.0.2.1:1"), c1)).Code)
	// Another device and the anonymous stream are untouched.
	assert.Equal(t, http.StatusOK, serve(h, withCookie(formRequest("alice", "secret", "192.0.2.1:1"), c2)).Code)
	assert.Equal(t, http.StatusUnauthorized, serve(h, formRequest("alice", "guess", "192.0.2.9:1")).Code)
}

// The manual API: a cookie only after a success.
func TestDeviceCookieManual(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := deviceGuard(t, clk, login.DeviceOptions{Name: "dev", Insecure: true})
	ctx := context.Background()
	r := httptest.NewRequest(http.MethodPost, "/login", nil)
	a, err := g.Begin(ctx, "alice", r)
	require.NoError(t, err)
	assert.Nil(t, a.DeviceCookie())
	a.Failed()
	a.Succeeded() // ignored
	assert.Nil(t, a.DeviceCookie(), "the first report was a failure")
	a, err = g.Begin(ctx, "alice", r)
	require.NoError(t, err)
	a.Succeeded()
	c := a.DeviceCookie()
	require.NotNil(t, c)
	assert.Equal(t, "dev", c.Name)
	assert.False(t, c.Secure)
	plain := newGuard(t, clk, login.Options{})
	a, err = plain.Begin(ctx, "alice", r)
	require.NoError(t, err)
	a.Succeeded()
	assert.Nil(t, a.DeviceCookie(), "no devices configured")
}

func TestDeviceOptionsValidated(t *testing.T) {
	for name, d := range map[string]login.DeviceOptions{
		"no secret":    {},
		"short secret": {Secret: secret[:31]},
		"negative ttl": {Secret: secret, TTL: -time.Second},
		"bad name":     {Secret: secret, Name: "a b"},
		"bad limit":    {Secret: secret, Limit: core.Backoff{}},
	} {
		_, err := login.New(login.Options{Devices: &d})
		assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
	}
}
