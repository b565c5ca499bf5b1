package core

import (
	"fmt"
	"strings"
)

// ParseError reports input that [ParseAlgorithm] or [ParsePolicy] cannot
// accept: the offending token, its column and what was wanted. It wraps
// [ErrInvalidConfig], or the algorithm's validation error (which wraps it)
// when the words are well formed but their values are not usable together.
type ParseError struct {
	// Column is the 1-based byte column of Token in the input: the byte
	// after the input's end when the input ended too soon.
	Column int
	// Token is the text blamed: a word, a word and its argument, a part
	// of the rate, or "" at the end of the input.
	Token string
	// Err is ErrInvalidConfig or the validation error.
	Err error
	msg string
}

// Error says what is wrong, where, and what was wanted.
func (e *ParseError) Error() string {
	err := e.Err
	if err == nil {
		err = ErrInvalidConfig
	}
	msg := e.msg
	if msg == "" {
		msg = fmt.Sprintf("%q at column %d", clip(e.Token), e.Column)
	}
	return "core: " + msg + ": " + strings.TrimPrefix(err.Error(), "core: ")
}

// Unwrap returns Err.
func (e *ParseError) Unwrap() error { return e.Err }

// syntaxErr returns a ParseError for the token at the 0-based column col.
func syntaxErr(col int, tok, format string, args ...any) *ParseError {
	return &ParseError{Column: col + 1, Token: tok, Err: ErrInvalidConfig, msg: fmt.Sprintf(format, args...)}
}

// clip shortens a token quoted in a message to 40 bytes.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// suggest returns ` (did you mean "x"?)` for the candidate nearest to w
// within an edit distance of 2 and below w's length, or "".
func suggest(w string, cands []string) string {
	if len(w) > 24 {
		return ""
	}
	lower := strings.ToLower(w)
	for _, c := range cands {
		if lower != w && c == lower {
			return fmt.Sprintf(" (did you mean %q? words are lowercase)", c)
		}
	}
	best, bestD := "", 3
	for _, c := range cands {
		if d := editDistance(w, c); d < len(w) && (d < bestD || (d == bestD && c < best)) {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and transpositions of adjacent
// bytes).
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
