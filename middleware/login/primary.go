package login

import (
	"strings"
	"unicode/utf8"
)

// primary returns s with every code point primaryFold maps replaced by its
// mapping (the code points the Unicode Collation Algorithm takes at primary
// strength for another one, or for a string of others, or ignores), and
// the pairs it reads as one unit spelled one way (see contract), or false
// when the output is longer than limit bytes (limit < 0: never). A nil
// table leaves s as it is.
//
// An application comparing usernames at primary strength (MySQL's default
// collation utf8mb4_0900_ai_ci, SQL Server's *_CI_AI) takes "łukasz",
// "lukasz" and "ŁUKASZ" for one account, as it does "lukasz1" and
// "lukasz١": ł and ١ have no decomposition, so unmark kept them, and
// guesses at one account spread over a counter per spelling.
func primary(s string, limit int, table map[rune]string) (string, bool) {
	if table == nil || ascii(s) { // most names
		return s, within(s, limit)
	}
	units := make([]rune, 0, len(s))
	for _, r := range s {
		if t, ok := table[r]; ok {
			for _, u := range t {
				units = append(units, u)
			}
		} else {
			units = append(units, r)
		}
		if limit >= 0 && len(units) > limit {
			return "", false
		}
	}
	return contract(units, limit)
}

// contract returns rs with the pairs the Unicode Collation Algorithm reads
// as one unit (its contractions, in CLDR's root collation) written one way:
// a Thai, Lao or Tai Viet vowel written before its consonant is weighed
// after it ("เก" is "กเ", primaryReorder), and "l·" is "l"
// (primaryContract). It reads rs as the collation does, into the units it
// weighs, then writes those units as the string the collation reads into
// them: a consonant and a vowel of primaryReorder after it as the vowel
// then the consonant, a code point of primaryContract followed by the
// follower it swallows with that follower once more ("l··" for "l" then
// "·"). Reading the result gives the same units, so that it is its own
// form. False when the output is longer than limit bytes.
func contract(rs []rune, limit int) (string, bool) {
	units := rs[:0:0]
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if i+1 < len(rs) {
			switch next := rs[i+1]; {
			case strings.ContainsRune(primaryReorder[r], next):
				units = append(units, next, r)
				i++
				continue
			case strings.ContainsRune(primaryContract[r], next):
				units = append(units, r)
				i++
				continue
			}
		}
		units = append(units, r)
	}
	var b strings.Builder
	b.Grow(len(units))
	for j := 0; j < len(units); j++ {
		u := units[j]
		if j+1 < len(units) && strings.ContainsRune(primaryReorder[units[j+1]], u) {
			b.WriteRune(units[j+1])
			b.WriteRune(u)
			j++
		} else {
			b.WriteRune(u)
			if j+1 < len(units) && strings.ContainsRune(primaryContract[u], units[j+1]) {
				b.WriteRune(units[j+1])
			}
		}
		if limit >= 0 && b.Len() > limit {
			return "", false
		}
	}
	return b.String(), true
}

// ascii reports whether s is all ASCII.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
