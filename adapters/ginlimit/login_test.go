package ginlimit_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// guard returns a guard allowing 2 free failures per account, then an
// hour's lock, and the errors it reported.
func guard(t *testing.T, devices bool) (*login.Guard, *[]error) {
	t.Helper()
	errs := &[]error{}
	opts := login.Options{
		Account: core.Backoff{Free: 2, Base: time.Hour},
		Clock:   coretest.NewClock(t0),
		OnError: func(_ *http.Request, err error) { *errs = append(*errs, err) },
		// The tests' logins redirect a success to /home.
		SuccessRedirect: func(u *url.URL) bool { return u.Path == "/home" },
	}
	if devices {
		opts.Devices = &login.DeviceOptions{Secret: bytes.Repeat([]byte{1}, 32)}
	}
	g, err := login.New(opts)
	require.NoError(t, err)
	return g, errs
}

func post(h http.Handler, user, pass string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	body := url.Values{"username": {user}, "password": {pass}}.Encode()
	r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = "198.51.100.7:1"
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func codes(h http.Handler, pass string, n int) []int {
	var out []int
	for range n {
		out = append(out, post(h, "alice", pass).Code)
	}
	return out
}

func right(c *gin.Context) bool {
	return c.PostForm("username") == "alice" && c.PostForm("password") == "secret"
}

// errorsAs401 is the usual gin error-handling middleware: it answers the
// errors handlers recorded with c.Error, after they return.
func errorsAs401(c *gin.Context) {
	c.Next()
	if len(c.Errors) > 0 && !c.Writer.Written() {
		c.JSON(http.StatusUnauthorized, gin.H{"error": c.Errors.Last().Error()})
	}
}

// Every way a gin handler fails is judged a failure, every way it
// succeeds a success.
func TestLoginFailureStyles(t *testing.T) {
	fail := map[string]gin.HandlerFunc{
		"AbortWithStatus": func(c *gin.Context) { c.AbortWithStatus(http.StatusUnauthorized) },
		"JSON":            func(c *gin.Context) { c.JSON(http.StatusUnauthorized, gin.H{"error": "no"}) },
		"Status":          func(c *gin.Context) { c.Status(http.StatusUnauthorized) },
		"Error":           func(c *gin.Context) { _ = c.Error(errors.New("wrong password")) },
		"AbortWithError":  func(c *gin.Context) { _ = c.AbortWithError(http.StatusUnauthorized, errors.New("no")) },
		"nothing":         func(*gin.Context) {},
	}
	for name, h := range fail {
		g, errs := guard(t, false)
		e := gin.New()
		e.Use(errorsAs401)
		e.POST("/login", ginlimit.Login(g), func(c *gin.Context) {
			if right(c) {
				c.String(http.StatusOK, "welcome")
				return
			}
			h(c)
		})
		assert.Equal(t, []int{200, 200, 200}, codes(e, "secret", 3), "%s: successes are free", name)
		got := codes(e, "guess", 4)
		assert.Equal(t, http.StatusTooManyRequests, got[3], "%s: %v", name, got)
		if name != "nothing" { // gin sends its default 200, counted as a failure
			assert.NotEqual(t, http.StatusOK, got[0], name)
		}
		switch name {
		case "Error", "nothing":
			require.Len(t, *errs, 3, name)
			assert.ErrorIs(t, (*errs)[0], login.ErrNoResponse, name)
		default:
			assert.Empty(t, *errs, name)
		}
	}
	succeed := map[string]gin.HandlerFunc{
		"Redirect": func(c *gin.Context) { c.Redirect(http.StatusSeeOther, "/home") },
		"Status":   func(c *gin.Context) { c.Status(http.StatusNoContent) },
		"JSON":     func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{}) },
	}
	for name, h := range succeed {
		g, _ := guard(t, false)
		e := gin.New()
		e.POST("/login", ginlimit.Login(g), h)
		got := codes(e, "any", 5)
		assert.NotContains(t, got, http.StatusTooManyRequests, "%s: %v", name, got)
	}
}

// With device cookies, gin's successes carry the cookie however they are
// written, and the cookie gets alice in through a flood.
func TestLoginDeviceCookie(t *testing.T) {
	for name, ok := range map[string]gin.HandlerFunc{
		"String":   func(c *gin.Context) { c.String(http.StatusOK, "welcome") },
		"Redirect": func(c *gin.Context) { c.Redirect(http.StatusSeeOther, "/home") },
		"Status":   func(c *gin.Context) { c.Status(http.StatusNoContent) },
	} {
		g, _ := guard(t, true)
		e := gin.New()
		e.POST("/login", ginlimit.Login(g), func(c *gin.Context) {
			if right(c) {
				ok(c)
				return
			}
			c.AbortWithStatus(http.StatusUnauthorized)
		})
		w := post(e, "alice", "secret")
		require.Less(t, w.Code, 400, name)
		cs := w.Result().Cookies()
		require.Len(t, cs, 1, name)
		assert.Empty(t, post(e, "alice", "guess").Result().Cookies(), name)
		codes(e, "guess", 10)
		require.Equal(t, http.StatusTooManyRequests, post(e, "alice", "secret").Code, name)
		assert.Less(t, post(e, "alice", "secret", cs[0]).Code, 400, name)
	}
}

// Limit with CountIf counting failures sees c.Error answered by an outer
// error middleware, not gin's default 200.
func TestCountIfSeesGinErrors(t *testing.T) {
	m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerHour(2), Burst: 2}), middleware.Options{CountIf: func(s int) bool { return s >= 400 }})
	require.NoError(t, err)
	e := gin.New()
	e.Use(errorsAs401, ginlimit.Limit(m, e))
	e.POST("/login", func(c *gin.Context) { _ = c.Error(errors.New("wrong password")) })
	var got []int
	for range 4 {
		got = append(got, do(e, http.MethodPost, "/login", "").Code)
	}
	assert.Equal(t, []int{401, 401, 429, 429}, got)
}

// End to end over a real connection.
func TestLoginOverHTTP(t *testing.T) {
	g, _ := guard(t, false)
	e := gin.New()
	e.POST("/login", ginlimit.Login(g), func(c *gin.Context) { c.AbortWithStatus(http.StatusUnauthorized) })
	srv := httptest.NewServer(e)
	defer srv.Close()
	srv.Client().Timeout = within.Bound // a handler that never answers fails the test
	var got []int
	for range 4 {
		resp, err := srv.Client().PostForm(srv.URL+"/login", url.Values{"username": {"alice"}, "password": {"guess"}})
		require.NoError(t, err)
		_ = resp.Body.Close()
		got = append(got, resp.StatusCode)
	}
	assert.Equal(t, []int{401, 401, 401, 429}, got)
}
