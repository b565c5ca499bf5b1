package chilimit

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
)

// PerIP returns chi middleware that limits each client IP to rate, in the
// rate syntax of package core ("100/min", "10/s burst 20"), with the
// defaults of middleware.PerIP: the client IP from RemoteAddr (IPv6 by
// /64), every rate-limit header, a problem+json 429, fail closed. opts
// configure the limiter (core.WithStore for a store shared by a fleet).
//
//	r.Use(chilimit.MustPerIP("100/min"))
//
// Mounted with the root router's Use it limits every request, 404s and
// 405s included; one limit covers every method, so HEAD counts as GET. A
// CORS preflight is counted in the client's bucket too when it reaches a
// handler serving OPTIONS (Handle's, Options', a Mount's), which it finds
// as [LimitMux] does, before chi routes; one that chi answers itself (no
// route of its path serves OPTIONS) is limited as strictly in a bucket of
// its own (see middleware.Preflight). It reads no forwarding header:
// behind a proxy, give middleware.New a key from keyfunc.ClientIP and
// mount it with [LimitMux].
//
// An invalid rate is an error wrapping core.ErrInvalidConfig.
func PerIP(rate string, opts ...core.Option) (func(http.Handler) http.Handler, error) {
	m, err := middleware.PerIP(rate, opts...)
	if err != nil {
		return nil, fmt.Errorf("chilimit: %w", err)
	}
	pool := sync.Pool{New: func() any { return chi.NewRouteContext() }}
	return func(next http.Handler) http.Handler {
		h := m.Handler(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, ok := routepath.Preflight(r); ok {
				if pattern := reachesOptions(&pool, r); pattern != "" {
					// It reaches a handler serving OPTIONS: decided as the
					// OPTIONS request it is, in the client's bucket (see
					// middleware.Preflight).
					serve(m, w, r, pattern, http.MethodOptions+" "+pattern, next, false, noVariants)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}, nil
}

// reachesOptions returns the pattern of the route whose handler r, an
// OPTIONS request, reaches by its own method on the root router (as
// LimitMux finds it, before chi routes), "" for none.
func reachesOptions(pool *sync.Pool, r *http.Request) string {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil || rctx.Routes == nil {
		return ""
	}
	sc := pool.Get().(*chi.Context)
	pattern, reached, _ := find(rctx.Routes, sc, r, stubs{})
	pool.Put(sc)
	if reached == "" {
		return ""
	}
	return pattern
}

// MustPerIP is like [PerIP] but panics, with PerIP's error, if rate is
// invalid: for a rate written as a constant, like regexp.MustCompile. It
// never panics while serving.
func MustPerIP(rate string, opts ...core.Option) func(http.Handler) http.Handler {
	h, err := PerIP(rate, opts...)
	if err != nil {
		panic(err)
	}
	return h
}
