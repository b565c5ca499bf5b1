package core

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const hhT0 = int64(1_767_322_800) * int64(time.Second) // a minute boundary

func newTestHH(t *testing.T, o TopKeysOptions) *heavyHitters {
	t.Helper()
	h, err := newHeavyHitters(o)
	require.NoError(t, err)
	return h
}

// checkSketch checks Space-Saving's guarantees against exact counts, and
// the sketch's bounds.
func checkSketch(t *testing.T, h *heavyHitters, exact map[string]int64, n int64) {
	t.Helper()
	top := h.top(-1, hhT0)
	require.Equal(t, n, top.Takes)
	k := int64(h.opts.Capacity)
	got := map[string]KeyCount{}
	for _, kc := range top.Keys {
		got[kc.Key] = kc
		f := exact[kc.Key]
		assert.GreaterOrEqual(t, kc.Count, f, "%q: a count is never below the true count", kc.Key)
		assert.LessOrEqual(t, kc.Count-kc.Error, f, "%q: the error bounds the overstatement", kc.Key)
		assert.LessOrEqual(t, kc.Error, n/k, "%q: error at most N/k", kc.Key)
		assert.Equal(t, kc.Count-kc.Error, kc.Admitted+kc.Denied, "%q", kc.Key)
	}
	for key, f := range exact {
		if f > n/k {
			assert.Contains(t, got, key, "a key of more than N/k takes (%d > %d) is kept", f, n/k)
		}
	}
	for i := range h.windows {
		w := &h.windows[i]
		assert.LessOrEqual(t, len(w.heap), h.opts.Capacity)
		assert.Equal(t, len(w.heap), len(w.index))
	}
}

// TestHeavyHitterSurvivesAFlood: a flood of distinct keys, before, after
// or around a heavy key's takes, never evicts a key of more than N/k
// takes (N the interval's takes, k the capacity), nor makes its count
// understate it.
func TestHeavyHitterSurvivesAFlood(t *testing.T) {
	const k, heavy, flood = 16, 100, 1500 // N/k = 100 at 1,600 takes: heavy must exceed it
	for _, order := range []string{"heavy-first", "flood-first", "interleaved", "heavy-last-one-each", "two-heavies"} {
		t.Run(order, func(t *testing.T) {
			h := newTestHH(t, TopKeysOptions{Capacity: k, Span: time.Minute, Intervals: 1})
			exact := map[string]int64{}
			var n int64
			add := func(key string, admitted bool) {
				h.add(key, hhT0, admitted)
				exact[key]++
				n++
			}
			floodKey := func(i int) string { return fmt.Sprintf("attacker-%d", i) }
			switch order {
			case "heavy-first":
				for i := range heavy + 1 {
					add("victim", i%2 == 0)
				}
				for i := range flood {
					add(floodKey(i), false)
				}
			case "flood-first":
				for i := range flood {
					add(floodKey(i), false)
				}
				for i := range heavy + 1 {
					add("victim", i%2 == 0)
				}
			case "interleaved":
				for i := range flood {
					add(floodKey(i), false)
					if i%14 == 0 {
						add("victim", true)
					}
				}
			case "heavy-last-one-each":
				// The flood repeats each key just enough to sit above
				// the heavy key's count in the summary for a while.
				for i := range flood / 3 {
					for range 3 {
						add(floodKey(i), false)
					}
					if i%4 == 0 {
						add("victim", true)
					}
				}
			case "two-heavies":
				for i := range flood {
					add(floodKey(i), false)
					if i%12 == 0 {
						add("victim", true)
						add("other", false)
					}
				}
			}
			checkSketch(t, h, exact, n)
			require.Greater(t, exact["victim"], n/k, "the test's heavy key is heavy")
		})
	}
}

// TestHeavyHitterRandomStreams: Space-Saving's guarantees on skewed random
// streams, spread over several intervals.
func TestHeavyHitterRandomStreams(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		h := newTestHH(t, TopKeysOptions{Capacity: 8 + int(seed), Span: time.Minute, Intervals: 1})
		exact := map[string]int64{}
		zipf := rand.NewZipf(rng, 1.3, 1, 500)
		n := int64(2000 + rng.IntN(3000))
		for range n {
			key := fmt.Sprint(zipf.Uint64())
			h.add(key, hhT0, rng.IntN(2) == 0)
			exact[key]++
		}
		checkSketch(t, h, exact, n)
	}
}

