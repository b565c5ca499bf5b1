package echolimit_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	echomw "github.com/labstack/echo/v4/middleware"
	"github.com/stretchr/testify/assert"
)

// TestAttackRglob38bStrippedSlashRoute: echo with
// Pre(RemoveTrailingSlash()) serves "/v2/items/" by "/v:version/items"
// (1 an hour). The limiter around echo matched the path as it came to
// "/v:version/items/" (1000), which "outranked" the stripped path's
// route, left uncharged: 3 of 3. Now 1 of 3 around echo, as in e.Use.
// (In e.Pre before the rewriting Pre middleware, Limit finds the route
// of the path it sees, a documented limitation of e.Pre.)
func TestAttackRglob38bStrippedSlashRoute(t *testing.T) {
	for _, mount := range []string{"around", "use"} {
		m := selectOn(t, quota{"GET /v:version/items/", 1000}, quota{"GET /v:version/items", 1})
		hits := map[string]int{}
		e := echo.New()
		e.Pre(echomw.RemoveTrailingSlash())
		if mount == "use" {
			e.Use(echolimit.Limit(m))
		}
		e.GET("/v:version/items/", func(echo.Context) error { hits["slash"]++; return nil })
		e.GET("/v:version/items", func(echo.Context) error { hits["items"]++; return nil })
		h := m.Handler(e)
		if mount != "around" {
			h = e
		}
		assert.Equal(t, []int{200, 429, 429}, thrice(h, "GET", "/v2/items/"), mount)
		assert.Equal(t, map[string]int{"items": 1}, hits, mount)
	}
}

// TestAttackRglob38bEscapedColon: echo serves "/v1/books:batchGet" by
// "/v1/books\:batchGet" (an escaped colon, a literal one). The route
// written as echo registers it (1 an hour) was read, before echo routes,
// as text "books\" then a parameter: 3 of 3 around echo (e.Pre and e.Use
// find it by its template). Now 1 of 3 each way.
func TestAttackRglob38bEscapedColon(t *testing.T) {
	for _, mount := range []string{"around", "pre", "use"} {
		m := selectOn(t, quota{`POST /v1/books\:batchGet`, 1})
		hits := 0
		e := echo.New()
		switch mount {
		case "pre":
			e.Pre(echolimit.Limit(m))
		case "use":
			e.Use(echolimit.Limit(m))
		}
		e.POST(`/v1/books\:batchGet`, func(echo.Context) error { hits++; return nil })
		h := m.Handler(e)
		if mount != "around" {
			h = e
		}
		assert.Equal(t, []int{200, 429, 429}, thrice(h, "POST", "/v1/books:batchGet"), mount)
		assert.Equal(t, 1, hits, mount)
	}
}

// TestAttackRglob38bLeafParamAndEmptyEnd: echo serves "/v1/a/b" by
// "/v:version" (1 an hour), its parameter a leaf taking the rest of the
// path, and "/ab" by "/a:y" (1 an hour) beside "/ab:x" (1000), an empty
// parameter at the end of a path taken by neither. The limiter around
// echo charged the default alone, and "/ab:x" alone: 3 of 3 each. Now 1
// of 3, around echo and in e.Use.
func TestAttackRglob38bLeafParamAndEmptyEnd(t *testing.T) {
	for _, c := range []struct {
		routes  []quota
		handler string
		path    string
	}{
		{[]quota{{"GET /v:version", 1}}, "/v:version", "/v1/a/b"},
		{[]quota{{"GET /ab:x", 1000}, {"GET /a:y", 1}}, "/a:y", "/ab"},
	} {
		for _, mount := range []string{"around", "use"} {
			m := selectOn(t, c.routes...)
			hits := map[string]int{}
			e := echo.New()
			if mount == "use" {
				e.Use(echolimit.Limit(m))
			}
			for _, q := range c.routes {
				tmpl := q.pattern[len("GET "):]
				e.GET(tmpl, func(echo.Context) error { hits[tmpl]++; return nil })
			}
			h := m.Handler(e)
			if mount != "around" {
				h = e
			}
			assert.Equal(t, []int{200, 429, 429}, thrice(h, "GET", c.path), "%s, %s", c.path, mount)
			assert.Equal(t, map[string]int{c.handler: 1}, hits, "%s, %s", c.path, mount)
		}
	}
}
