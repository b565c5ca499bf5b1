package main

import (
	"io"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server answers "200 ok" to every method, OPTIONS included, so a
// CORS preflight (OPTIONS with Origin and Access-Control-Request-Method)
// runs its handler as any request does, and counts in the client's one
// bucket. Before, the middleware wrapped a bare handler, which tells it
// nothing of what serves a preflight: preflights got a bucket of their
// own and a client got twice the limit (3 GETs and 3 preflights all 200
// against a limit of 3).
func TestPreflightsCountInTheClientsBucket(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig([]string{"-limit", "3", "-window", "1h"}, io.Discard)
	require.NoError(t, err)
	h, closeStore, err := newHandler(cfg)
	require.NoError(t, err)
	defer closeStore()
	var codes []int
	for _, method := range []string{"GET", "OPTIONS", "GET", "OPTIONS", "GET", "OPTIONS"} {
		r := httptest.NewRequest(method, "/any/path", nil)
		r.RemoteAddr = "192.0.2.1:1"
		if method == "OPTIONS" {
			r.Header.Set("Origin", "https://attacker.example")
			r.Header.Set("Access-Control-Request-Method", "GET")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		codes = append(codes, w.Code)
	}
	assert.Equal(t, []int{200, 200, 200, 429, 429, 429}, codes)
}
