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
	if cap(b)-len(b) < 16 {
		b = slices.Grow(b, 16)
	}
	// Eight digits at a time, each group stored by one write of eight
	// bytes (which may pass the digits appended: within b's capacity, and
	// overwritten or beyond its length): the first group shifted past its
	// leading zeros, which are the low zero bytes of its digits' values.
	first, rest := u, uint64(0)
	at := len(b)
	if u >= 1e8 {
		first, rest = u/1e8, u%1e8
		if first < 100 {
			// Nine or ten digits, as Unix seconds and large quotas
			// have: the first one or two from a table.
			p := b[at : at+10]
			n := 0
			if first >= 10 {
				p[0], n = digitPairs[2*first], 1
			}
			p[n] = digitPairs[2*first+1]
			binary.LittleEndian.PutUint64(p[n+1:n+9], eightDigits(rest))
			return b[:at+n+9]
		}
	}
	d := eightDigits(first)
	zeros := uint(bits.TrailingZeros64(d&0x0f0f0f0f_0f0f0f0f)) &^ 7
	binary.LittleEndian.PutUint64(b[at:at+8], d>>zeros)
	at += 8 - int(zeros/8)
	if u >= 1e8 {
		binary.LittleEndian.PutUint64(b[at:at+8], eightDigits(rest))
		at += 8
	}
	return b[:at]
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
