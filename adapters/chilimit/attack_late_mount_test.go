package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chi takes routes while it serves. The mount points LimitMux and Limit
// in the root's Use read at the first request were never read again: a
// router mounted afterwards (r.Route("/files", …)) had its mount point's
// own path ("POST /files", "/files/", "/v1/../files" behind CleanPath)
// charged as the pattern Find names there, which is no route: 3 uploads
// of 3 passed "POST /files/*" (1 an hour). The mount points are now read
// again once the route table has seen a route added since.
func TestAttackMountAfterTheFirstRequest(t *testing.T) {
	t.Parallel()
	for _, use := range []string{"LimitMux", "Limit"} {
		for _, c := range []struct {
			clean bool
			path  string
		}{{false, "/files"}, {false, "/files/"}, {true, "/v1/../files"}} {
			m := selectOn(t, quota{"/files/v1/status", 1000}, quota{"POST /files/*", 1})
			uploads := 0
			r := chi.NewRouter()
			if c.clean {
				r.Use(chimw.CleanPath)
			}
			if use == "LimitMux" {
				r.Use(chilimit.LimitMux(m, r))
			} else {
				r.Use(chilimit.Limit(m))
			}
			r.Get("/health", func(http.ResponseWriter, *http.Request) {})
			require.Equal(t, http.StatusOK, from(r, http.MethodGet, "/health", "192.0.2.9:1"))
			r.Route("/files", func(s chi.Router) {
				s.Post("/*", func(http.ResponseWriter, *http.Request) { uploads++ })
				s.Get("/v1/status", func(http.ResponseWriter, *http.Request) {})
			})
			codes := thrice(r, http.MethodPost, c.path)
			assert.Equal(t, []int{200, 429, 429}, codes, "%s %s", use, c.path)
			assert.Equal(t, 1, uploads, "%s %s", use, c.path)
		}
	}
}
