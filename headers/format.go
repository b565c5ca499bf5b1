package headers

import "strconv"

// maxInt is the largest Integer of RFC 9651 Structured Fields (15 digits).
// Every integer written is clamped to [0, maxInt], so that every field is a
// valid Structured Field, and a valid delay-seconds or epoch whatever the
// Result holds.
const maxInt = 999_999_999_999_999

func clampInt(v int64) int64 {
	return min(max(v, 0), maxInt)
}

// appendInt appends v clamped to [0, maxInt]. Values below 100, the most
// common, skip strconv.
func appendInt(b []byte, v int64) []byte {
	v = clampInt(v)
	if v < 10 {
		return append(b, byte('0'+v))
	}
	if v < 100 {
		return append(b, byte('0'+v/10), byte('0'+v%10))
	}
	return strconv.AppendInt(b, v, 10)
}

const hexDigits = "0123456789abcdef"

// appendSFString appends name as an RFC 9651 sf-string. '"' and '\' are
// escaped with '\'. The bytes an sf-string cannot hold — controls, DEL and
// all of non-ASCII, so UTF-8 too — are percent-encoded as %xx, and so is
// '%' itself, so that distinct names stay distinct (the rule of RFC 9651
// Display Strings).
func appendSFString(b []byte, name string) []byte {
	b = append(b, '"')
	plain := true
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '"' || c == '\\' || c == '%' || c < 0x20 || c > 0x7e {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, name...)
		return append(b, '"')
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '%' || c < 0x20 || c > 0x7e:
			b = append(b, '%', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
