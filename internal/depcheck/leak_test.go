package depcheck_test

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// graph is a `go mod graph`: each node ("path@version", or the main
// module's path) to the nodes it requires.
type graph map[string][]string

func modGraph(t *testing.T, dir string) graph {
	t.Helper()
	g := graph{}
	for line := range strings.Lines(mustGo(t, dir, repo, "mod", "graph")) {
		from, to, ok := strings.Cut(strings.TrimSpace(line), " ")
		require.True(t, ok, "go mod graph line %q", line)
		g[from] = append(g[from], to)
	}
	return g
}

// nodePath is a graph node's module path.
func nodePath(node string) string {
	p, _, _ := strings.Cut(node, "@")
	return p
}

// reach returns the module paths reachable in g from the nodes whose path
// start accepts, never entering a node whose path stop accepts.
func (g graph) reach(start, stop func(path string) bool) map[string]bool {
	seen := map[string]bool{}
	var todo []string
	for n := range g {
		if start(nodePath(n)) {
			todo = append(todo, n)
		}
	}
	visited := map[string]bool{}
	for len(todo) > 0 {
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if visited[n] || stop(nodePath(n)) {
			continue
		}
		visited[n] = true
		seen[nodePath(n)] = true
		todo = append(todo, g[n]...)
	}
	return seen
}

// routerOnly returns the modules a router brings that the root module does
// not: the routers, and every module reachable from a router in an
// adapter module's graph but not from the root module without passing
// through a router.
func routerOnly(t *testing.T) map[string]bool {
	t.Helper()
	root := repoRoot(t)
	isRouter := func(p string) bool { return slices.Contains(routers, p) }
	never := func(string) bool { return false }
	kept := modGraph(t, root).reach(func(p string) bool { return p == rootPath }, isRouter)
	only := map[string]bool{}
	for _, r := range routers {
		only[r] = true
	}
	for _, d := range workspaceModules(t) {
		if !strings.HasPrefix(d, "adapters/") {
			continue
		}
		for p := range modGraph(t, filepath.Join(root, filepath.FromSlash(d))).reach(isRouter, never) {
			if !kept[p] {
				only[p] = true
			}
		}
	}
	// The computation must see the routers' trees, or the leak tests would
	// pass vacuously.
	for _, p := range []string{"github.com/bytedance/sonic", "github.com/gin-contrib/sse", "github.com/labstack/gommon"} {
		require.True(t, only[p], "%s missing from the router-only modules %v", p, sorted(only))
	}
	return only
}

func sorted(set map[string]bool) []string {
	var s []string
	for p := range set {
		s = append(s, p)
	}
	sort.Strings(s)
	return s
}

// buildUser builds the throwaway module in dir (-mod=mod adds the
// requirements its imports need, as go mod tidy would) and returns its
// `go list -m all`. go vet builds what go build does but the link (every
// dependency compiled, the program type-checked), and the link of a
// router's program was most of the cost of these tests.
func buildUser(t *testing.T, dir string) map[string]string {
	t.Helper()
	mustGo(t, dir, user, "vet", ".")
	return modules(t, dir, user)
}

// assertNoRouter checks that a user's module graph holds no router-only
// module, and logs the graph.
func assertNoRouter(t *testing.T, got map[string]string) {
	t.Helper()
	var lines []string
	for p, v := range got {
		lines = append(lines, strings.TrimSpace(p+" "+v))
	}
	sort.Strings(lines)
	t.Logf("go list -m all: %d modules\n%s", len(lines), strings.Join(lines, "\n"))
	for _, r := range routers {
		assertAbsent(t, got, r)
	}
	if t.Failed() {
		return // the router-only modules are computed from the root's graph without routers
	}
	for p := range routerOnly(t) {
		assertAbsent(t, got, p)
	}
}

// assertAbsent checks that module path is not in a module graph.
func assertAbsent(t *testing.T, got map[string]string, path string) {
	t.Helper()
	if v, ok := got[path]; ok {
		t.Errorf("the program's module graph holds %s %s", path, v)
	}
}

// A program importing only floodgate's net/http-level packages gets no
// router and nothing only a router brings in its module graph: with core,
// keyfunc, headers and middleware, and with login throttling and the Redis
// store too.
func TestNetHTTPProgramGetsNoRouter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		pkgs []string
	}{
		{"middleware", []string{"core", "keyfunc", "headers", "middleware"}},
		{"login and redis", []string{"core", "core/redisstore", "keyfunc", "headers", "middleware", "middleware/login"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var imports strings.Builder
			for _, p := range c.pkgs {
				imports.WriteString("\t_ \"" + rootPath + "/" + p + "\"\n")
			}
			dir := userModule(t, map[string]string{rootPath: zeroVersion}, []string{rootPath},
				"package main\n\nimport (\n"+imports.String()+")\n\nfunc main() {}\n")
			assertNoRouter(t, buildUser(t, dir))
		})
	}
}

// pinnedEcho is an echo release older than the one the echo adapter
// requires: a user's pin that adding floodgate once raised.
const pinnedEcho = "v4.12.0"

// A user pinned to an older echo who adds floodgate's middleware (not the
// echo adapter) keeps the pin.
func TestRouterPinKept(t *testing.T) {
	t.Parallel()
	const echo = "github.com/labstack/echo/v4"
	dir := userModule(t, map[string]string{rootPath: zeroVersion, echo: pinnedEcho}, []string{rootPath}, `package main

import (
	"github.com/labstack/echo/v4"

	_ "github.com/floodgate-go/floodgate/middleware"
)

func main() { _ = echo.New() }
`)
	got := buildUser(t, dir)
	assert.Equal(t, pinnedEcho, got[echo], "adding floodgate changed the user's echo")
	for _, r := range routers {
		if r != echo {
			assertAbsent(t, got, r)
		}
	}
}

// An adapter builds from a user's module without the repository's go.work:
// the user's go.mod requires floodgate and the ginlimit module (replaced by
// this checkout, as a published version would be fetched). The gin user
// gets gin's tree, and neither echo nor chi.
func TestAdapterWithoutWorkspace(t *testing.T) {
	t.Parallel()
	const gin = rootPath + "/adapters/ginlimit"
	dir := userModule(t, map[string]string{rootPath: zeroVersion, gin: zeroVersion}, []string{rootPath, gin}, `package main

import (
	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
)

func main() {
	e := gin.New()
	var m *middleware.Middleware // built from a core.Limiter by middleware.New
	if m != nil {
		e.Use(ginlimit.Limit(m, e))
	}
}
`)
	got := buildUser(t, dir)
	assert.Contains(t, got, "github.com/gin-gonic/gin")
	assertAbsent(t, got, "github.com/labstack/echo/v4")
	assertAbsent(t, got, "github.com/go-chi/chi/v5")
}
