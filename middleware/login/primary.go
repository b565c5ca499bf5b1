package login

import (
	"strings"
	"unicode/utf8"
)

// primary returns s with every code point table maps replaced by its
// mapping (primaryFold: the code points the Unicode Collation Algorithm
// takes at primary strength for another one, or for a string of others,
// or ignores), or false when the output is longer than limit bytes
// (limit < 0: never). A nil table leaves s as it is.
//
// An application comparing usernames at primary strength (MySQL's default
// collation utf8mb4_0900_ai_ci, SQL Server's *_CI_AI) takes "łukasz",
// "lukasz" and "ŁUKASZ" for one account, as it does "lukasz1" and
// "lukasz١": ł and ١ have no decomposition, so unmark kept them, and
// guesses at one account spread over a counter per spelling.
func primary(s string, limit int, table map[rune]string) (string, bool) {
	i := strings.IndexFunc(s, func(r rune) bool {
		if r < utf8.RuneSelf {
			return false
		}
		_, ok := table[r]
		return ok
	})
	if i < 0 { // most names, all of ASCII
		return s, within(s, limit)
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if t, ok := table[r]; ok {
			b.WriteString(t)
		} else {
			b.WriteRune(r)
		}
		if limit >= 0 && b.Len() > limit {
			return "", false
		}
	}
	return b.String(), true
}
