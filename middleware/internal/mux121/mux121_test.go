//go:debug httpmuxgo121=1

// Package mux121 tests the middleware in front of a ServeMux in its Go
// 1.21 mode (GODEBUG httpmuxgo121=1), in which ServeMux.ServeHTTP does not
// set r.Pattern: a GODEBUG setting of the whole test binary, hence a
// package of its own.
package mux121

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHandlerSeesTheMuxPattern: the handler sees the r.Pattern its mux
// gives it, not the one Handler sets for the decision. Behind a Go 1.21
// mode mux, which leaves r.Pattern alone, an OPTIONS request reached the
// handler with Handler's "/x" (found by an adversarial review).
func TestHandlerSeesTheMuxPattern(t *testing.T) {
	var seen string
	mux := http.NewServeMux()
	mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) { seen = r.Pattern })
	m, err := middleware.PerIP("100/hour")
	require.NoError(t, err)
	h := m.Handler(mux)
	for _, method := range []string{"GET", "OPTIONS"} {
		seen = "unset"
		mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, "/x", nil))
		want := seen
		seen = "unset"
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, "/x", nil))
		assert.Equal(t, want, seen, method)
	}
}
