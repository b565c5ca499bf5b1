package login_test

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tenantApp is the login handler of one tenant of a multi-tenant service:
// each tenant has its own users, so that two tenants may each have an
// "admin" with a password of its own.
type tenantApp struct {
	pass   string
	checks atomic.Int64
}

func (a *tenantApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	a.checks.Add(1)
	if r.PostForm.Get("username") == "admin" && r.PostForm.Get("password") == a.pass {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusUnauthorized)
}

func tenantRequest(path, user, pass string, cookies []*http.Cookie) *http.Request {
	body := url.Values{"username": {user}, "password": {pass}}.Encode()
	r, _ := http.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.RequestURI = path
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = "198.51.100.9:1"
	for _, c := range cookies {
		r.AddCookie(c)
	}
	return r
}

// TestAttackDeviceCookieOfAnotherLoginPage: a device cookie earned at one
// login page must not open the device path of the same username at
// another. One guard (or guards sharing the device secret) in front of two
// tenants' login pages: an attacker who owns tenant "evil" and its user
// "admin" logged in there and used the cookie at "acme"'s page, where it
// was judged on a fresh device counter, never on acme's admin account nor
// the attacker's network: with one new cookie per own login, 12 logins
// gave 60 guesses at acme's admin password against 5 free failures.
func TestAttackDeviceCookieOfAnotherLoginPage(t *testing.T) {
	g := newGuard(t, coretest.NewClock(t0), login.Options{Devices: &login.DeviceOptions{Secret: bytes.Repeat([]byte{9}, 32)}})
	evil, acme := &tenantApp{pass: "mine"}, &tenantApp{pass: "topsecret"}
	mux := http.NewServeMux()
	mux.Handle("POST /t/evil/login", g.Handler(evil))
	mux.Handle("POST /t/acme/login", g.Handler(acme))
	for range 12 {
		w := serve(mux, tenantRequest("/t/evil/login", "admin", "mine", nil))
		for range 5 {
			serve(mux, tenantRequest("/t/acme/login", "admin", "guess", w.Result().Cookies()))
		}
	}
	require.LessOrEqual(t, acme.checks.Load(), int64(6), "guesses at acme's admin password that reached the check")

	// The cookie still serves its owner at the page it was earned at.
	g = newGuard(t, coretest.NewClock(t0), login.Options{Devices: &login.DeviceOptions{Secret: bytes.Repeat([]byte{9}, 32)}})
	acme = &tenantApp{pass: "topsecret"}
	h := g.Handler(acme)
	w := serve(h, tenantRequest("/t/acme/login", "admin", "topsecret", nil))
	require.Equal(t, http.StatusOK, w.Code)
	c := w.Result().Cookies()
	for range 100 {
		serve(h, tenantRequest("/t/acme/login", "admin", "guess", nil))
	}
	require.Equal(t, http.StatusTooManyRequests, serve(h, tenantRequest("/t/acme/login", "admin", "topsecret", nil)).Code)
	assert.Equal(t, http.StatusOK, serve(h, tenantRequest("/t/acme/login", "admin", "topsecret", c)).Code)
}
