package headers

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	// Every length, and the values around each power of ten, as strconv
	// writes them.
	for p := int64(1); p <= maxInt; p *= 10 {
		for _, v := range []int64{p - 1, p, p + 1, 2*p - 1, 5 * p, 9*p + p - 1} {
			if v <= maxInt {
				assert.Equal(t, strconv.FormatInt(v, 10), string(appendInt([]byte("x"), v))[1:], "%d", v)
			}
		}
	}
	for v := int64(0); v < 100_000; v += 7 {
		require.Equal(t, strconv.FormatInt(v, 10), string(appendInt(nil, v)), "%d", v)
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
