package echolimit_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/labstack/echo/v4"
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

func post(h http.Handler, user, pass, addr string, cookies ...*http.Cookie) *httptest.ResponseRecorder {
	body := url.Values{"username": {user}, "password": {pass}}.Encode()
	r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = addr
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func addr(i int) string { return "198.51.100." + string(rune('0'+i%10)) + ":1" }

// check is the natural echo login handler: a wrong password is an
// error returned, a right one a written answer.
func check(c echo.Context) error {
	if c.FormValue("username") == "alice" && c.FormValue("password") == "secret" {
		return c.String(http.StatusOK, "welcome")
	}
	return echo.NewHTTPError(http.StatusUnauthorized, "wrong username or password")
}

func codes(h http.Handler, pass string, n int) []int {
	var out []int
	for i := range n {
		out = append(out, post(h, "alice", pass, addr(i)).Code)
	}
	return out
}

// Login sees the status echo writes for a returned error, refunds
// successes, and throttles.
func TestLoginSeesReturnedErrors(t *testing.T) {
	g, errs := guard(t, false)
	e := echo.New()
	e.POST("/login", check, echolimit.Login(g))
	e.GET("/login", func(c echo.Context) error { return c.String(http.StatusOK, "form") })
	assert.Equal(t, []int{200, 200, 200, 200}, codes(e, "secret", 4), "successes are free")
	assert.Equal(t, []int{401, 401, 401, 429, 429}, codes(e, "guess", 5))
	assert.Equal(t, http.StatusTooManyRequests, post(e, "ALICE", "secret", addr(0)).Code)
	assert.Equal(t, http.StatusOK, httptestGet(e).Code, "GET passes")
	assert.Empty(t, *errs)
}

func httptestGet(h http.Handler) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/login", nil))
	return w
}

// Every way an echo handler fails counts: a returned error of any kind, a
// written 401, a redirect is a success, a nil return without a response is
// a reported failure.
func TestLoginFailureStyles(t *testing.T) {
	styles := map[string]echo.HandlerFunc{
		"http error":  func(echo.Context) error { return echo.NewHTTPError(http.StatusUnauthorized) },
		"plain error": func(echo.Context) error { return errors.New("wrong password") },
		"written":     func(c echo.Context) error { return c.NoContent(http.StatusUnauthorized) },
		"nothing":     func(echo.Context) error { return nil },
	}
	for name, h := range styles {
		g, errs := guard(t, false)
		e := echo.New()
		e.POST("/login", h, echolimit.Login(g))
		got := codes(e, "guess", 4)
		assert.Equal(t, http.StatusTooManyRequests, got[3], "%s: %v", name, got)
		if name == "nothing" {
			require.Len(t, *errs, 3, name)
			assert.ErrorIs(t, (*errs)[0], login.ErrNoResponse)
		} else {
			assert.Empty(t, *errs, name)
		}
	}
	g, _ := guard(t, false)
	e := echo.New()
	e.POST("/login", func(c echo.Context) error { return c.Redirect(http.StatusSeeOther, "/home") }, echolimit.Login(g))
	assert.Equal(t, []int{303, 303, 303, 303, 303}, codes(e, "any", 5))
}

// The trap of issue 11: g.Handler through echo.WrapMiddleware with a
// handler returning echo.NewHTTPError(401). echo writes the 401 after the
// guard has returned; the guard, seeing no response, counts the failure
// and says so on every such attempt, instead of counting a success.
func TestWrapMiddlewareTrapThrottlesLoudly(t *testing.T) {
	g, errs := guard(t, false)
	e := echo.New()
	e.POST("/login", check, echo.WrapMiddleware(g.Handler))
	assert.Equal(t, []int{200, 200, 200}, codes(e, "secret", 3), "written successes are refunded")
	assert.Equal(t, []int{401, 401, 401, 429, 429}, codes(e, "guess", 5))
	require.Len(t, *errs, 3)
	for _, err := range *errs {
		assert.ErrorIs(t, err, login.ErrNoResponse)
	}
}

// With device cookies, echo's successes carry the cookie, and the cookie
// gets alice in through a flood that locked her account.
func TestLoginDeviceCookie(t *testing.T) {
	g, _ := guard(t, true)
	e := echo.New()
	e.POST("/login", check, echolimit.Login(g))
	w := post(e, "alice", "secret", addr(0))
	require.Equal(t, http.StatusOK, w.Code)
	cs := w.Result().Cookies()
	require.Len(t, cs, 1)
	assert.Empty(t, post(e, "alice", "guess", addr(0)).Result().Cookies())
	codes(e, "guess", 20)
	require.Equal(t, http.StatusTooManyRequests, post(e, "alice", "secret", addr(0)).Code)
	assert.Equal(t, http.StatusOK, post(e, "alice", "secret", addr(0), cs[0]).Code)
}

// End to end over a real connection: a flood, then the 429.
func TestLoginOverHTTP(t *testing.T) {
	g, _ := guard(t, false)
	e := echo.New()
	e.POST("/login", check, echolimit.Login(g))
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
