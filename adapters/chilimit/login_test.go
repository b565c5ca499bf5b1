package chilimit_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chi is net/http: the guard's own Handler mounts on a route with
// r.With(g.Handler) and sees every status, over a real connection;
// device cookies get alice in through a flood.
func TestLoginGuardOnChi(t *testing.T) {
	g, err := login.New(login.Options{
		Account: core.Backoff{Free: 2, Base: time.Hour},
		Clock:   coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		Devices: &login.DeviceOptions{Secret: bytes.Repeat([]byte{1}, 32)},
		// A success is redirected to /home.
		SuccessRedirect: func(u *url.URL) bool { return u.Path == "/home" },
	})
	require.NoError(t, err)
	r := chi.NewRouter()
	r.With(g.Handler).Post("/login", func(w http.ResponseWriter, r *http.Request) {
		if r.PostFormValue("username") == "alice" && r.PostFormValue("password") == "secret" {
			http.Redirect(w, r, "/home", http.StatusSeeOther)
			return
		}
		http.Error(w, "wrong username or password", http.StatusUnauthorized)
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	client := srv.Client()
	client.Timeout = within.Bound // a handler that never answers fails the test
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	try := func(user, pass string, c *http.Cookie) *http.Response {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/login", strings.NewReader(url.Values{"username": {user}, "password": {pass}}.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if c != nil {
			req.AddCookie(c)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		return resp
	}
	ok := try("alice", "secret", nil)
	require.Equal(t, http.StatusSeeOther, ok.StatusCode)
	require.Len(t, ok.Cookies(), 1)
	var got []int
	for range 4 {
		got = append(got, try("Alice", "guess", nil).StatusCode)
	}
	assert.Equal(t, []int{401, 401, 401, 429}, got)
	assert.Equal(t, http.StatusTooManyRequests, try("alice", "secret", nil).StatusCode)
	assert.Equal(t, http.StatusSeeOther, try("alice", "secret", ok.Cookies()[0]).StatusCode)
}
