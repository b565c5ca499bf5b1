package chilimit_test

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// treeRoute is a handler of a random router tree and its route.
type treeRoute struct {
	id     int
	route  string   // as given to Routes: "POST /api/{id}/login"
	also   []string // the other routes of its handler
	served *int
}

func (z *treeRoute) ServeHTTP(http.ResponseWriter, *http.Request) { *z.served = z.id }

// treeBuilder builds random chi router trees: routes, Route, Mount of a
// chi router, of one behind a plain handler and of a ServeMux, Group.
type treeBuilder struct {
	rnd    *rand.Rand
	lim    func(http.Handler) http.Handler
	inline bool // Limit on every route (With)
	subUse bool // Limit in every sub-router's Use (on the root's routes, With)
	wrap   bool // mount routers behind a plain handler too
	// reuse, when set, picks routes given the handler of a route added
	// before (r.Handle("/api/*", h) and r.Post("/api/login", h)), by a
	// stream of its own, so that the trees are those of the seeds.
	reuse  *rand.Rand
	routes []*treeRoute
	served *int
}

var treeSegs = []string{"a", "api", "v2", "login", "{id}", "x"}

func (b *treeBuilder) seg() string { return "/" + treeSegs[b.rnd.IntN(len(treeSegs))] }

func (b *treeBuilder) add(route string) *treeRoute {
	z := &treeRoute{id: len(b.routes) + 1, route: route, served: b.served}
	b.routes = append(b.routes, z)
	return z
}

// build adds 1 to 3 random entries to r, whose routes chi names under
// prefix (joined as chi joins them, "/api/*/x"); limited tells a router
// whose requests pass a Limit already (in its Use or an outer one).
func (b *treeBuilder) build(r chi.Router, prefix string, depth int, use, limited bool) {
	if use {
		r.Use(b.lim)
		limited = true
	}
	for range 1 + b.rnd.IntN(3) {
		func() {
			defer func() { _ = recover() }() // a pattern chi refuses twice
			rr := r
			if b.inline || !limited && b.subUse {
				rr = r.With(b.lim)
			}
			k := b.rnd.IntN(9)
			if depth >= 2 && k >= 4 {
				k = 0
			}
			switch k {
			case 0, 1, 2:
				p := []string{"/*", "/", b.seg() + b.seg(), b.seg(), b.seg()}[b.rnd.IntN(5)]
				method := []string{http.MethodGet, http.MethodPost, http.MethodOptions, http.MethodDelete}[b.rnd.IntN(4)]
				z := b.add(method + " " + chiRoutePattern(prefix+p))
				var h http.Handler = z
				if b.reuse != nil && len(b.routes) > 1 && b.reuse.IntN(3) == 0 {
					prev := b.routes[b.reuse.IntN(len(b.routes)-1)]
					prev.also = append(prev.also, z.route)
					h = prev
				}
				if method == http.MethodDelete {
					// A handler of every method, guarded by DELETE's
					// route: the other methods' routes at a path under
					// it ("/*") guard other handlers.
					rr.Handle(p, h)
					return
				}
				rr.Method(method, p, h)
			case 3:
				r.Group(func(g chi.Router) {
					use := b.subUse && !limited && b.rnd.IntN(2) == 0
					b.build(g, prefix, depth+1, use, limited)
				})
			case 4, 5:
				p := b.seg()
				r.Route(p, func(s chi.Router) { b.build(s, prefix+p+"/*", depth+1, b.subUse, limited) })
			case 6:
				p, s := b.seg(), chi.NewRouter()
				b.build(s, prefix+p+"/*", depth+1, b.subUse, limited)
				r.Mount(p, s)
			case 7:
				if !b.wrap {
					return
				}
				p, s := b.seg(), chi.NewRouter()
				b.build(s, prefix+p+"/*", depth+1, false, limited)
				r.Mount(p, http.HandlerFunc(s.ServeHTTP))
			case 8:
				full := chiRoutePattern(prefix + b.seg())
				if strings.ContainsAny(full, "{*") {
					return
				}
				mux := http.NewServeMux()
				route := "POST " + full + "/login"
				mux.Handle(route, b.add(route))
				rr.Mount(full[strings.LastIndexByte(full, '/'):], mux)
			}
		}()
	}
}

// chiRoutePattern is the pattern chi's RoutePattern gives a route joined
// as p.
func chiRoutePattern(p string) string {
	for strings.Contains(p, "/*/") {
		p = strings.ReplaceAll(p, "/*/", "/")
	}
	if p != "/" {
		p = strings.TrimSuffix(strings.TrimSuffix(p, "//"), "/")
	}
	return p
}

