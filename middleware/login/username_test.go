package login_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
)

func TestBodyReading(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{MaxBody: 64})
	var seen string
	h := g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen = string(b)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	cases := []struct {
		name, ctype, body string
		status            int
	}{
		{"form", "application/x-www-form-urlencoded", "username=alice&password=x", 401},
		{"json", "application/json; charset=utf-8", `{"username":"alice","password":"x"}`, 401},
		{"too large", "application/json", `{"username":"alice","password":"` + strings.Repeat("x", 64) + `"}`, 413},
		{"multipart", "multipart/form-data; boundary=x", "--x--", 415},
		{"no type", "", "username=alice", 415},
		{"bad json", "application/json", `{"username":`, 400},
		{"json trailing", "application/json", `{"username":"a"} {}`, 400},
		{"json not string", "application/json", `{"username":1}`, 400},
		{"json case variant twice", "application/json", `{"username":"x","Username":"alice"}`, 400},
		{"json duplicate", "application/json", `{"username":"x","username":"alice"}`, 400},
		{"form duplicate", "application/x-www-form-urlencoded", "username=x&username=alice", 400},
		{"bad form", "application/x-www-form-urlencoded", "username=%zz", 400},
		{"missing", "application/json", `{"password":"x"}`, 400},
		{"blank", "application/x-www-form-urlencoded", "username=+&password=x", 400},
	}
	for _, c := range cases {
		seen = ""
		r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(c.body))
		if c.ctype != "" {
			r.Header.Set("Content-Type", c.ctype)
		}
		w := serve(h, r)
		assert.Equal(t, c.status, w.Code, c.name)
		if c.status == 401 {
			assert.Equal(t, c.body, seen, "%s: the handler reads the same bytes", c.name)
		} else {
			assert.Empty(t, seen, c.name)
			assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"), c.name)
		}
	}
	// GET passes through uncounted.
	r := httptest.NewRequest(http.MethodGet, "/login", nil)
	assert.Equal(t, http.StatusUnauthorized, serve(h, r).Code)
}
