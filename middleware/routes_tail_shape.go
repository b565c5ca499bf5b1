package middleware

import (
	"net/url"
	"slices"
	"strings"
)

// tailShape is what the routes ending in a gin or echo parameter, of n
// path segments each (see tailSegments), need of a path's first n-1
// segments: at each, one of their literals, or anything where one of them
// has a wildcard. A path failing it is matched by none of them, and need
// not be cut and matched by tailMux, which costs a pass over the cut
// for each length: a segment a client made long, before the last, no
// longer costs one for every length the table has.
type tailShape struct {
	n   int
	pos []tailPos
}

// tailPos is one segment of a tailShape: anything, or one of lits
// (unescaped, as ServeMux compares a path's segment with them).
type tailPos struct {
	any  bool
	lits []string
}

// addTailShape notes the ServeMux path (its host dropped, each wildcard
// "{…}") of a route of n segments ending in a parameter.
func (rt *Routes) addTailShape(path string, n int) {
	i := slices.IndexFunc(rt.tails, func(s tailShape) bool { return s.n == n })
	if i < 0 {
		rt.tails = append(rt.tails, tailShape{n: n, pos: make([]tailPos, n-1)})
		i = len(rt.tails) - 1
	}
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for k := range rt.tails[i].pos {
		p := &rt.tails[i].pos[k]
		seg := ""
		if k < len(segs) {
			seg = segs[k]
		}
		lit, err := url.PathUnescape(seg)
		switch {
		case strings.HasPrefix(seg, "{") || err != nil || k >= len(segs):
			p.any = true
		case !slices.Contains(p.lits, lit):
			p.lits = append(p.lits, lit)
		}
	}
}

// mayMatch reports whether the escaped path p's first s.n-1 segments may
// match a route of s: a segment holding an escape counts as one that may.
func (s tailShape) mayMatch(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	rest := p[1:]
	for _, pos := range s.pos {
		seg, after, more := strings.Cut(rest, "/")
		if !more {
			return false // no segment for the parameter
		}
		if !pos.any && !strings.Contains(seg, "%") && !slices.Contains(pos.lits, seg) {
			return false
		}
		rest = after
	}
	return true
}
