package routepath

import "strings"

// segmentsMax is how many leading segments a Segments finds: a Glob of more
// segments is matched by Glob.MatchEnd, scanning the path itself.
const segmentsMax = 32

// Segments is a request path with its leading segments found once, to match
// against many Globs (see [Glob.MatchSegments]): each then compares its text
// with theirs, never scanning the path again, so that the cost of a
// request matched against n Globs is one scan of its path and n
// comparisons of their text, not n scans of a segment a client made long.
type Segments struct {
	path string // the path as given
	rest string // the path without its leading slash
	n    int    // the segments found, segmentsMax at most
	// end[i] is where segment i ends in rest (at a slash, or at the end
	// of rest for the last).
	end [segmentsMax]int
	all bool // the n segments are every segment of the path
}

// NewSegments splits path (starting with a slash) for matching; a path that
// does not start with one matches no Glob.
func NewSegments(path string) Segments {
	sp := Segments{path: path}
	if path == "" || path[0] != '/' {
		return sp
	}
	sp.rest = path[1:]
	start := 0
	for sp.n < segmentsMax {
		i := strings.IndexByte(sp.rest[start:], '/')
		if i < 0 {
			sp.end[sp.n] = len(sp.rest)
			sp.n++
			sp.all = true
			break
		}
		sp.end[sp.n] = start + i
		sp.n++
		start += i + 1
	}
	return sp
}

// seg returns segment i of sp (i < sp.n), what follows it from its start
// to the end of the path, and whether another segment follows it.
func (sp *Segments) seg(i int) (s, from string, more bool) {
	start := 0
	if i > 0 {
		start = sp.end[i-1] + 1
	}
	return sp.rest[start:sp.end[i]], sp.rest[start:], i < sp.n-1 || !sp.all
}

// MatchSegments is [Glob.MatchEnd] for a path read by NewSegments and a host
// as a request's is canonical (lower case, without a trailing dot or
// port): what MatchEnd would answer for them.
func (g Glob) MatchSegments(host string, sp *Segments) (ok, emptyEnd bool) {
	if len(g.segs) == 0 || sp.n == 0 {
		return false, false
	}
	if len(g.segs) > sp.n && !sp.all {
		return g.MatchEnd(host, sp.path) // deeper than sp was read
	}
	if g.host != "" && host != g.host {
		return false, false
	}
	for i, seg := range g.segs {
		if i == sp.n {
			return false, false // the path ends before g does
		}
		s, from, more := sp.seg(i)
		if done, ok, empty := seg.step(s, from, more, i == len(g.segs)-1); done {
			return ok, empty
		}
	}
	return false, false
}
