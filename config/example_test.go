package config_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/floodgate-go/floodgate/config"
)

// A configuration with a default limit per client IP and a stricter login
// route, mounted on a handler.
func ExampleParse() {
	lim, err := config.Parse("limits.yaml", []byte(`
policies:
  api: 100/min
  login: 2/15m
default: {policy: api}
routes:
  - {pattern: POST /login, policy: login}
`), config.Options{})
	if err != nil {
		panic(err) // file:line:column: what is wrong
	}
	defer lim.Close()
	h := lim.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for range 3 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/login", nil))
		fmt.Println(w.Code, w.Header().Get("RateLimit-Policy"))
	}
	// Output:
	// 200 "login";q=2;w=900
	// 200 "login";q=2;w=900
	// 429 "login";q=2;w=900
}

// Mistakes are reported at their line and column, the column of a rate
// string's error included.
func ExampleError() {
	_, err := config.Parse("limits.yaml", []byte(`
policies:
  api: 100/min brust 20
default: {policy: api, key: client-ip}
routes:
  - {pattern: POST /login, polciy: api}
`), config.Options{})
	fmt.Println(err)
	// Output:
	// limits.yaml:3:16: policies.api: rate "100/min brust 20": core: unknown word "brust" at column 9 (did you mean "burst"?): want an algorithm (gcra, token-bucket, leaky-bucket, fixed-window, sliding-window, sliding-log, hybrid, rolling-window, warm-up, backoff) or a parameter (burst, no-delay, anchored, count-rejected, every, cap, cold, base, max, forgive): invalid rate limit configuration
	// limits.yaml:4:29: default.key: no key "client-ip" in keys (ip, the client IP from RemoteAddr, needs no definition)
	// limits.yaml:6:28: routes[0]: unknown field "polciy": want pattern, patterns, name, unlimited, policy, key, identified, tiers
}
