package headers

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// maxInt is the largest Integer of RFC 9651 Structured Fields (15 digits).
// Every integer written is clamped to [0, maxInt], so that every field is a
// valid Structured Field, and a valid delay-seconds or epoch whatever the
// Result holds.
const maxInt = 999_999_999_999_999

func clampInt(v int64) int64 {
	return min(max(v, 0), maxInt)
}

// appendInt appends v clamped to [0, maxInt], in decimal.
func appendInt(b []byte, v int64) []byte {
	u := uint64(clampInt(v))
	if u < 10 {
		return append(b, byte('0'+u))
	}
	n := decimalLen(u)
	if cap(b)-len(b) < 16 {
		b = slices.Grow(b, 16)
	}
	// Eight digits at a time, each stored in one write of eight bytes
	// (which may pass the n digits appended: within b's capacity, and
	// overwritten or beyond its length).
	at := len(b)
	if n > 8 {
		hi, lo := u/1e8, u%1e8
		binary.LittleEndian.PutUint64(b[at:at+8], eightDigits(hi)>>(8*(16-n)))
		at += n - 8
		u = lo
		n = 8
	}
	binary.LittleEndian.PutUint64(b[at:at+8], eightDigits(u)>>(8*(8-n)))
	return b[:at+n]
}

// eightDigits returns the eight decimal digits of x < 10^8, leading zeros
// included, as ASCII bytes in a word whose lowest byte is the first
// digit: x is split into halves of four digits in 32-bit lanes, each into
// pairs in 16-bit lanes, each into digits in 8-bit lanes, by multiplying
// and shifting (n*10486>>20 is n/100 for n < 10^4, n*103>>10 is n/10 for
// n < 100; TestEightDigits checks every lane value).
func eightDigits(x uint64) uint64 {
	v := x/10000 | x%10000<<32
	h := v * 10486 >> 20 & 0x0000007f_0000007f
	v = h | (v-h*100)<<16
	t := v * 103 >> 10 & 0x000f000f_000f000f
	v = t | (v-t*10)<<8
	return v | 0x30303030_30303030
}

// decimalLen returns the number of decimal digits of u ≥ 10: from its bit
// length, log10(2) ≈ 1233/4096 gives the count or one more, which the
// power of ten below it tells apart.
func decimalLen(u uint64) int {
	n := bits.Len64(u)*1233>>12 + 1
	if u < pow10[n-1] {
		n--
	}
	return n
}

// pow10 holds the powers of ten up to 10^19.
var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

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
