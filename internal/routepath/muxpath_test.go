package routepath_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/stretchr/testify/assert"
)

func TestMuxPath(t *testing.T) {
	for in, want := range map[string]string{
		"/login":                   "/login",
		"/users/{id}":              "/users/{p1}",
		"/users/{id:[0-9]+}/posts": "/users/{p1}/posts",
		"/users/:id":               "/users/{p1}",
		"/users/:id/files/*path":   "/users/{p1}/files/{p2...}",
		"/static/*":                "/static/{p1...}",
		"/files/{p...}":            "/files/{p1...}",
		"/a/{$}":                   "/a/{$}",
		"/{x}/{x}":                 "/{p1}/{p2}",
		"/files/{name}.{ext}":      "/files/{p1}",
		"/a:b/c":                   "/a:b/c",
		"/*/x":                     "/{p1...}",
		"/*/:x":                    "/{p1...}",
		"api.example.com/u/:id":    "api.example.com/u/{p1}",
		"/users/{user-id}":         "/users/{p1}",
		"":                         "",
		"/users/{id":               "/users/{id",
		"/a/}{":                    "/a/}{",
		"/a/:":                     "/a/:",
		"/users/{id:[0-9]{2}}/x":   "/users/{p1}/x",
		"/a/{rid:^[0-9]{5,6}}":     "/a/{p1}",
		"/a/{x}}":                  "/a/{x}}",
	} {
		assert.Equal(t, want, routepath.MuxPath(in), in)
	}
}
