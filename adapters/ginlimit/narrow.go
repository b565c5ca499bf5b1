package ginlimit

import (
	"strings"

	"github.com/floodgate-go/floodgate/internal/routemethods"
)

// narrow returns methods, the methods reaching the handler a request of
// method reaches at route (see routemethods), with only those by which gin
// routes the request's path to route too: method, and the others none of
// whose routes listed in t takes path before route does. A route with
// parameters or a catch-all ("/api/:x") holds paths gin routes by another
// method to a route of their own (e.POST("/api/login", …) beside
// e.Any("/api/:x", h)): that route guards another handler than the one a
// GET reaches (see routemethods.Narrow). gin has no Find: a method is
// dropped only when one of its routes surely takes path first, by gin's
// rule (a static segment before a parameter, a parameter before a
// catch-all); in doubt it is kept, and the route of it guards the handler.
func narrow(t *routemethods.Table, path, route, methods, method string) string {
	if methods == "" || !strings.ContainsAny(route, ":*") {
		return methods
	}
	return routemethods.Narrow(methods, method, func(m string) bool {
		taken := false
		t.Templates(m, func(other string) bool {
			taken = other != route && matches(other, path) && before(other, route)
			return !taken
		})
		return !taken
	})
}

// segKind ranks a segment of a gin route as gin tries it: static (0),
// parameter (1), catch-all (2).
func segKind(seg string) int {
	switch {
	case strings.HasPrefix(seg, ":"):
		return 1
	case strings.HasPrefix(seg, "*"):
		return 2
	}
	return 0
}

// matches reports whether gin's route template matches path: each static
// segment as it is, a parameter one segment not empty, a catch-all the
// rest.
func matches(template, path string) bool {
	ts := strings.Split(template, "/")
	ps := strings.Split(path, "/")
	for i, seg := range ts {
		switch segKind(seg) {
		case 2:
			return i < len(ps)
		case 1:
			if i >= len(ps) || ps[i] == "" {
				return false
			}
		default:
			if i >= len(ps) || ps[i] != seg {
				return false
			}
		}
	}
	return len(ts) == len(ps)
}

// before reports whether gin tries template a before b, where both match a
// path: at their first segment of another kind, a's is of a kind gin
// tries first.
func before(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if ka, kb := segKind(as[i]), segKind(bs[i]); ka != kb {
			return ka < kb
		}
	}
	return false
}
