package headers

import (
	"math"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
)

func TestSeconds(t *testing.T) {
	cases := []struct {
		d           time.Duration
		ceil, retry int64
	}{
		{math.MinInt64, 0, 1},
		{-time.Second, 0, 1},
		{0, 0, 1},
		{1, 1, 1},
		{100 * time.Millisecond, 1, 1},
		{time.Second, 1, 1},
		{time.Second + 1, 2, 2},
		{2 * time.Second, 2, 2},
		{2001 * time.Millisecond, 3, 3},
		{core.Never, 9223372037, 9223372037},
	}
	for _, c := range cases {
		assert.Equal(t, c.ceil, ceilSeconds(int64(c.d)), "ceil %v", c.d)
		assert.Equal(t, c.retry, retrySeconds(c.d), "retry %v", c.d)
		assert.Equal(t, c.retry, windowSeconds(c.d), "window %v", c.d)
	}
}

func TestEpochCeil(t *testing.T) {
	s := int64(time.Second)
	cases := []struct{ at, d, want int64 }{
		{0, 0, 0},
		{0, 1, 1},
		{5 * s, 0, 5},
		{5*s + 1, 0, 6},
		{5*s + 400_000_000, 600_000_000, 6},
		{5*s + 400_000_001, 600_000_000, 7},
		{-1, 0, 0},
		{-s - 1, 0, -1},
		{-1, 2, 1},
		{5 * s, -s, 5}, // a negative duration counts as 0
		{math.MaxInt64, math.MaxInt64, 18446744074},
		{math.MinInt64, 0, -9223372036},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, epochCeil(c.at, c.d), "%d + %d", c.at, c.d)
	}
}

func TestAppendInt(t *testing.T) {
	cases := map[int64]string{
		0:             "0",
		42:            "42",
		-1:            "0",
		math.MinInt64: "0",
		maxInt:        "999999999999999",
		maxInt + 1:    "999999999999999",
		math.MaxInt64: "999999999999999",
	}
	for v, want := range cases {
		assert.Equal(t, want, string(appendInt(nil, v)), "%d", v)
	}
}

func TestAppendSFString(t *testing.T) {
	cases := map[string]string{
		"":              `""`,
		"burst":         `"burst"`,
		`a"b`:           `"a\"b"`,
		`a\b`:           `"a\\b"`,
		"50%":           `"50%25"`,
		"%25":           `"%2525"`,
		"é":             `"%c3%a9"`,
		"\x00\x1f\x7f":  `"%00%1f%7f"`,
		" ~!#$&'()*+,;": `" ~!#$&'()*+,;"`,
	}
	for in, want := range cases {
		assert.Equal(t, want, string(appendSFString(nil, in)), "%q", in)
	}
}

func TestValidFieldName(t *testing.T) {
	for _, s := range []string{"X-RateLimit-Limit", "a", "!#$%&'*+-.^_`|~09AZaz"} {
		assert.True(t, validFieldName(s), s)
	}
	for _, s := range []string{"", "a b", "a:b", "a\tb", "é", "a(b)", `a"b`, "a/b", "a\x00"} {
		assert.False(t, validFieldName(s), "%q", s)
	}
}
