package chilimit_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
)

type userKey struct{}

// auth is an authentication middleware as chi applications write them: it
// stores the user it verified in the request's context, or answers 401.
func auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok := stacktest.Bearer(r)
		if !ok {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, user)))
	})
}

// The limiter, mounted after the authentication middleware, keys on the
// user it stored in the context. Mounted before it (LimitMux, on the root
// router before the authentication), it finds no user and refuses.
func TestKeyFromContext(t *testing.T) {
	stacktest.CheckUserKey(t, keyfunc.UserFromContext(userKey{}), func(m *middleware.Middleware, before bool) http.Handler {
		r := chi.NewRouter()
		if before {
			r.Use(chilimit.LimitMux(m, r), auth)
		} else {
			r.Use(auth, chilimit.Limit(m))
		}
		r.Get("/me", ok)
		return r
	})
}
