package benchmarks

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var listLibraries = flag.Bool("list-libraries", false,
	`TestLibraryNames prints, for run.sh, one line per benchmark: "libraries NAME LEVELS LIB..."`)

// selectable is a benchmark that run.sh runs one library at a time:
// Benchmark<name>, whose sub-benchmark names have `levels` levels, the last
// being the library.
type selectable struct {
	name   string
	levels int
	libs   []string
}

// selectables lists every benchmark of the package (TestEveryBenchmarkListed
// holds it to that); run.sh runs those its scenario list names.
func selectables() []selectable {
	var mem, hot, mw, rd []string
	for _, l := range memoryLibraries {
		mem = append(mem, l.name)
	}
	hot = append(hot, mem...)
	for _, l := range hotKeyLibraries {
		hot = append(hot, l.name)
	}
	for _, m := range middlewares {
		mw = append(mw, m.name)
	}
	for _, l := range redisLibraries {
		rd = append(rd, l.name)
	}
	return []selectable{
		{"HotKey", 2, hot},               // allow-sequential/floodgate
		{"ManyKeys", 2, mem},             // parallel/floodgate
		{"HeapPerKey", 1, mem},           // floodgate
		{"Middleware", 2, mw},            // allow-parallel/floodgate
		{"Redis", 2, rd},                 // allow-g8/floodgate
		{"RedisScale", 2, rd},            // hot-g8/floodgate
		{"ScaleKeys", 2, scaleLibraries}, // 1M/floodgate
		{"Accuracy", 2, mem},             // sim/floodgate
	}
}

// libraryName is what run.sh can put in `^name$` to select one library.
var libraryName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// TestLibraryNames checks that every library of every benchmark run.sh runs
// can be selected alone (a plain, unique name), and prints the list when
// run with -list-libraries.
func TestLibraryNames(t *testing.T) {
	for _, s := range selectables() {
		if len(s.libs) == 0 {
			t.Errorf("%s: no libraries", s.name)
		}
		seen := map[string]bool{}
		for _, l := range s.libs {
			if !libraryName.MatchString(l) {
				t.Errorf("%s: library name %q cannot be selected by -test.bench", s.name, l)
			}
			if seen[l] {
				t.Errorf("%s: library %q twice", s.name, l)
			}
			seen[l] = true
		}
		if *listLibraries {
			fmt.Printf("libraries %s %d %s\n", s.name, s.levels, strings.Join(s.libs, " "))
		}
	}
}

// interleavedInProcess are the benchmarks that interleave their libraries
// themselves, in one process, and so are run whole rather than one library
// at a time (run.sh does not run them).
var interleavedInProcess = []string{"RedisRounds"}

// TestEveryBenchmarkListed checks that every Benchmark function of the
// package is in selectables, so that run.sh can run it one library at a
// time, or interleaves its libraries itself (interleavedInProcess).
func TestEveryBenchmarkListed(t *testing.T) {
	listed := map[string]bool{}
	for _, s := range selectables() {
		listed["Benchmark"+s.name] = true
	}
	for _, name := range interleavedInProcess {
		listed["Benchmark"+name] = true
	}
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	found := 0
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Benchmark") {
				found++
				assert.True(t, listed[fn.Name.Name], "%s (%s) is not in selectables()", fn.Name.Name, name)
			}
		}
	}
	assert.Equal(t, len(listed), found, "selectables() names a benchmark that does not exist")
}
