package routepath_test

import (
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/stretchr/testify/assert"
)

func TestMethod(t *testing.T) {
	for in, want := range map[string]string{"GET": "GET", "get": "GET", "hEaD": "HEAD", "": "", "M-SEARCH": "M-SEARCH"} {
		assert.Equal(t, want, routepath.Method(in), in)
	}
	assert.Zero(t, testing.AllocsPerRun(10, func() { _ = routepath.Method("POST") }))
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"": "/", "/": "/", "//": "/", "/x": "/x", "//x": "/x", "/x/": "/x/", "/x//": "/x/",
		"/a/../x": "/x", "/a/./x/.": "/a/x/", "x": "/x", "/..": "/", "/a/..": "/",
	} {
		assert.Equal(t, want, routepath.Clean(in), in)
	}
}

func TestVariants(t *testing.T) {
	assert.Equal(t, [4]string{"", "/Login/", "/login", "/login/"}, routepath.Variants("/Login"))
	assert.Equal(t, [4]string{"/x", "/x/", "", ""}, routepath.Variants("//x"))
	assert.Equal(t, [4]string{"", "", "", ""}, routepath.Variants("/"))
}

// cleanBySegments is Clean as it was written first, segment by segment:
// the model Clean is checked against.
func cleanBySegments(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	segs := strings.Split(p[1:], "/")
	out := make([]string, 0, len(segs))
	for _, s := range segs {
		switch s {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
		}
	}
	c := "/" + strings.Join(out, "/")
	if last := segs[len(segs)-1]; (last == "" || last == "." || last == "..") && c != "/" {
		c += "/"
	}
	return c
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "/", "//", "x", "/a/../x", "/a/./x/.", "/..", "/a/..", "a/b/", "/.../", "/./", "/a//b", ".", "..", "/a/b/../../.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if got, want := routepath.Clean(p), cleanBySegments(p); got != want {
			t.Fatalf("Clean(%q) = %q, want %q", p, got, want)
		}
	})
}

// A request's path of many segments was cleaned into a slice of them: 16
// bytes a segment and a join, for each of the several times a request is
// matched (see middleware.TestAttackLongPathSelectCost). Clean now makes
// a buffer and a string of the path's length, nothing for a clean path.
func TestAttackCleanAllocatesPerSegment(t *testing.T) {
	p := "/admin" + strings.Repeat("/a", 1000) + "/.."
	n := testing.AllocsPerRun(10, func() { _ = routepath.Clean(p) })
	assert.LessOrEqual(t, n, 2.0, "a buffer and its string")
	clean := "/admin" + strings.Repeat("/a", 1000)
	assert.Zero(t, testing.AllocsPerRun(10, func() { _ = routepath.Clean(clean) }))
}

// Split takes the method as ServeMux does: the first word, when it holds
// no '/', and the rest at its byte.
func TestSplit(t *testing.T) {
	for p, want := range map[string][3]any{
		"GET /x":              {"GET", "/x", 4},
		"  get\t /x":          {"get", "/x", 7},
		"/x":                  {"", "/x", 0},
		"api.example.com/x y": {"", "api.example.com/x y", 0},
		"/a b":                {"", "/a b", 0},
		"POST":                {"", "POST", 0},
	} {
		m, rest, at := routepath.Split(p)
		assert.Equal(t, want, [3]any{m, rest, at}, p)
	}
}
