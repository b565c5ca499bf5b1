package routepath

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGlobMatchesAsGinAndEchoServe(t *testing.T) {
	cases := []struct {
		pattern   string
		match, no []string
	}{
		{"/v:version/x", []string{"/v2/x", "/v/x", "/v:version/x", "/vab/x"}, []string{"/w2/x", "/v2/x/", "/v2", "/v2/x/y", "v2/x", ""}},
		{"/static*", []string{"/static", "/staticfoo", "/static/a/b"}, []string{"/stati", "/x/static", "/"}},
		{"/files/pre_:name/y", []string{"/files/pre_a/y", "/files/pre_/y", "/files/pre_a.b/y"}, []string{"/files/pre/y", "/files/pre_a", "/files/pre_a/z"}},
		{"/v:version/", []string{"/v2/", "/v2/a/b"}, []string{"/v2", "/x/"}},
		{"/v:version/{$}", []string{"/v2/"}, []string{"/v2/a", "/v2"}},
		{"/a/:id/v:version/*rest", []string{"/a/1/v2/q/r", "/a//v/"}, []string{"/a/1/w2/q", "/b/1/v2/q"}},
		{"/{a}/v:x", []string{"/q/v1"}, []string{"/q/w1", "/v1"}},
		// echo's parameter ending a route takes the rest of the path
		// when no route goes below it (a leaf): "/a/x/y" too.
		{"/a/:", []string{"/a/x", "/a/:", "/a/x/y"}, []string{"/a", "/b/x"}},
		{"/v:version", []string{"/v1", "/v1/a/b"}, []string{"/w1/a"}},
		{"/v1/books:batchGet", []string{"/v1/books:batchGet", "/v1/books:list", "/v1/booksX"}, []string{"/v1/book", "/v1/users"}},
	}
	for _, c := range cases {
		g, ok := NewGlob(c.pattern)
		require.True(t, ok, c.pattern)
		for _, p := range c.match {
			assert.True(t, g.Match("", p), "%s should match %q", c.pattern, p)
		}
		for _, p := range c.no {
			assert.False(t, g.Match("", p), "%s should not match %q", c.pattern, p)
		}
	}
}

// chi's braces beside text: MuxPath widens the segment to a wildcard,
// Glob keeps the text.
func TestGlobBracesBesideText(t *testing.T) {
	for _, c := range []struct {
		pattern   string
		match, no []string
	}{
		{"/v{version}/x", []string{"/v2/x", "/v/x"}, []string{"/abc/x", "/v2/y"}},
		{"/login{$}", []string{"/login", "/loginx"}, []string{"/admin", "/login/x"}},
		// chi needs the text between braces ("/f/abc" is not served by
		// "/f/{name}.{ext}": see chilimit's
		// TestAttackRglob38bChiBracesNotOverflowing).
		{"/f/{name}.{ext}", []string{"/f/a.txt", "/f/a.b.c"}, []string{"/g/a.txt", "/f/a/b", "/f/abc"}},
		{"/img/{w}x{h}.png", []string{"/img/10x20.png", "/img/x.png"}, []string{"/img/cat.png", "/img/10x20.jpg"}},
		{"/f/img-{id:[0-9]{2}}.png", []string{"/f/img-12.png"}, []string{"/f/im.png"}},
	} {
		g, ok := NewGlob(c.pattern)
		require.True(t, ok, c.pattern)
		assert.True(t, g.Widened(), c.pattern)
		for _, p := range c.match {
			assert.True(t, g.Match("", p), "%s should match %q", c.pattern, p)
		}
		for _, p := range c.no {
			assert.False(t, g.Match("", p), "%s should not match %q", c.pattern, p)
		}
	}
	g, ok := NewGlob("/v:version/x")
	require.True(t, ok)
	assert.False(t, g.Widened(), "a literal to ServeMux, not widened")
}

func TestGlobHost(t *testing.T) {
	g, ok := NewGlob("api.example.com/v:version/x")
	require.True(t, ok)
	assert.True(t, g.Match("API.Example.com.", "/v2/x"))
	assert.True(t, g.Match("api.example.com", "/v2/x"))
	assert.False(t, g.Match("other.example.com", "/v2/x"))
	assert.False(t, g.Match("", "/v2/x"))
}

