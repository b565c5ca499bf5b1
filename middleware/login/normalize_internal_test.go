package login

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzNormalizeBounded checks that the guard's bounded normalization gives
// NormalizeUsername's result whenever it gives one, and one whenever no
// step's output passes the bound (here a small one, so that the fuzzer
// reaches it).
func FuzzNormalizeBounded(f *testing.F) {
	for _, s := range []string{"alice", "ＡＬＩＣＥ", "Straße", "\ufdfa", "\u3300\u3300", "ﬃ", "\xff\xfe", " a \u200b b ",
		"\U00010413\u0301", "a" + strings.Repeat("\u0301\u0316", 20), "İı", strings.Repeat("\ufdfa", 3), strings.Repeat("\u03d7", 30), strings.Repeat("l·", 30)} {
		f.Add(s, 64)
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if len(s) > MaxUsername || limit < 0 || limit > 2*MaxUsername {
			return
		}
		want := NormalizeUsername(s)
		got, ok := normalize(s, limit)
		if ok {
			require.Equal(t, want, got, "%q within %d", s, limit)
			require.LessOrEqual(t, len(got), limit)
		}
		if unbounded, _ := normalize(s, 4*MaxUsername*18); len(want) > limit {
			require.False(t, ok, "%q: %d bytes normalized, limit %d", s, len(want), limit)
		} else {
			require.Equal(t, want, unbounded)
		}
	})
}

// BenchmarkAttackExpandingUsername measures the guard's normalization of a
// username of MaxUsername bytes that NFKC expands 11-fold, against plain
// ASCII letters.
func BenchmarkAttackExpandingUsername(b *testing.B) {
	for name, s := range map[string]string{
		"ascii":      strings.Repeat("a", MaxUsername),
		"341 U+FDFA": strings.Repeat("\ufdfa", 341),
		"85 U+3300":  strings.Repeat("\u3300", 85),
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				normalize(s, MaxUsername)
			}
		})
	}
}
