package config_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// yamlLines are YAML's line breaks.
var yamlLines = regexp.MustCompile("\r\n|[\r\n\u0085\u2028\u2029]")

// FuzzParse: whatever the file holds, Parse never panics; it returns
// either a Limiter that serves requests without panicking, or an error
// wrapping core.ErrInvalidConfig whose every part is an *Error with a
// position in the file (a column for all but YAML syntax errors).
func FuzzParse(f *testing.F) {
	f.Add(readExample(f))
	for _, tc := range errorCases {
		f.Add([]byte(tc.src))
	}
	f.Add([]byte(`{"policies": {"api": "2/min"}, "default": {"policy": "api"}}`))
	f.Add([]byte("policies: {a: &r 1/s}\nkeys: {k: {join: [ip, ip]}}\ndefault: {policy: a, key: k}\nroutes: [{pattern: /x, policy: *r}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		clk := coretest.NewClock(t0)
		opts := options(clk)
		opts.Middleware.MaxDelay = time.Millisecond // shaping delays are real waits
		l, err := config.Parse("fuzz.yaml", data, opts)
		if err != nil {
			if l != nil {
				t.Fatalf("a Limiter and an error: %v", err)
			}
			if !errors.Is(err, core.ErrInvalidConfig) {
				t.Fatalf("not ErrInvalidConfig: %v", err)
			}
			lines := len(yamlLines.Split(string(data), -1))
			for _, e := range leaves(err) {
				ce, ok := e.(*config.Error)
				switch {
				case !ok:
					t.Fatalf("%T without a position: %v", e, e)
				case ce.File != "fuzz.yaml" || ce.Line < 1 || ce.Line > lines:
					t.Fatalf("position out of the file (%d lines): %v", lines, ce)
				case ce.Column < 1 && !strings.HasPrefix(ce.Err.Error(), "yaml: "):
					t.Fatalf("no column: %v", ce)
				}
			}
			return
		}
		defer l.Close()
		if bytes.Contains(data, []byte("redis")) {
			return // a Redis store would wait for its timeout on every request
		}
		h := l.Handler(http.NotFoundHandler())
		for _, r := range []*http.Request{
			httptest.NewRequest(http.MethodGet, "/", nil),
			httptest.NewRequest(http.MethodPost, "/login", nil),
			httptest.NewRequest(http.MethodOptions, "/x", nil),
		} {
			r.Header.Set("X-API-Key", "key-acme")
			r.Header.Set("X-Forwarded-For", "198.51.100.1")
			h.ServeHTTP(httptest.NewRecorder(), r)
		}
	})
}
