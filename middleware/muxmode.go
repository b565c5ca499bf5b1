package middleware

import (
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/floodgate-go/floodgate/core"
)

// errMux121 refuses Routes in a process whose ServeMux runs in Go 1.21's
// mode (GODEBUG httpmuxgo121=1): methods, hosts and wildcards of patterns
// are literal text there, so no request would match a route, and every one
// would be limited by the default, or not at all.
var errMux121 = fmt.Errorf("middleware: Routes needs ServeMux's Go 1.22 patterns, and GODEBUG httpmuxgo121=1 is set: %w", core.ErrInvalidConfig)

// muxPatterns reports whether this process's ServeMux matches Go 1.22
// patterns (a method and a wildcard): false under GODEBUG httpmuxgo121=1,
// which net/http reads once, at start-up.
var muxPatterns = sync.OnceValue(func() bool {
	mux := http.NewServeMux()
	mux.Handle("GET /{x}", http.NotFoundHandler())
	_, p := mux.Handler(&http.Request{Method: http.MethodGet, Host: "example.com", URL: &url.URL{Path: "/a"}})
	return p == "GET /{x}"
})
