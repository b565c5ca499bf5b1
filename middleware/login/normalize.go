package login

import (
	"errors"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// MaxUsername is the longest username, in bytes as submitted, that a guard
// counts; a longer one is refused with [ErrUsernameTooLong] before any
// Unicode processing, so that no input can make normalization costly.
const MaxUsername = 1024

// ErrUsernameTooLong is returned by [Guard.Begin] (and answered 400 by
// [Guard.Handler]) for a username longer than [MaxUsername] bytes, as
// submitted or as normalized.
var ErrUsernameTooLong = errors.New("login: username too long")

// foldRounds bounds the NFKC and case-folding rounds of NormalizeUsername.
// One round reaches the fixed point for every string the fuzzer and the
// tests have found; the bound only keeps the loop finite.
const foldRounds = 4

// NormalizeUsername is the default Options.Normalize: the form accounts
// are counted by, so that every spelling a person or an attacker could
// submit for one account shares its counter. It
//   - replaces invalid UTF-8 with U+FFFD;
//   - applies Unicode compatibility normalization (NFKC: fullwidth
//     "ａｌｉｃｅ", ligatures, the Kelvin sign and other compatibility
//     forms become their plain letters) and full Unicode case folding
//     ("Alice", "ALICE", "ß" and "SS", Greek final sigma), repeated until
//     neither changes the result;
//   - drops default-ignorable code points (zero-width spaces and joiners,
//     soft hyphens, variation selectors, tags, other format characters)
//     and control characters;
//   - trims white space at both ends and collapses inner runs of white
//     space to one space.
//
// It is idempotent: NormalizeUsername(NormalizeUsername(s)) ==
// NormalizeUsername(s) (FuzzNormalizeUsername checks it). It may merge
// names an application keeps apart (it is coarser than most username
// rules); that only makes accounts share a counter, which is stricter,
// never looser.
//
// It does not refuse any input: unlike the PRECIS UsernameCaseMapped
// profile (RFC 8265, golang.org/x/text/secure/precis), which refuses
// spaces, symbols and some scripts and maps only widths and case (NFC, not
// NFKC), it gives every submitted string a counter, so that a name the
// profile would refuse can neither escape counting nor be refused a login
// it should be allowed.
func NormalizeUsername(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	for range foldRounds {
		t := clean(norm.NFKC.String(cases.Fold().String(norm.NFKC.String(s))))
		if t == s {
			break
		}
		s = t
	}
	return s
}

// clean drops ignorable and control code points, trims white space and
// collapses inner runs of it to one space.
func clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
		case ignorable(r):
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ignorable reports whether r is dropped: a control or format character
// (which include most default-ignorable code points), a variation selector
// or another default-ignorable code point, or a noncharacter.
func ignorable(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point, unicode.Noncharacter_Code_Point)
}
