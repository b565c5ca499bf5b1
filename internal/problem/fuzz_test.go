package problem

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzAppendString checks that every string is written as valid JSON that
// reads back as the string, each invalid UTF-8 byte read as U+FFFD, with
// nothing HTML would read (<, >, &) and no line separator left raw.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `q"b\`, "<a>&", "é\u2028\u2029", "\xff\xfe", "\x00\x1f\x7f", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		if want := string([]rune(s)); got != want {
			t.Fatalf("%q reads back as %q, want %q", b, got, want)
		}
		if strings.ContainsAny(string(b), "<>&\u2028\u2029") {
			t.Fatalf("%q holds a raw <, >, & or line separator", b)
		}
	})
}
