package login

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// MaxUsername is the longest username, in bytes as submitted, that a guard
// counts; a longer one is refused with [ErrUsernameTooLong] before any
// Unicode processing, so that no input can make normalization costly.
const MaxUsername = 1024

// ErrUsernameTooLong is returned by [Guard.Begin] (and answered 400 by
// [Guard.Handler]) for a username longer than [MaxUsername] bytes as
// submitted, or as normalized by the default normalization (which gives up
// as soon as a step's output passes that length); a custom
// Options.Normalize may return up to 4*MaxUsername bytes.
var ErrUsernameTooLong = errors.New("login: username too long")

// foldRounds bounds the NFKC and case-folding rounds of NormalizeUsername.
// Nearly every string reaches its fixed point in one round (the second
// confirms it); folding can undo a composition or dropping a code point
// enable one, which the next round settles. The bound only keeps the loop
// finite: FuzzNormalizeUsername checks that its result is a fixed point.
const foldRounds = 4

// NormalizeUsername is the default Options.Normalize: the form accounts
// are counted by, so that every spelling a person or an attacker could
// submit for one account shares its counter. It
//   - replaces invalid UTF-8 with U+FFFD;
//   - applies Unicode compatibility normalization (NFKC: fullwidth
//     "ａｌｉｃｅ", ligatures, the Kelvin sign and other compatibility
//     forms become their plain letters) and case folding: full Unicode
//     case folding ("Alice", "ALICE", "ß" and "SS", Greek final sigma),
//     made coarser so that strings strings.ToLower, strings.ToUpper or
//     strings.EqualFold would equate map to one name ("ı", "İ" and "i";
//     checked on canonically ordered strings), repeated until none of it
//     changes the result. Letters outside the Basic Multilingual Plane
//     (Deseret, Osage, Old Hungarian...) are folded before the first
//     composition, as PRECIS maps case before normalizing: x/text composes
//     such a letter and a following mark as the BMP letter with the same
//     low 16 bits, so that upper-case Deseret U+10413 with U+0301 became
//     Cyrillic "ѓ" while lower-case U+1043B with U+0301 stayed apart;
//   - drops nonspacing and enclosing marks, those of precomposed letters
//     included ("álice", "alicé" and "alice" followed by any run of
//     combining accents are "alice"), as an accent-insensitive
//     comparison does (MySQL's default collation, utf8mb4_0900_ai_ci;
//     MariaDB's utf8mb4_general_ci; PostgreSQL's unaccent): an
//     application matching usernames so would otherwise see one account
//     where the guard counted unboundedly many;
//   - maps every letter, digit or symbol that the Unicode Collation
//     Algorithm takes for another at primary strength (the comparison
//     MySQL's utf8mb4_0900_ai_ci, SQL Server's *_CI_AI and ICU at strength
//     1 make) to one of them: letters without a canonical decomposition
//     ("ł", "ø", "đ", "ð" and "ħ" are "l", "o", "d", "d" and "h"; "æ" and
//     "œ" are "ae" and "oe"), other scripts' digits ("١", "१", "❶" are
//     "1"), hiragana and katakana, enclosed and other variant letters;
//     and drops the few code points that are ignorable at that strength
//     (the Arabic tatweel, some Indic signs). The table is CLDR's root
//     collation's, as golang.org/x/text/collate gives it; so are the
//     pairs it reads as one ("l·" is "l"; a Thai, Lao or Tai Viet vowel
//     written before its consonant, "เก", is the same written after it,
//     "กเ"), each written one way;
//   - drops default-ignorable code points (zero-width spaces and joiners,
//     soft hyphens, variation selectors, tags, other format characters),
//     control characters, and a combining dot above (U+0307) that does
//     not combine with its letter ("i̇" is "i");
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
	name, _ := normalize(s, -1)
	return name
}

// normalize is NormalizeUsername, giving up (false) as soon as the output
// of one of its steps is longer than limit bytes (limit < 0: never), so
// that no input costs more than a few passes over limit bytes: NFKC
// expands some code points 18-fold (U+FDFA), and 341 of them (1,023 bytes)
// made 11,253 bytes that every later step went through twice. Its result,
// when it gives one, is NormalizeUsername's.
func normalize(s string, limit int) (string, bool) {
	return normalizeBy(s, limit, primaryFold)
}

// normalizeBy is normalize with table as the primary-strength folding
// (see primary); nil leaves that step out, to build the table.
func normalizeBy(s string, limit int, table map[rune]string) (string, bool) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !within(s, limit) {
		return "", false
	}
	for range foldRounds {
		t, ok := round(s, limit, table)
		if !ok {
			return "", false
		}
		if t == s {
			break
		}
		s = t
	}
	return s, true
}

// round is one round of normalization: supplementary letters folded,
// NFKC, folding (see fold), NFKC, marks dropped (see unmark), the
// primary-strength folding of table (see primary), clean; false when a
// step's output is longer than limit bytes.
func round(s string, limit int, table map[rune]string) (string, bool) {
	s = strings.Map(foldSupplementary, s)
	if !within(s, limit) {
		return "", false
	}
	s, ok := nfkc(s, limit)
	if ok {
		s, ok = fold(s, limit)
	}
	if ok {
		s, ok = nfkc(s, limit)
	}
	if ok {
		s, ok = unmark(s, limit)
	}
	if ok {
		s, ok = primary(s, limit, table)
	}
	if !ok {
		return "", false
	}
	return clean(s), true
}