func TestGlobOnlyForTextBeforeAParameter(t *testing.T) {
	for _, p := range []string{"/users/:id", "/users/{id}", "/v1/x", "/static/*", "/static/*filepath", "/files/{p...}", "/{id:[0-9]{2}}", "/", "/x/{rest...}", "api.example.com", "/a/{$}"} {
		_, ok := NewGlob(p)
		assert.False(t, ok, p)
	}
	var zero Glob
	assert.False(t, zero.Match("", "/"))
}

func TestGlobOutranks(t *testing.T) {
	glob := func(p string) Glob {
		g, ok := NewGlob(p)
		require.True(t, ok, p)
		return g
	}
	for _, c := range [][2]string{
		{"/va:b/x", "/v:version/x"},             // echo: the static "a" before the parameter
		{"/static*", "/st:x"},                   // the longer text
		{"/v:x/a", "/v:x/:y"},                   // a literal before a parameter
		{"/v:x/:y", "/v:x/*"},                   // a parameter before a catch-all
		{"/api/v:version/x", "/api/v:version/"}, // a literal before a subtree
	} {
		assert.True(t, glob(c[0]).Outranks(glob(c[1])), "%s over %s", c[0], c[1])
		assert.False(t, glob(c[1]).Outranks(glob(c[0])), "%s over %s", c[1], c[0])
	}
	assert.False(t, glob("/v:x/a").Outranks(glob("/v:x/a")))
}

// FuzzGlobMatchesWhatItsTemplateServes fills each parameter of a template
// with v, as a router's request would, and requires the template's Glob
// to match the path: Glob never matches less than the routers. Any
// pattern, host and path are also matched without a panic.
func FuzzGlobMatchesWhatItsTemplateServes(f *testing.F) {
	for _, s := range [][3]string{
		{"/v:version/x", "2", "/v2/x"}, {"/static*", "/a/b", "/x"}, {"/v{version}/x", "", "/"},
		{"api.example.com/a/:id/v:v/*rest", "q", "/a"}, {"/f/{name}.{ext}/", "a.b", "//"},
		{"/login{$}", "x", "/login"}, {"/{id:[0-9]{2}}/p:x/{$}", "12", "/12/p/"},
		{"/f/img-{id}.png", "1", "/f/img-1.png"}, {"/g/{name:.+}.png", "a/b", "/g/a/b.png"}, {"/h/x{a", "", "/h/x{a"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, pattern, v, path string) {
		g, ok := NewGlob(pattern)
		_ = g.Match(v, path)
		_ = g.Same(g, v)
		if !ok || mixedSyntax(pattern) {
			return // no router reads chi's braces and gin's or echo's syntax together
		}
		host, filled := "", fillTemplate(pattern, v)
		if i := strings.IndexByte(pattern, '/'); i > 0 {
			host = pattern[:i]
		}
		if !g.Match(host, filled) {
			t.Fatalf("NewGlob(%q) does not match %q, the template filled with %q", pattern, filled, v)
		}
	})
}

// fillTemplate returns the path of pattern (its host dropped) with every
// parameter replaced by v (without its slashes, but for a catch-all),
// as gin, echo and chi read the template.
func fillTemplate(pattern, v string) string {
	path := pattern[strings.IndexByte(pattern, '/'):]
	one := strings.ReplaceAll(v, "/", "")
	var b strings.Builder
	for _, s := range strings.Split(path[1:], "/") {
		b.WriteByte('/')
		i := wildcard(s) // gin's and echo's "\\:" is a colon, no parameter
		switch {
		case s == "{$}":
		case i < 0 || i > 0 && s[i] == '{' && !param(s) || i == 0 && s[0] == '{' && !param(s):
			b.WriteString(colons(s))
		case s[i] == '*' || strings.Contains(s, "...}"):
			b.WriteString(colons(s[:i]) + v)
			return b.String()
		case s[i] == '{':
			// chi matches the text between and after its braces too.
			b.WriteString(fillBraces(s, one)) // chi's: "\\:" is no escape there
		default:
			b.WriteString(colons(s[:i]) + one)
		}
	}
	return b.String()
}

// colons returns the text t with gin's and echo's escaped colons ("\\:")
// colons.
func colons(t string) string { return strings.ReplaceAll(t, `\:`, ":") }

