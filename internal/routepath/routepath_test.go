package routepath_test

import (
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