// TestChiTreeChargesTheServedRoute builds random router trees (nested
// Route, Mount, Group; a ServeMux mounted; routers behind a plain handler
// where Limit is inline) with Limit in the root's Use, inline, in the
// sub-routers' Use, or LimitMux, behind CleanPath, StripSlashes or
// GetHead, and sends them random requests (dot segments plain and
// encoded, empty segments, trailing slashes, unrouted methods): every
// request a handler serves is charged on that handler's route (or one of
// the same path for its method). A route in three, picked by a stream of
// its own, is given the handler of a route added before (r.Handle(
// "/api/*", h) beside r.Post("/api/login", h)): a request that handler
// serves is charged on one of its routes. The seeds are those of 30 where 101c27a
// let requests through uncharged: 9 requests in 6 of these 96 trees (a
// mount point's own path under LimitMux and the root's Use, a route
// inline in a router behind a plain handler, "/{id}//*").
func TestChiTreeChargesTheServedRoute(t *testing.T) {
	t.Parallel()
	segs := []string{"..", "%2e%2e", "%2F", ".", "", "7", "a", "api", "v2", "login", "x"}
	methods := []string{"GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE"}
	checked := 0 // requests served by a limited route, whose charges were checked
	for _, seed := range []uint64{0, 4, 5, 18, 21, 26} {
		for mount := range 4 { // root Use, inline, sub-router Use, LimitMux
			for front := range 4 {
				rnd := rand.New(rand.NewPCG(seed, uint64(mount*4+front)))
				rt := middleware.NewRoutes(nil)
				m, err := middleware.NewSelect(rt, middleware.Options{})
				require.NoError(t, err)
				served := 0
				reuse := func() *rand.Rand { return rand.New(rand.NewPCG(seed, 100+uint64(mount*4+front))) }
				b := &treeBuilder{rnd: rnd, lim: chilimit.Limit(m), inline: mount == 1, subUse: mount == 2, wrap: mount == 1, reuse: reuse(), served: &served}
				r := chi.NewRouter()
				r.Use([]func(http.Handler) http.Handler{chimw.RequestID, chimw.CleanPath, chimw.StripSlashes, chimw.GetHead}[front])
				switch mount {
				case 0:
					r.Use(b.lim)
				case 3:
					r.Use(chilimit.LimitMux(m, r))
				}
				// With CleanPath, the tree is built after a first
				// request, as routes added while serving: Routes, which
				// takes no route once it serves, is given those of a
				// tree built alike beforehand.
				late := front == 1
				tree := chi.Router(r)
				if late {
					tree = chi.NewRouter()
				}
				b.build(tree, "", 0, false, mount == 0 || mount == 3)
				lims := map[string]*charges{}
				var kept []string
				for _, z := range b.routes {
					if lims[z.route] != nil {
						continue
					}
					trial := middleware.NewRoutes(nil)
					var err error
					for _, k := range append(kept, z.route) {
						err = trial.Add(k, &charges{})
					}
					if err != nil {
						continue // ServeMux refuses the pair: left out
					}
					kept = append(kept, z.route)
					lims[z.route] = &charges{}
					require.NoError(t, rt.Add(z.route, lims[z.route]))
				}
				if late {
					first := chi.Router(r)
					if mount == 1 || mount == 2 {
						first = r.With(b.lim)
					}
					first.Get("/first", func(http.ResponseWriter, *http.Request) {})
					r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/first", nil))
					b.routes, b.rnd, b.reuse = nil, rand.New(rand.NewPCG(seed, uint64(mount*4+front))), reuse()
					b.build(r, "", 0, false, mount == 0 || mount == 3)
				}
				escaped := 0
				for range 60 {
					var path strings.Builder
					for range 1 + rnd.IntN(4) {
						path.WriteString("/" + segs[rnd.IntN(len(segs))])
					}
					if rnd.IntN(4) == 0 {
						path.WriteString("/")
					}
					req := httptest.NewRequest(http.MethodGet, "http://example.com"+path.String(), nil)
					req.Method = methods[rnd.IntN(len(methods))]
					for _, c := range lims {
						c.n = 0
					}
					served = 0
					r.ServeHTTP(httptest.NewRecorder(), req)
					if served == 0 || lims[b.routes[served-1].route] == nil {
						continue
					}
					checked++
					if z := b.routes[served-1]; !chargedOnItsPath(lims, z.route) && !slices.ContainsFunc(z.also, func(a string) bool { return chargedOnItsPath(lims, a) }) {
						escaped++
						t.Logf("seed %d mount %d front %d: %s %s served by %q, not charged there", seed, mount, front, req.Method, path.String(), b.routes[served-1].route)
					}
				}
				assert.Zero(t, escaped, "seed %d mount %d front %d", seed, mount, front)
			}
		}
	}
	// A tree that served nothing would check nothing: the seeds are fixed,
	// and 582 of the 5,760 requests reach a limited route.
	assert.Greater(t, checked, 500, "requests checked")
	t.Logf("%d requests checked", checked)
}

// chargedOnItsPath reports whether a route of route's path was charged.
func chargedOnItsPath(lims map[string]*charges, route string) bool {
	_, path, _ := strings.Cut(route, " ")
	for k, c := range lims {
		if _, p, _ := strings.Cut(k, " "); p == path && c.n > 0 {
			return true
		}
	}
	return false
}
