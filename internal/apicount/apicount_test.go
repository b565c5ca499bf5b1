package apicount_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/floodgate-go/floodgate/internal/apicount"
	"github.com/stretchr/testify/require"
)

// TestReport prints the exported identifiers of every package of the
// repository (or of the tree APICOUNT_ROOT names, e.g. an old checkout):
//
//	go test -run TestReport -v ./internal/apicount
//	APICOUNT_ROOT=/tmp/old go test -run TestReport -v ./internal/apicount
func TestReport(t *testing.T) {
	root := os.Getenv("APICOUNT_ROOT")
	if root == "" {
		root = filepath.Join("..", "..")
	}
	counts, err := apicount.Tree(root)
	require.NoError(t, err)
	// "names+methods" is the measure of issue 13 (223 in all, 97 in core
	// at 07f6623); "all" adds the exported fields.
	var sum apicount.Count
	t.Logf("%-20s %13s %5s %7s %6s %5s", "package", "names+methods", "all", "names", "methods", "fields")
	for _, c := range append(counts, apicount.Count{}) {
		if c.Package == "" {
			c, c.Dir = sum, "total"
		}
		t.Logf("%-20s %13d %5d %7d %6d %5d", c.Dir, c.Names+c.Methods, c.Total(), c.Names, c.Methods, c.Fields)
		sum.Names, sum.Methods, sum.Fields = sum.Names+c.Names, sum.Methods+c.Methods, sum.Fields+c.Fields
	}
}

// TestCount counts a package written for the purpose.
func TestCount(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	write("p/p.go", `package p
const A, b, C = 1, 2, 3
var V int
func F() {}
func f() {}
type T struct {
	X, y int
	Inner struct{ Z int; w int }
	io.Reader
	hidden
}
func (T) M()  {}
func (*T) m() {}
type hidden struct{ H int }
func (hidden) N() {}
type I interface{ Do(); do() }
type G[K any] struct{ K K }
func (g *G[K]) Get() K { return g.K }
`)
	write("p/p_test.go", "package p\nfunc TestX() {}\n")
	write("p/internal/q/q.go", "package q\nfunc Q() {}\n")
	write("cmd/main.go", "package main\nfunc Exported() {}\n")
	counts, err := apicount.Tree(root)
	require.NoError(t, err)
	require.Len(t, counts, 1)
	c := counts[0]
	// A, C, V, F, T, I, G; T.M, I.Do, G.Get; X, Inner, Z, Reader, K.
	require.Equal(t, apicount.Count{Dir: "p", Package: "p", Names: 7, Methods: 3, Fields: 5}, c)
}
