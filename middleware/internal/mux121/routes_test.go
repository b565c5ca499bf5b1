package mux121

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
)

// (GODEBUG httpmuxgo121=1 is set for the package by mux121_test.go.)
//
// Routes matches requests with ServeMux's Go 1.22 patterns. In Go 1.21's
// mode a method or a wildcard is a literal ("POST /login" a host, "{id}" a
// segment) and no request matched a route: with "POST /login" at 1/hour
// and "GET /users/{id}" at 1/hour, three requests of each were admitted,
// on the default's bucket, with a handler other than a ServeMux (and the
// second also through one). The configuration is now refused when the
// program starts, never limited silently by the default.
func TestRoutesRefusedInGo121Mode(t *testing.T) {
	rt := middleware.NewRoutes(middleware.Rate("default", "100/hour"))
	assert.ErrorIs(t, rt.Add("POST /login", middleware.Rate("login", "1/hour")), core.ErrInvalidConfig)
	assert.ErrorIs(t, rt.Add("GET /users/{id}", middleware.Rate("users", "1/hour")), core.ErrInvalidConfig)
	m, err := middleware.NewSelect(rt, middleware.Options{})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	if err != nil {
		return
	}
	h := m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, c := range [][2]string{{"POST", "/login"}, {"GET", "/users/7"}} {
		var codes []int
		for range 3 {
			w := httptest.NewRecorder()
			r := httptest.NewRequest(c[0], c[1], nil)
			r.RemoteAddr = "192.0.2.1:1"
			h.ServeHTTP(w, r)
			codes = append(codes, w.Code)
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s", c[0], c[1])
	}
}
