// Package httpsyntax checks the syntax of HTTP protocol elements.
package httpsyntax

// IsToken reports whether s is an HTTP token (RFC 9110 §5.6.2), as a
// field name or a method must be.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsTchar(s[i]) {
			return false
		}
	}
	return true
}

// IsTchar reports whether c may appear in a token.
func IsTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}
