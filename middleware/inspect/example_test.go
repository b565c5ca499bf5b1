package inspect_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware/inspect"
)

// fixed is a clock standing still, for a reproducible output.
type fixed struct{ t time.Time }

func (c fixed) Now() time.Time { return c.t }

// fixedTime is the examples' instant.
var fixedTime = time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)

func Example() {
	ctx := context.Background()
	clock := fixed{fixedTime}
	policy, _ := core.ParsePolicy("api", "minute: 2/min; trial: shadow 1/min")
	lim, _ := core.NewLimiter(policy, core.WithClock(clock), core.WithTopKeys(core.TopKeysOptions{}))
	for range 3 {
		_, _ = lim.Allow(ctx, "client-1")
	}

	h, _ := inspect.New(lim)
	// Mount it behind the service's own authentication, never in the open.
	admin := http.NewServeMux()
	admin.Handle("/debug/floodgate/", h)

	for _, req := range []*http.Request{
		httptest.NewRequest(http.MethodGet, "/debug/floodgate/inspect?key=client-1", nil),
		httptest.NewRequest(http.MethodGet, "/debug/floodgate/top?n=5", nil),
		httptest.NewRequest(http.MethodPost, "/debug/floodgate/reset?key=client-1", nil),
		httptest.NewRequest(http.MethodGet, "/debug/floodgate/inspect", nil),
	} {
		w := httptest.NewRecorder()
		admin.ServeHTTP(w, req)
		body, _ := io.ReadAll(w.Body)
		fmt.Println(w.Code, strings.TrimSpace(string(body)))
	}
	// Output:
	// 200 {"key":"client-1","policies":[{"policy":"api","allowed":false,"limits":[{"name":"minute","quota":2,"window":60,"allowed":false,"remaining":0,"reset_after":60,"retry_after":30},{"name":"trial","shadow":true,"quota":1,"window":60,"allowed":false,"remaining":0,"reset_after":60,"retry_after":60}]}]}
	// 200 {"policies":[{"policy":"api","from":"2026-01-02T03:00:00Z","to":"2026-01-02T03:05:00Z","takes":3,"keys":[{"key":"client-1","count":3,"admitted":2,"denied":1,"error":0}]}]}
	// 200 {"key":"client-1","policies":["api"]}
	// 400 {"error":"want a key parameter"}
}
