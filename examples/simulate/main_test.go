package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs is where the generated files are committed, from this directory.
const docs = "../../docs/algorithms"

// generated returns the files run writes, by name.
func generated(t *testing.T) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, run(dir))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = b
	}
	return out
}

// The program writes a plot per shape and figures.md; every plot is
// well-formed XML whose root is an svg element.
func TestRunWritesPlotsAndFigures(t *testing.T) {
	t.Parallel()
	files := generated(t)
	want := []string{"figures.md"}
	for _, s := range shapes() {
		want = append(want, s.file+".svg")
	}
	got := make([]string, 0, len(files))
	for name := range files {
		got = append(got, name)
	}
	assert.ElementsMatch(t, want, got)
	for name, b := range files {
		if filepath.Ext(name) != ".svg" {
			continue
		}
		d := xml.NewDecoder(bytes.NewReader(b))
		root := ""
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			require.NoError(t, err, name)
			if se, ok := tok.(xml.StartElement); ok && root == "" {
				root = se.Name.Local
			}
		}
		assert.Equal(t, "svg", root, name)
	}
	assert.Contains(t, string(files["figures.md"]), "](steady.svg)")
}

// Two runs write the same bytes.
func TestRunIsDeterministic(t *testing.T) {
	t.Parallel()
	a, b := generated(t), generated(t)
	for name := range a {
		assert.True(t, bytes.Equal(a[name], b[name]), "%s differs between two runs", name)
	}
}

// The committed docs are what the program generates: run
// "go run ./examples/simulate -out docs/algorithms" after changing an
// algorithm or the program.
func TestCommittedDocsAreUpToDate(t *testing.T) {
	t.Parallel()
	files := generated(t)
	for name, b := range files {
		committed, err := os.ReadFile(filepath.Join(docs, name))
		if !assert.NoError(t, err, "docs/algorithms/%s is missing: run go run ./examples/simulate -out docs/algorithms", name) {
			continue
		}
		assert.True(t, bytes.Equal(b, committed), "docs/algorithms/%s is stale: run go run ./examples/simulate -out docs/algorithms", name)
	}
	svgs, err := filepath.Glob(filepath.Join(docs, "*.svg"))
	require.NoError(t, err)
	for _, p := range svgs {
		assert.Contains(t, files, filepath.Base(p), "docs/algorithms holds a plot the program no longer writes")
	}
}

// rowOf returns the row of p for the algorithm named name with
// configuration conf.
func rowOf(t *testing.T, p played, name, conf string) row {
	t.Helper()
	for _, r := range p.rows {
		if r.a.name == name && r.a.conf == conf {
			return r
		}
	}
	t.Fatalf("%s: no row %s (%s)", p.s.file, name, conf)
	return row{}
}

// admittedAt returns when the admitted requests of client c proceed, in
// order.
func admittedAt(r row, c int) []time.Duration {
	var ts []time.Duration
	for _, q := range r.reqs {
		if q.allowed && q.client == c {
			ts = append(ts, q.proceeds())
		}
	}
	slices.Sort(ts)
	return ts
}

// The headline figures hold the bounds the algorithms document.
func TestFiguresHoldTheDocumentedBounds(t *testing.T) {
	t.Parallel()
	results, err := simulate()
	require.NoError(t, err)
	byFile := map[string]played{}
	for _, p := range results {
		byFile[p.s.file] = p
	}
	for _, p := range results {
		s := p.s
		L := int(s.limit)
		per := rateText(s.limit, s.window)
		burst := per + ", burst " + fmt.Sprint(L)
		for _, r := range p.rows {
			// Retry-After is exact: a retry at it passes.
			assert.Zero(t, r.f.missedRetries, "%s, %s (%s): retries at Retry-After denied", s.file, r.a.name, r.a.conf)
		}
		for c := range s.clients {
			// GCRA and TokenBucket: at most burst + ⌈rate·T⌉ in any T.
			for _, name := range []string{"GCRA", "TokenBucket"} {
				ts := admittedAt(rowOf(t, p, name, burst), c)
				assert.LessOrEqual(t, mostWithin(ts, s.window), 2*L, "%s, %s: in any window", s.file, name)
				assert.LessOrEqual(t, mostWithin(ts, s.window/10), L+1, "%s, %s: in any tenth of a window", s.file, name)
			}
			// SlidingLog: at most L in any trailing window, with or
			// without counting rejected attempts.
			for _, conf := range []string{per, per + ", count rejected"} {
				assert.LessOrEqual(t, mostWithin(admittedAt(rowOf(t, p, "SlidingLog", conf), c), s.window), L, "%s, SlidingLog (%s)", s.file, conf)
			}
			// FixedWindow: at most L in each window of the epoch grid.
			counts := map[time.Duration]int{}
			for _, at := range admittedAt(rowOf(t, p, "FixedWindow", per+", aligned"), c) {
				counts[at/s.window]++
			}
			for w, n := range counts {
				assert.LessOrEqual(t, n, L, "%s, FixedWindow: window %d", s.file, w)
			}
			// LeakyBucket: admitted requests proceed a drain interval
			// apart.
			leaky := admittedAt(rowOf(t, p, "LeakyBucket", "drains "+per+", queue "+fmt.Sprint(L)), c)
			assert.LessOrEqual(t, mostWithin(leaky, s.window), L, "%s, LeakyBucket", s.file)
			assert.LessOrEqual(t, mostWithin(leaky, s.window/time.Duration(s.limit)), 1, "%s, LeakyBucket", s.file)
		}
	}

	// A fixed window admits 2L across a boundary; anchored at the
	// client's first request, the clock's boundary does not split it.
	b := byFile["boundary"]
	assert.Equal(t, 20, rowOf(t, b, "FixedWindow", "10/s, aligned").f.worstWindow)
	assert.Equal(t, 10, rowOf(t, b, "FixedWindow", "10/s, anchored").f.worstWindow)

	// Facing a client at a = 2 times the rate, a linear limiter admits
	// q·a/(a−1) = 20 (±1) before it throttles, Hybrid q = 10 and never
	// more than q in any window.
	a := byFile["abusive"]
	assert.InDelta(t, 20, rowOf(t, a, "GCRA", "10/s, burst 10").f.firstDenial, 1)
	hybrid := rowOf(t, a, "Hybrid", "10/s").f
	assert.Equal(t, 10, hybrid.firstDenial)
	assert.Equal(t, 10, hybrid.worstWindow)

	// A SlidingLog counting rejected attempts keeps a client that hammers
	// faster than its limit denied: 5 guesses in 24 h.
	l := byFile["login"]
	assert.Equal(t, 5, rowOf(t, l, "SlidingLog", "5/h, count rejected").f.clients[0].admitted)
}