// TestHeavyHitterWindows: intervals rotate; the span merges them; a clock
// stepping back before every kept interval is ignored.
func TestHeavyHitterWindows(t *testing.T) {
	h := newTestHH(t, TopKeysOptions{Capacity: 4, Span: 3 * time.Minute, Intervals: 3})
	min := int64(time.Minute)
	h.add("a", hhT0, true)
	h.add("a", hhT0+min, false)
	h.add("b", hhT0+2*min, true)
	top := h.top(10, hhT0+2*min)
	assert.Equal(t, int64(3), top.Takes)
	assert.Equal(t, time.Unix(0, hhT0), top.From)
	assert.Equal(t, time.Unix(0, hhT0+3*min), top.To)
	assert.Equal(t, []KeyCount{{Key: "a", Count: 2, Admitted: 1, Denied: 1}, {Key: "b", Count: 1, Admitted: 1}}, top.Keys)

	h.add("c", hhT0+3*min, true) // reuses the first interval's place
	top = h.top(10, hhT0+3*min)
	assert.Equal(t, []KeyCount{{Key: "a", Count: 1, Denied: 1}, {Key: "b", Count: 1, Admitted: 1}, {Key: "c", Count: 1, Admitted: 1}}, top.Keys)
	h.add("old", hhT0, true) // before every interval kept
	assert.Equal(t, int64(3), h.top(10, hhT0+3*min).Takes)
	assert.Empty(t, h.top(10, hhT0+10*min).Keys, "nothing in the last span")
	assert.Len(t, h.top(1, hhT0+3*min).Keys, 1)
}

func TestHeavyHitterLongKeys(t *testing.T) {
	h := newTestHH(t, TopKeysOptions{Capacity: 4, MaxKeyBytes: 8})
	long := strings.Repeat("x", 1<<20)
	h.add(long, hhT0, true)
	h.add(long+"y", hhT0, false)
	top := h.top(10, hhT0)
	require.Equal(t, []KeyCount{{Key: "xxxxxxxx", Truncated: true, Count: 2, Admitted: 1, Denied: 1}}, top.Keys)
	h.add("xxxxxxxx", hhT0, true)
	h.add("xxxxxxxx", hhT0, true)
	for range 20 { // whatever the map's order
		assert.Equal(t, []KeyCount{
			{Key: "xxxxxxxx", Count: 2, Admitted: 2},
			{Key: "xxxxxxxx", Truncated: true, Count: 2, Admitted: 1, Denied: 1},
		}, h.top(10, hhT0).Keys, "a key of MaxKeyBytes is told from the truncated ones, and comes first on a tie")
	}
	if testing.CoverMode() == "" {
		h := newTestHH(t, TopKeysOptions{Capacity: 4}) // MaxKeyBytes 128: no room on the stack for a copy
		h.add(long, hhT0, true)
		assert.Zero(t, testing.AllocsPerRun(100, func() { h.add(long, hhT0, true) }),
			"a long key already in the sketch is counted without a copy")
	}
}

// BenchmarkTopKeysMemory fills a sketch of the default options, every
// interval, with distinct keys of MaxKeyBytes bytes, and reports the heap
// it holds ("B/sketch": the figure WithTopKeys' doc gives).
func BenchmarkTopKeysMemory(b *testing.B) {
	var held uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		h, err := newHeavyHitters(TopKeysOptions{})
		if err != nil {
			b.Fatal(err)
		}
		key := []byte(strings.Repeat("k", DefaultTopMaxKeyBytes))
		for w := range int64(DefaultTopIntervals) {
			for i := range DefaultTopCapacity {
				copy(key, fmt.Sprintf("%08d", i))
				h.add(string(key), hhT0+w*h.width, true)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(h)
	}
	b.ReportMetric(float64(held), "B/sketch")
}

func TestTopKeysOptions(t *testing.T) {
	for _, o := range []TopKeysOptions{
		{Capacity: -1}, {Capacity: 1<<16 + 1}, {Intervals: -1}, {Intervals: 61}, {MaxKeyBytes: -1},
		{MaxKeyBytes: 4097}, {Span: -time.Second}, {Span: time.Millisecond, Intervals: 2}, {Span: 25 * time.Hour},
	} {
		_, err := newHeavyHitters(o)
		assert.ErrorIs(t, err, ErrInvalidConfig, "%+v", o)
	}
	h := newTestHH(t, TopKeysOptions{})
	assert.Equal(t, TopKeysOptions{Capacity: DefaultTopCapacity, Span: DefaultTopSpan, Intervals: DefaultTopIntervals,
		MaxKeyBytes: DefaultTopMaxKeyBytes}, h.opts)
	_, err := NewLimiter(MustPolicy("p", Limit{Algorithm: GCRA{Rate: PerSecond(1)}}), WithTopKeys(TopKeysOptions{Capacity: -1}))
	assert.ErrorIs(t, err, ErrInvalidConfig)
	var l *Limiter
	top, ok := l.TopKeys(3)
	assert.Equal(t, Top{}, top, "a nil limiter")
	assert.False(t, ok)
	l, err = NewLimiter(MustPolicy("p", Limit{Algorithm: GCRA{Rate: PerSecond(1)}}))
	require.NoError(t, err)
	_, ok = l.TopKeys(3)
	assert.False(t, ok, "a limiter without WithTopKeys")
}
