package headers

import (
	"encoding/binary"
	"fmt"
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

// eightDigits is exact for every value of each of its lanes: every x
// below 10^5 runs every low half, and x = k·10^4 + (9999 − k) every high
// one, with a low half that varies too.
func TestEightDigits(t *testing.T) {
	check := func(x uint64) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], eightDigits(x))
		if got, want := string(b[:]), fmt.Sprintf("%08d", x); got != want {
			t.Fatalf("eightDigits(%d) = %q, want %q", x, got, want)
		}
	}
	for x := uint64(0); x < 100_000; x++ {
		check(x)
	}
	for k := uint64(0); k < 10_000; k++ {
		check(k*10_000 + 9_999 - k)
	}
	check(99_999_999)
}

// appendInt appends after what b holds, whatever b's length and capacity.
func TestAppendIntAppends(t *testing.T) {
	for _, v := range []int64{7, 42, 12_345_678, 123_456_789, maxInt} {
		want := strconv.FormatInt(v, 10)
		for _, head := range []string{"", "x", "0123456789abcdef"} {
			for _, spare := range []int{0, 1, 15, 16, 40} {
				b := append(make([]byte, 0, len(head)+spare), head...)
				require.Equal(t, head+want, string(appendInt(b, v)), "%d after %q, %d spare", v, head, spare)
			}
		}
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
