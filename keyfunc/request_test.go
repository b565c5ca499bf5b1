package keyfunc

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoute(t *testing.T) {
	mux := http.NewServeMux()
	var got string
	var gotErr error
	handle := func(w http.ResponseWriter, r *http.Request) { got, gotErr = Route(r) }
	mux.HandleFunc("GET /items/{id}", handle)
	mux.HandleFunc("/static/", handle)
	tests := []struct {
		method, path string
		want         string
	}{
		{http.MethodGet, "/items/42", "GET /items/{id}"},
		{http.MethodHead, "/items/7", "GET /items/{id}"},
		{http.MethodPost, "/static/a/b.css", "/static/"},
	}
	for _, tt := range tests {
		got, gotErr = "", nil
		mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(tt.method, tt.path, nil))
		require.NoError(t, gotErr, tt.path)
		assert.Equal(t, tt.want, got, tt.path)
	}

	k, err := Route(httptest.NewRequest(http.MethodGet, "/items/42", nil))
	require.ErrorIs(t, err, ErrNoKey, "outside a mux")
	assert.Empty(t, k)
}

func TestMethod(t *testing.T) {
	tests := []struct {
		method, want string
		ok           bool
	}{
		{http.MethodGet, http.MethodGet, true},
		{http.MethodPost, http.MethodPost, true},
		{http.MethodHead, http.MethodGet, true},
		{"PROPFIND", otherMethod, true},
		{"", "", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Method = tt.method
		got, err := Method(r)
		if !tt.ok {
			require.ErrorIs(t, err, ErrNoKey)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, got)
	}
}

func TestConst(t *testing.T) {
	for _, s := range []string{"global", "a|b", "3:x"} {
		got, err := Const(s)(newReq("192.0.2.1:1"))
		require.NoError(t, err)
		assert.Equal(t, s, got)
		got, err = Const(s)(newReq("garbage"))
		require.NoError(t, err)
		assert.Equal(t, s, got)
	}
	assert.Panics(t, func() { Const("") })
}
