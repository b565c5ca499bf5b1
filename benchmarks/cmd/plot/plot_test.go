package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/floodgate-go/floodgate/benchmarks/cmd/internal/rounds"
)

const testRaw = `# round 1
BenchmarkRedisScale/hot-g1/ulule-2 	1	1 ns/op	10000 decisions/s
BenchmarkRedisScale/hot-g1/floodgate-2 	1	1 ns/op	12000 decisions/s
BenchmarkRedisScale/hot-g8/floodgate-2 	1	1 ns/op	50000 decisions/s
BenchmarkRedisScale/hot-g8/ulule-2 	1	1 ns/op	60000 decisions/s
BenchmarkScaleKeys/10k/floodgate-2 	1	80 ns/op	26 B/key
BenchmarkScaleKeys/1M/floodgate-2 	1	150 ns/op	22 B/key
`

func TestPanels(t *testing.T) {
	run, err := rounds.Parse(strings.NewReader(testRaw))
	require.NoError(t, err)

	rp := redisPanels(run)
	require.Len(t, rp, 1, "no 10k-key figures: one panel")
	assert.Equal(t, "Redis, one hot key", rp[0].title)
	require.Len(t, rp[0].series, 2)
	assert.Equal(t, series{name: "ulule", xs: []float64{1, 8}, ys: []float64{10000, 60000}}, rp[0].series[0])

	kp := keysPanels(run)
	require.Len(t, kp, 2)
	assert.Equal(t, []float64{1e4, 1e6}, kp[0].series[0].xs)
	assert.Equal(t, []float64{26, 22}, kp[1].series[0].ys)

	var buf bytes.Buffer
	draw(&buf, append(rp, kp...))
	out := buf.String()
	d := xml.NewDecoder(strings.NewReader(out))
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "well-formed SVG")
	}
	assert.Equal(t, 1, strings.Count(out, ">floodgate</text>"), "one legend for every panel")
	assert.Contains(t, out, ">60k</text>", "y ticks in short form")
}

func TestNiceStep(t *testing.T) {
	assert.Equal(t, 20000.0, niceStep(100000, 5))
	assert.Equal(t, 50.0, niceStep(180, 5))
	assert.Equal(t, 1.0, niceStep(0, 5))
}
