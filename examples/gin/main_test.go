package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRouter(t *testing.T) {
	h, err := newRouter(nil)
	require.NoError(t, err)
	status := func(method, path string) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		return w.Code
	}
	for i := range 10 {
		require.Equal(t, http.StatusOK, status(http.MethodGet, "/users/"+strconv.Itoa(i)), i)
	}
	assert.Equal(t, http.StatusTooManyRequests, status(http.MethodGet, "/users/99"))
	assert.Equal(t, http.StatusOK, status(http.MethodGet, "/hello"))
	for range 5 {
		require.Equal(t, http.StatusOK, status(http.MethodPost, "/login"))
	}
	assert.Equal(t, http.StatusTooManyRequests, status(http.MethodPost, "/login"))
}
