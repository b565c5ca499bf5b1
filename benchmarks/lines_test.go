package benchmarks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// lineTasks are issue 13's three tasks, each written with floodgate (an
// example program of this repository) and with its peers (lines/, build-
// ignored: this module has neither chi nor gin; they were compiled and run
// against the versions their comments name).
var lineTasks = []struct {
	task      string
	floodgate string
	peers     map[string]string
}{
	{"per-IP limiting on chi", "../examples/chi/perip/main.go",
		map[string]string{"httprate": "lines/chi_httprate.go", "ulule": "lines/chi_ulule.go"}},
	{"gin API keys or IP, on Redis", "../examples/gin/apikeys/main.go",
		map[string]string{"ulule": "lines/gin_ulule.go"}},
	{"echo login, failures only", "../examples/echo/login/main.go",
		map[string]string{"httprate": "lines/echo_httprate.go", "ulule": "lines/echo_ulule.go"}},
}

// TestLineCounts counts each program's lines (neither blank nor comment,
// nor the package clause or imports) and requires floodgate's to be no
// longer than the shortest peer's. go test -v prints the table.
func TestLineCounts(t *testing.T) {
	for _, task := range lineTasks {
		fg := programLines(t, task.floodgate)
		shortest := -1
		for name, path := range task.peers {
			n := programLines(t, path)
			t.Logf("%-30s %-9s %3d", task.task, name, n)
			if shortest < 0 || n < shortest {
				shortest = n
			}
		}
		t.Logf("%-30s %-9s %3d", task.task, "floodgate", fg)
		require.LessOrEqual(t, fg, shortest, "%s: floodgate is longer than the shortest peer", task.task)
	}
}

// programLines returns the number of lines of the Go file at path that
// hold a token after its package clause and imports.
func programLines(t *testing.T, path string) int {
	t.Helper()
	src, err := os.ReadFile(filepath.FromSlash(path))
	require.NoError(t, err)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	require.NoError(t, err)
	lines := map[int]bool{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		ast.Inspect(d, func(n ast.Node) bool {
			if _, ok := n.(*ast.CommentGroup); ok {
				return false
			}
			if n != nil {
				lines[fset.Position(n.Pos()).Line] = true
				lines[fset.Position(n.End()).Line] = true
			}
			return true
		})
	}
	return len(lines)
}
