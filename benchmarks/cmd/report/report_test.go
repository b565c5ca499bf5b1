package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/floodgate-go/floodgate/benchmarks/cmd/internal/rounds"
)

// testRaw has three rounds of the hot key (floodgate 60/70/80 ns against
// go-limiter's 100), two of the middleware (overheads over bare of 200/300
// against 400/500) and one of two Redis rows.
const testRaw = `cpu-model: Test CPU
cores: 2
go-version: go1.26.8
redis-version: 7.0.15
date: 2026-11-25
command: ./run.sh -rounds 3
# round 1
BenchmarkHotKey/allow-sequential/floodgate-2 	1	60 ns/op	0 B/op	0 allocs/op
BenchmarkHotKey/allow-sequential/sethvargo-2 	1	100 ns/op	0 B/op	0 allocs/op
BenchmarkHotKey/allow-sequential/echo-2 	1	120 ns/op	0 B/op	0 allocs/op
BenchmarkMiddleware/allow-parallel/bare-2 	1	3 ns/op	0 B/op	0 allocs/op
BenchmarkMiddleware/allow-parallel/floodgate-2 	1	203 ns/op	100 B/op	1 allocs/op
BenchmarkMiddleware/allow-parallel/sethvargo-2 	1	403 ns/op	100 B/op	9 allocs/op
BenchmarkRedisScale/hot-g1/floodgate-2 	1	80000 ns/op	12000 decisions/s	5 srv-us/op	30 allocs/op
BenchmarkRedisScale/hot-g1/ulule-2 	1	100000 ns/op	10000 decisions/s	4 srv-us/op	16 allocs/op
BenchmarkRedisScale/10k-g1/floodgate-2 	1	80000 ns/op	9000 decisions/s	3 srv-us/op	12 allocs/op
BenchmarkRedisScale/10k-g1/ulule-2 	1	100000 ns/op	10000 decisions/s	4 srv-us/op	16 allocs/op
# round 2
BenchmarkHotKey/allow-sequential/sethvargo-2 	1	100 ns/op	0 B/op	0 allocs/op
BenchmarkHotKey/allow-sequential/echo-2 	1	120 ns/op	0 B/op	0 allocs/op
BenchmarkHotKey/allow-sequential/floodgate-2 	1	70 ns/op	0 B/op	0 allocs/op
BenchmarkMiddleware/allow-parallel/floodgate-2 	1	305 ns/op	100 B/op	1 allocs/op
BenchmarkMiddleware/allow-parallel/sethvargo-2 	1	505 ns/op	100 B/op	9 allocs/op
BenchmarkMiddleware/allow-parallel/bare-2 	1	5 ns/op	0 B/op	0 allocs/op
# round 3
BenchmarkHotKey/allow-sequential/echo-2 	1	120 ns/op	0 B/op	0 allocs/op
BenchmarkHotKey/allow-sequential/floodgate-2 	1	80 ns/op	0 B/op	0 allocs/op
BenchmarkHotKey/allow-sequential/sethvargo-2 	1	100 ns/op	0 B/op	0 allocs/op
--- SKIP: BenchmarkScaleKeys/10M/x-time-rate
    estimated 2.18 GB kept
`

func testFigures(t *testing.T) figures {
	t.Helper()
	run, err := rounds.Parse(strings.NewReader(testRaw))
	require.NoError(t, err)
	return figures{run}
}

func verdictOf(t *testing.T, vs []verdict, prefix string) verdict {
	t.Helper()
	for _, v := range vs {
		if strings.HasPrefix(v.label, prefix) {
			return v
		}
	}
	require.Failf(t, "no verdict", "%q", prefix)
	return verdict{}
}

func TestVerdicts(t *testing.T) {
	vs := testFigures(t).verdicts()

	hot := verdictOf(t, vs, "one hot key, allow, sequential")
	assert.Equal(t, "go-limiter 100 ns", hot.peer, "the best peer, named as the README does")
	assert.Equal(t, "70.0 ns, 0 allocs", hot.us)
	assert.Equal(t, "70.0 (60.0–80.0), 0 allocs", hot.usSpread)
	assert.Equal(t, "0.70×", hot.ratio)
	assert.Equal(t, "0.70× (0.60×–0.80×)", hot.ratioSpread)
	assert.Equal(t, "yes", hot.met)
	assert.Equal(t, "2/3", hot.rounds, "0.80× in round 3 misses ≤ 0.7×")
	assert.Equal(t, "≤ 0.7×, 0 allocs", hot.target)

	mw := verdictOf(t, vs, "middleware overhead")
	assert.Equal(t, "250 ns, 1 allocs", mw.us, "overhead over bare, round by round: 200 and 300")
	assert.Equal(t, "go-limiter 450 ns", mw.peer)
	assert.Equal(t, "no", mw.met)
	assert.Equal(t, "1/2", mw.rounds, "0.50× in round 1, 0.60× in round 2")

	r1 := verdictOf(t, vs, "Redis, one hot key, 1 goroutine")
	assert.Equal(t, "12,000/s", r1.us)
	assert.Equal(t, "ulule 10,000/s", r1.peer, "the peer the target names, not the best")
	assert.Equal(t, "1.20×", r1.ratio)
	assert.Equal(t, "yes", r1.met)
	r2 := verdictOf(t, vs, "Redis, 10,000 keys, 1 goroutine")
	assert.Equal(t, "no", r2.met)

	srv := verdictOf(t, vs, "Redis server time")
	assert.Contains(t, srv.label, "worst: one hot key, 1 goroutine")
	assert.Equal(t, "1.25×", srv.ratio)
	assert.Equal(t, "no", srv.met, "met only when met in every group")

	allocs := verdictOf(t, vs, "Redis client allocations")
	assert.Equal(t, "30 allocs", allocs.us, "the worst group's")
	assert.Equal(t, "no", allocs.met)
	assert.Equal(t, "0/1", allocs.rounds)

	for _, v := range vs {
		assert.NotContains(t, v.label, "1,000,000 keys", "no row without figures")
	}
}

func TestWrite(t *testing.T) {
	var buf bytes.Buffer
	write(&buf, testFigures(t), t.TempDir())
	out := buf.String()

	begin := strings.Index(out, "<!-- README table: begin")
	end := strings.Index(out, "<!-- README table: end -->")
	require.True(t, begin >= 0 && end > begin, "the README table is marked")
	readme := out[begin:end]
	assert.Contains(t, readme, "Test CPU, 2 cores, GOMAXPROCS 2, Go 1.26.8, Redis 7.0.15 on the same cores, 2026-11-25")
	assert.Contains(t, readme, "`./run.sh -rounds 3` (3 interleaved rounds; medians)")
	assert.Contains(t, readme, "| one hot key, allow, sequential | go-limiter 100 ns | 70.0 ns, 0 allocs | 0.70× | ≤ 0.7×, 0 allocs | yes (2/3) |")

	assert.Contains(t, out, "| one hot key, 1 goroutine | 5.00 | 4.00 |", "server time per decision, per library")
	assert.Contains(t, out, "- ScaleKeys/10M/x-time-rate skipped: estimated 2.18 GB kept")
	assert.Contains(t, out, "| bare (its own ns/op) | 4.00 (3.00–5.00) |")
}
