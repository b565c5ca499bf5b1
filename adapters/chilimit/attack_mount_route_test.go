package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// A handler mounted on chi ("/legacy/*", a ServeMux of its own) routes
// further: "POST /legacy/login", limited to 1 an hour, guards its login
// handler. With the mount limited as "/legacy/*" (1000), found by the
// template, the login route was never asked: 3 of 3 logins ran, with
// LimitMux and with Limit inline. Now the route the path names is charged
// with the catch-all's, all or nothing: 1.
func TestAttackRouteUnderAMountedHandlerCharged(t *testing.T) {
	t.Parallel()
	for _, inline := range []bool{false, true} {
		m := selectOn(t, quota{"POST /legacy/login", 1}, quota{"/legacy/*", 1000})
		hits := 0
		legacy := http.NewServeMux()
		legacy.HandleFunc("POST /legacy/login", func(http.ResponseWriter, *http.Request) { hits++ })
		r := chi.NewRouter()
		if inline {
			r.With(chilimit.Limit(m)).Mount("/legacy", legacy)
		} else {
			r.Use(chilimit.LimitMux(m, r))
			r.Mount("/legacy", legacy)
		}
		codes := thrice(r, http.MethodPost, "/legacy/login")
		assert.Equal(t, []int{200, 429, 429}, codes, "inline %v", inline)
		assert.Equal(t, 1, hits, "inline %v", inline)
	}
}
