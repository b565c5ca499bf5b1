package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
)

func TestCapture(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(http.ResponseWriter)
		want  int
	}{
		{"nothing", func(http.ResponseWriter) {}, 0},
		{"informational only", func(w http.ResponseWriter) { w.WriteHeader(103) }, 0},
		{"switching protocols", func(w http.ResponseWriter) { w.WriteHeader(101) }, 101},
		{"body", func(w http.ResponseWriter) { _, _ = w.Write([]byte("x")) }, 200},
		{"status", func(w http.ResponseWriter) { w.WriteHeader(401) }, 401},
		{"informational first", func(w http.ResponseWriter) { w.WriteHeader(103); w.WriteHeader(404) }, 404},
		{"flush", func(w http.ResponseWriter) { _ = http.NewResponseController(w).Flush(); w.WriteHeader(500) }, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			w, status := middleware.Capture(rec)
			c.write(w)
			assert.Equal(t, c.want, status())
		})
	}
}