// mixedSyntax reports whether pattern holds chi's braces and gin's or
// echo's syntax (":", "*", an escape) in one segment, or braces in its
// host, which no router reads.
func mixedSyntax(pattern string) bool {
	i := strings.IndexByte(pattern, '/')
	if strings.ContainsAny(pattern[:i], "{}") {
		return true
	}
	for _, s := range strings.Split(pattern[i:], "/") {
		if strings.ContainsAny(s, "{}") && strings.ContainsAny(fillBraces(s, ""), `:*\`) {
			return true
		}
	}
	return false
}

// fillBraces returns the segment s with each of chi's parameters, in
// braces (nested ones counted), replaced by v and its text kept.
func fillBraces(s, v string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '{':
			if depth == 0 {
				b.WriteString(v)
			}
			depth++
		case s[i] == '}' && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// TestAttackRglob38GlobChiSuffixAndRegexp: chi matches the text after a
// parameter in a segment (".png" in "{name}.png"), which Glob dropped, so
// that "/f/{name}.jpg" matched "/f/x.png" as well and the two read as one
// shape; and a regexp parameter followed by text may take slashes
// ("{name:.+}.png" serves "/g/a/b.png"), which Glob matched in one segment.
func TestAttackRglob38GlobChiSuffixAndRegexp(t *testing.T) {
	for _, c := range []struct {
		pattern   string
		match, no []string
	}{
		{"/f/{name}.jpg", []string{"/f/x.jpg", "/f/.jpg"}, []string{"/f/x.png", "/f/jpg"}},
		{"/f/img-{id}.png", []string{"/f/img-1.png"}, []string{"/f/img-.pn", "/f/img-1.jpg"}},
		{"/g/{name:.+}.png", []string{"/g/a/b.png", "/g/a.png"}, []string{"/h/a.png"}},
		{"/g/{name:[^.]+}.png/x", []string{"/g/a/b.png/x", "/g/a/b.png/y"}, []string{"/h/a.png/x"}},
		{"/g/{id:[0-9]+}.png", []string{"/g/1.png"}, []string{"/g/1/2.png"}},
		{"/g/x{id:[0-9]{2}}", []string{"/g/x12"}, []string{"/g/x1/2"}},
		{"/g/{a}x*", []string{"/g/ax/b/c"}, []string{"/h/ax"}},
	} {
		g, ok := NewGlob(c.pattern)
		require.True(t, ok, c.pattern)
		for _, p := range c.match {
			assert.True(t, g.Match("", p), "%s should match %q", c.pattern, p)
		}
		for _, p := range c.no {
			assert.False(t, g.Match("", p), "%s should not match %q", c.pattern, p)
		}
	}
	png, _ := NewGlob("/f/{name}.png")
	jpg, _ := NewGlob("/f/{file}.jpg")
	assert.False(t, png.Same(jpg, ""), "another suffix is another shape")
	other, _ := NewGlob("/f/{file}.png")
	assert.True(t, png.Same(other, ""))
}

// TestGlobBelow: a template ending in a slash matches the paths below it
// generously; Below tells them from the slash itself, which routers serve
// by it.
func TestGlobBelow(t *testing.T) {
	g, ok := NewGlob("/v:version/")
	require.True(t, ok)
	assert.False(t, g.Below("", "/v1/"), "the slash itself")
	assert.True(t, g.Below("", "/v1/items"))
	assert.True(t, g.Below("", "/v1/items/"))
	assert.False(t, g.Below("", "/w1/items"), "not matched")
	g, ok = NewGlob("/v:version/items")
	require.True(t, ok)
	assert.False(t, g.Below("", "/v1/items"), "no slash at the end")
	g, ok = NewGlob("/static*")
	require.True(t, ok)
	assert.False(t, g.Below("", "/static/a/b"), "a catch-all")
}

// TestGlobEscapedColon: gin's and echo's "\:" is a literal colon, before
// a parameter or not, and a segment holding one is a Glob: ServeMux reads
// it as a backslash.
func TestGlobEscapedColon(t *testing.T) {
	for _, c := range []struct {
		template, path string
		match          bool
	}{
		{`/v1/books\:batchGet`, "/v1/books:batchGet", true},
		{`/v1/books\:batchGet`, "/v1/books:other", false},
		{`/v1/\:x`, "/v1/:x", true},
		{`/v1/a\:b:id`, "/v1/a:b7", true},
		{`/v1/a\:b:id`, "/v1/a7", false},
	} {
		g, ok := NewGlob(c.template)
		require.True(t, ok, c.template)
		assert.Equal(t, c.match, g.Match("", c.path), "%s %s", c.template, c.path)
	}
	u, ok := Unescape(`/v1/books\:batchGet`)
	assert.True(t, ok)
	assert.Equal(t, "/v1/books:batchGet", u)
	_, ok = Unescape("/v1/books:batchGet")
	assert.False(t, ok)
}
