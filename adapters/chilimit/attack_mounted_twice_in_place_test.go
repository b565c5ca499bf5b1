package chilimit_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inPlaceUser is the context key of TestAttackMountedTwiceChangedInPlaceIsCharged.
type inPlaceUser struct{}

// One Middleware mounted twice, in the root's Use and a sub-router's,
// keyed by what a request names its user by: a user a middleware between
// the two stored in the context, else a form value, else the body (as
// login's guard reads a username). The middleware between changed what
// the key reads in place, passing on the same *http.Request: the form
// value normalised (r.Form.Set), the body rewritten (r.Body replaced),
// the context replaced (*r = *r.WithContext(…)). The inner use compared
// method, address, host, URL and headers only, took the outer decision
// (each spelling of the user its own bucket) for its own, and never
// charged the user's: 4 of 4 requests of one user ran, at 2 an hour. Now
// a request changed in any of what a key or cost can read (form, body,
// context, TLS, trailer, length, request URI) is decided again: 2 of 4.
func TestAttackMountedTwiceChangedInPlaceIsCharged(t *testing.T) {
	t.Parallel()
	key := func(r *http.Request) (string, error) {
		if u, ok := r.Context().Value(inPlaceUser{}).(string); ok {
			return "ctx " + u, nil
		}
		if u := r.FormValue("user"); u != "" {
			return "form " + u, nil
		}
		b, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		return "body " + string(b), err
	}
	between := map[string]func(*http.Request){
		"form": func(r *http.Request) { r.Form.Set("user", strings.ToLower(r.Form.Get("user"))) },
		"body": func(r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(bytes.ToLower(b)))
		},
		"context": func(r *http.Request) {
			*r = *r.WithContext(context.WithValue(r.Context(), inPlaceUser{}, "alice"))
		},
	}
	for name, change := range between {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("POST /api/x", fixed(t, 2)))
		m, err := middleware.NewSelect(rt, middleware.Options{Key: key})
		require.NoError(t, err)
		lim := chilimit.Limit(m)
		r := chi.NewRouter()
		r.Use(lim, func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				change(r)
				next.ServeHTTP(w, r)
			})
		})
		r.Route("/api", func(s chi.Router) {
			s.Use(lim)
			s.Post("/x", func(http.ResponseWriter, *http.Request) {})
		})
		var codes []int
		for i, user := range []string{"Alice", "ALICE", "aLice", "alIce"} {
			target, body := "/api/x?user="+user, ""
			if name != "form" {
				target, body = "/api/x", user
			}
			req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
			req.RemoteAddr = []string{"192.0.2.1:1", "192.0.2.2:1", "192.0.2.3:1", "192.0.2.4:1"}[i]
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			codes = append(codes, w.Code)
		}
		assert.Equal(t, []int{200, 200, 429, 429}, codes, name)
	}
}
