package keyfunc

import (
	"math/bits"
	"net/netip"
	"slices"
)

// coverAll reports whether the networks ps of one family (IPv4 when v4,
// else IPv6) together hold every address of it: 0.0.0.0/0, or
// 0.0.0.0/1 with 128.0.0.0/1, say.
func coverAll(ps []netip.Prefix, v4 bool) bool {
	type span struct{ lo, hi u128 }
	var spans []span
	for _, p := range ps {
		if p.Addr().Is4() != v4 {
			continue
		}
		lo := toU128(p.Masked().Addr())
		host := uint(p.Addr().BitLen() - p.Bits()) // bits of the host part
		spans = append(spans, span{lo, lo.or(ones(host))})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.lo.cmp(b.lo) })
	var next u128 // the first address not yet held
	last := ones(128)
	if v4 {
		last = ones(32)
	}
	for _, sp := range spans {
		if sp.lo.cmp(next) > 0 {
			return false // a gap before this network
		}
		if sp.hi == last {
			return true
		}
		if sp.hi.cmp(next) >= 0 {
			next = sp.hi.inc()
		}
	}
	return false
}

// u128 is an unsigned 128-bit number: an IPv6 address, or an IPv4 one in
// its low 32 bits.
type u128 struct{ hi, lo uint64 }

func toU128(a netip.Addr) u128 {
	if a.Is4() {
		b := a.As4()
		return u128{lo: uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])}
	}
	b := a.As16()
	var u u128
	for i := range 8 {
		u.hi = u.hi<<8 | uint64(b[i])
		u.lo = u.lo<<8 | uint64(b[8+i])
	}
	return u
}

// ones returns the number whose n low bits are set (n ≤ 128).
func ones(n uint) u128 {
	switch {
	case n >= 128:
		return u128{^uint64(0), ^uint64(0)}
	case n >= 64:
		return u128{^uint64(0) >> (128 - n), ^uint64(0)}
	case n == 0:
		return u128{}
	}
	return u128{0, ^uint64(0) >> (64 - n)}
}

func (u u128) or(v u128) u128 { return u128{u.hi | v.hi, u.lo | v.lo} }

func (u u128) inc() u128 {
	lo, carry := bits.Add64(u.lo, 1, 0)
	return u128{u.hi + carry, lo}
}

func (u u128) cmp(v u128) int {
	switch {
	case u.hi != v.hi:
		if u.hi < v.hi {
			return -1
		}
		return 1
	case u.lo < v.lo:
		return -1
	case u.lo > v.lo:
		return 1
	}
	return 0
}
