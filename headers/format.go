package headers

// maxInt is the largest Integer of RFC 9651 Structured Fields (15 digits).
// Every integer written is clamped to [0, maxInt], so that every field is a
// valid Structured Field, and a valid delay-seconds or epoch whatever the
// Result holds.
const maxInt = 999_999_999_999_999

func clampInt(v int64) int64 {
	return min(max(v, 0), maxInt)
}

// appendInt appends v clamped to [0, maxInt], in decimal: two digits at
// a time, from the right, into a buffer as long as maxInt.
func appendInt(b []byte, v int64) []byte {
	u := uint64(clampInt(v))
	if u < 10 {
		return append(b, byte('0'+u))
	}
	var buf [15]byte
	i := len(buf)
	for u >= 100 {
		q := u / 100
		d := (u - q*100) * 2
		i -= 2
		buf[i], buf[i+1] = digitPairs[d], digitPairs[d+1]
		u = q
	}
	if u >= 10 {
		i -= 2
		buf[i], buf[i+1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		i--
		buf[i] = byte('0' + u)
	}
	return append(b, buf[i:]...)
}

// digitPairs holds the two digits of 00 to 99, in order.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

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