// unmarker decomposes a string, drops its nonspacing and enclosing marks
// and composes what is left.
var unmarker = transform.Chain(norm.NFD, runes.Remove(runes.Predicate(mark)), norm.NFC)

// mark reports whether r is a nonspacing or an enclosing mark: the
// accents, diacritics and other marks an accent-insensitive comparison
// ignores. Spacing marks (the vowel signs of Indic scripts) are letters'
// parts that such comparisons keep.
func mark(r rune) bool { return unicode.In(r, unicode.Mn, unicode.Me) }

// unmark returns s without its nonspacing and enclosing marks, those of
// its precomposed letters included ("é" is "e"), or false when a step's
// output is longer than limit bytes. An application matching usernames
// accent-insensitively (MySQL's default collation, utf8mb4_0900_ai_ci,
// and MariaDB's, PostgreSQL's unaccent) takes "álice" and "alice" followed
// by any run of marks for alice: without this step each was a counter of
// its own, and guesses at one account spread over unboundedly many.
func unmark(s string, limit int) (string, bool) {
	switch {
	case !marked(s): // most names, all of ASCII
		return s, within(s, limit)
	case limit < 0:
		out, _, _ := transform.String(unmarker, s) // cannot fail on valid UTF-8
		return out, true
	}
	return bounded(unmarker, s, limit)
}

// marked reports whether s may have a mark to drop: a mark, or a code
// point with a canonical decomposition (which may hold one). A string of
// NFKC form without either is its own unmarked form (Hangul syllables,
// which decompose into letters, have none here).
func marked(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if mark(r) || norm.NFD.PropertiesString(s[i:]).Decomposition() != nil {
			return true
		}
		i += n
	}
	return false
}

// fold maps s to one case: every code point to the lower case of its
// upper case (so that "ı" and "I", "İ" and "i", "ſ" and "s", which
// strings.ToUpper or strings.ToLower would equate, do here too), then full
// Unicode case folding ("ß" to "ss", "ﬁ" to "fi"), then the per code point
// mapping again. The last step also makes folding stable where
// golang.org/x/text/cases.Fold alone is not: it maps Cherokee letters
// between their two cases in both directions (U+13B5 to U+AB85 and back).
// It returns false when a step's output is longer than limit bytes.
func fold(s string, limit int) (string, bool) {
	s = strings.Map(oneCase, s)
	if !within(s, limit) {
		return "", false
	}
	var ok bool
	if limit < 0 {
		s = cases.Fold().String(s)
	} else if s, ok = bounded(cases.Fold(), s, limit); !ok {
		return "", false
	}
	s = strings.Map(oneCase, s)
	return s, within(s, limit)
}

// nfkc returns the NFKC form of s, or false when it is longer than limit
// bytes.
func nfkc(s string, limit int) (string, bool) {
	switch {
	case limit < 0:
		return norm.NFKC.String(s), true
	case norm.NFKC.IsNormalString(s): // most names, all of ASCII
		return s, within(s, limit)
	}
	return bounded(norm.NFKC, s, limit)
}

// boundSlack is the room bounded leaves past its limit: more than any
// segment a transformer needs to write at once (norm writes up to
// MaxTransformChunkSize, and asks for 4 bytes per code point of a segment),
// so that running out of room means the output passes the limit.
const boundSlack = 4 * norm.MaxTransformChunkSize

// bounded applies t to s, writing at most limit+boundSlack bytes: false
// when the output is longer than limit bytes, without producing the rest.
// It first tries room for three times s, enough for nearly every name.
func bounded(t transform.Transformer, s string, limit int) (string, bool) {
	src := []byte(s)
	size := min(limit, 3*len(s)) + boundSlack
	for {
		t.Reset()
		dst := make([]byte, size)
		n, _, err := t.Transform(dst, src, true)
		switch {
		case err == nil:
			if n > limit {
				return "", false
			}
			return string(dst[:n]), true
		case err != transform.ErrShortDst || size >= limit+boundSlack:
			return "", false
		}
		size = limit + boundSlack
	}
}

// within reports whether s is at most limit bytes long (limit < 0: any).
func within(s string, limit int) bool { return limit < 0 || len(s) <= limit }

// foldSupplementary is oneCase for a code point outside the Basic
// Multilingual Plane, the identity for one inside it. golang.org/x/text's
// composition looks a starter and a mark up by the low 16 bits of each,
// without asking whether the starter composes: a supplementary letter
// followed by a mark may compose as a BMP letter (U+10413 and U+0301 as
// U+0413 and U+0301, into U+0403), and its other case not (U+1043B is not
// taken for a letter that composes with U+0301). Folding these letters
// first gives both cases one composition, the one PRECIS, which maps case
// before it normalizes, gives them; BMP text is composed as before.
func foldSupplementary(r rune) rune {
	if r <= 0xFFFF {
		return r
	}
	return oneCase(r)
}

// oneCase maps r to the lower case of its upper case: one code point for
// every member of a simple case-folding orbit ("k", "K", Kelvin sign).
func oneCase(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }

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
// or another default-ignorable code point, a noncharacter, or a combining
// dot above (U+0307) that NFKC left uncombined: full case folding turns
// "İ" into "i" and U+0307 where strings.ToLower gives "i", and only
// dropping the dot makes the two agree.
func ignorable(r rune) bool {
	return r == '\u0307' || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point, unicode.Noncharacter_Code_Point)
}
