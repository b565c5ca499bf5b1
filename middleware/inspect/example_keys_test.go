package inspect_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/floodgate-go/floodgate/middleware/inspect"
)

// The key to inspect or reset is the one the middleware counts by, not the
// client's address as a log writes it: an IPv4 client is "203.0.113.7/32".
// The bare address is a key never seen, which reads as fresh and whose reset
// changes nothing; …/top lists the keys as they are counted.
func Example_middlewareKeys() {
	clock := fixed{t: fixedTime}
	login := middleware.Rate("login", "1/15m", core.WithClock(clock), core.WithTopKeys(core.TopKeysOptions{}))
	m, _ := middleware.New(login, middleware.Options{})
	app := m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	post := func() int {
		r := httptest.NewRequest(http.MethodPost, "/login", nil)
		r.RemoteAddr = "203.0.113.7:41000"
		w := httptest.NewRecorder()
		app.ServeHTTP(w, r)
		return w.Code
	}
	fmt.Println(post(), post())

	h, _ := inspect.New(login.(*core.Limiter))
	for _, req := range []*http.Request{
		httptest.NewRequest(http.MethodGet, "/top", nil),
		httptest.NewRequest(http.MethodPost, "/reset?key=203.0.113.7", nil), // not the key: changes nothing
		httptest.NewRequest(http.MethodPost, "/reset?key=203.0.113.7%2F32", nil),
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		body, _ := io.ReadAll(w.Body)
		fmt.Println(w.Code, strings.TrimSpace(string(body)))
		if strings.HasPrefix(req.URL.Path, "/reset") {
			fmt.Println("then", post())
		}
	}
	// Output:
	// 200 429
	// 200 {"policies":[{"policy":"login","from":"2026-01-02T03:00:00Z","to":"2026-01-02T03:05:00Z","takes":2,"keys":[{"key":"203.0.113.7/32","count":2,"admitted":1,"denied":1,"error":0}]}]}
	// 200 {"key":"203.0.113.7","policies":["login"]}
	// then 429
	// 200 {"key":"203.0.113.7/32","policies":["login"]}
	// then 200
}
