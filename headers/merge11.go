package headers

import (
	"slices"
	"strings"
)

// item11 is one item of a draft 11 list: its text and its name, the
// sf-string it starts with, as written.
type item11 struct{ text, name string }

// split11 returns the items of v, a list validList read with shape s.
func split11(v string, s *listShape) []item11 {
	var out []item11
	for v = strings.TrimLeft(v, " \t"); v != ""; {
		n := validItem(v, s)
		if n < 0 {
			return out
		}
		out = append(out, item11{text: v[:n], name: v[:sfStringEnd(v)]})
		v = strings.TrimLeft(strings.TrimLeft(v[n:], " \t,"), " \t")
	}
	return out
}

// merge11 returns the draft 11 RateLimit-Policy and RateLimit lists of
// the held lists oPol and oRate (each valid or "") and the new nPol and
// nRate, with one item per name, as a single Writer writes them: the held
// items, then the new ones of other names. Of a name in both, the items
// kept are the stricter decision's, as its RateLimit items tell (less
// remaining, or as little and a later reset); without both, the held.
func merge11(oPol, oRate, nPol, nRate string) (pol, rate string) {
	op, or := split11(oPol, &policy11Shape), split11(oRate, &rate11Shape)
	np, nr := split11(nPol, &policy11Shape), split11(nRate, &rate11Shape)
	useNew := map[string]bool{}
	for _, n := range nr {
		for _, o := range or {
			if o.name == n.name {
				useNew[n.name] = rateTuple(n.text).stricter(rateTuple(o.text))
			}
		}
	}
	return join11(op, np, useNew), join11(or, nr, useNew)
}

// join11 joins the held items o, each replaced by the new one of its name
// if useNew says so, and the new items n of names o does not hold.
func join11(o, n []item11, useNew map[string]bool) string {
	var b strings.Builder
	add := func(s string) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	for _, it := range o {
		text := it.text
		if useNew[it.name] {
			for _, x := range n {
				if x.name == it.name {
					text = x.text
					break
				}
			}
		}
		add(text)
	}
	for _, it := range n {
		if !slices.ContainsFunc(o, func(x item11) bool { return x.name == it.name }) {
			add(it.text)
		}
	}
	return b.String()
}

// rateTuple reads the r and t of a RateLimit item.
func rateTuple(item string) tuple {
	if ts := items11(item); len(ts) == 1 {
		return ts[0]
	}
	return tuple{}
}
