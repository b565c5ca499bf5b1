package rounds

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const raw = `cpu-model: AMD EPYC
cores: 2
note: provisional
# round 1 HotKey floodgate
goos: linux
cpu: Some CPU
BenchmarkHotKey/allow-sequential/floodgate-2   	 1000	  90.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkHotKey/allow-sequential/floodgate-tb-2	 1000	 150.0 ns/op	 0 B/op	 0 allocs/op
PASS
# round 2 HotKey floodgate
BenchmarkHotKey/allow-sequential/floodgate-2   	 1000	 110.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkHotKey/allow-sequential/floodgate-2   	 1000	 100.0 ns/op	 0 B/op	 0 allocs/op
BenchmarkHotKey/allow-parallel/floodgate-2     	 1000	   NaN ns/op
# round 1 ScaleKeys x-time-rate
--- SKIP: BenchmarkScaleKeys/10M/x-time-rate
    estimated 2.18 GB kept
--- FAIL: BenchmarkRedisScale/hot-g1/ulule-2
    scale_redis_bench_test.go:10: boom
    more
redis: 2026/11/25 a log line that looks like configuration
`

func TestParse(t *testing.T) {
	run, err := Parse(strings.NewReader(raw))
	require.NoError(t, err)

	assert.Equal(t, "AMD EPYC", run.Config["cpu-model"])
	assert.Equal(t, "Some CPU", run.Config["cpu"])
	assert.Equal(t, "provisional", run.Config["note"])
	assert.Equal(t, "2", run.Procs)
	assert.Equal(t, []int{1, 2}, run.Rounds)
	assert.Equal(t, []string{"HotKey/allow-sequential"}, run.Groups, "a group with no figure is not listed")
	assert.Equal(t, []string{"floodgate", "floodgate-tb"}, run.Libs("HotKey/allow-sequential"))
	assert.Equal(t, []string{"ns/op", "B/op", "allocs/op"}, run.Units("HotKey/allow-sequential", "floodgate"))
	assert.Equal(t, []Sample{{1, 90}, {2, 110}, {2, 100}}, run.Samples("HotKey/allow-sequential", "floodgate", "ns/op"))

	assert.Equal(t, []Note{{Group: "ScaleKeys/10M", Lib: "x-time-rate", Text: "estimated 2.18 GB kept"}}, run.Skips)
	assert.Equal(t, []Note{{Group: "RedisScale/hot-g1", Lib: "ulule", Text: "scale_redis_bench_test.go:10: boom"}}, run.Fails)
	n, ok := run.Skipped("ScaleKeys/10M", "x-time-rate")
	assert.True(t, ok)
	assert.Equal(t, "estimated 2.18 GB kept", n.Text)
	_, ok = run.Skipped("ScaleKeys/10M", "floodgate")
	assert.False(t, ok)
}

func TestSummarizeAndByRound(t *testing.T) {
	_, ok := Summarize(nil)
	assert.False(t, ok)

	s, ok := Summarize([]Sample{{1, 3}, {2, 1}, {3, 2}})
	require.True(t, ok)
	assert.Equal(t, Stat{Median: 2, Min: 1, Max: 3, N: 3}, s)

	s, _ = Summarize([]Sample{{1, 4}, {2, 1}, {3, 2}, {4, 10}})
	assert.Equal(t, Stat{Median: 3, Min: 1, Max: 10, N: 4}, s)

	assert.Equal(t, map[int]float64{1: 90, 2: 105}, ByRound([]Sample{{1, 90}, {2, 110}, {2, 100}}))
}
