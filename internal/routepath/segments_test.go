package routepath

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// segmentsTemplates and segmentsPaths are matched against each other by
// TestMatchSegmentsAgrees and FuzzMatchSegmentsAgrees.
var (
	segmentsTemplates = []string{
		"/v:version/x", "/static*", "/v:version/", "/v:version", "/a/:", "/ab:x", "/a/:id/v:version/*rest",
		"/f/{name}.png", "/g/{name:.+}.png", `/v1/books\:batchGet`, "api.example.com/v:v/x", "/v{a}/{x}-{y}",
		"/" + strings.Repeat("a/", 40) + "v:x",
	}
	segmentsPaths = []string{
		"/v2/x", "/v2/x/", "/v2/x/y", "/v", "/", "", "x", "/static", "/static/a/b", "/v1/a/b", "/a/x/y", "/ab", "/abc",
		"/a/1/v2/q/r", "/f/x.png", "/g/a/b.png", "/v1/books:batchGet", "/v1/xy", "/v1/x-y",
		"/" + strings.Repeat("a/", 40) + "v1", "/" + strings.Repeat("a/", 40) + "v1/z", strings.Repeat("/a", 33),
	}
)

// TestMatchSegmentsAgrees: MatchSegments answers as MatchEnd, for paths
// of fewer and more segments than Segments reads.
func TestMatchSegmentsAgrees(t *testing.T) {
	for _, tmpl := range segmentsTemplates {
		g, ok := NewGlob(tmpl)
		if !ok {
			continue
		}
		for _, p := range segmentsPaths {
			for _, host := range []string{"", "api.example.com", "other.example"} {
				sp := NewSegments(p)
				m, e := g.MatchEnd(host, p)
				sm, se := g.MatchSegments(host, &sp)
				assert.Equal(t, [2]bool{m, e}, [2]bool{sm, se}, "%s %q %q", tmpl, host, p)
			}
		}
	}
}

// FuzzMatchSegmentsAgrees: MatchSegments answers as MatchEnd, whatever
// the template and path.
func FuzzMatchSegmentsAgrees(f *testing.F) {
	for _, tmpl := range segmentsTemplates {
		for _, p := range segmentsPaths {
			f.Add(tmpl, p)
		}
	}
	f.Fuzz(func(t *testing.T, tmpl, p string) {
		g, ok := NewGlob(tmpl)
		if !ok {
			return
		}
		sp := NewSegments(p)
		m, e := g.MatchEnd("", p)
		sm, se := g.MatchSegments("", &sp)
		if m != sm || e != se {
			t.Fatalf("%q %q: MatchEnd %v %v, MatchSegments %v %v", tmpl, p, m, e, sm, se)
		}
	})
}
