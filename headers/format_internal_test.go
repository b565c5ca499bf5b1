package headers

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
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
