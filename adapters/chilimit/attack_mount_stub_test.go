package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// chi routes a sub-router's mount point itself ("POST /files") to the
// sub-router, which serves it with its "/" or "/*" route, but Find names
// it by the mount point's own pattern ("/files") without descending.
// LimitMux, and Limit in the root's Use, charged that pattern, which
// names no route here ("POST /files/*" is the route served): 3 of 3 ran.
// Limit in the sub-router's Use, beside the root's own "GET /files", is
// kept to the same answer.
func TestAttackMountPointPathChargesTheSubRoutersRoute(t *testing.T) {
	t.Parallel()
	for _, use := range []string{"LimitMux", "Limit", "sub-router Use"} {
		m := selectOn(t, quota{"/files/v1/status", 1000}, quota{"POST /files/*", 1})
		uploads := 0
		r := chi.NewRouter()
		switch use {
		case "LimitMux":
			r.Use(chilimit.LimitMux(m, r))
		case "Limit":
			r.Use(chilimit.Limit(m))
		}
		r.Get("/files", func(http.ResponseWriter, *http.Request) {})
		r.Route("/files", func(s chi.Router) {
			if use == "sub-router Use" {
				s.Use(chilimit.Limit(m))
			}
			s.Post("/*", func(http.ResponseWriter, *http.Request) { uploads++ })
			s.Get("/v1/status", func(http.ResponseWriter, *http.Request) {})
		})
		codes := thrice(r, http.MethodPost, "/files")
		assert.Equal(t, []int{200, 429, 429}, codes, use)
		assert.Equal(t, 1, uploads, use)
	}
}
