package login

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"slices"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

var update = flag.Bool("update", false, "rewrite primary_table.go from golang.org/x/text/collate")

// TestPrimaryTableIsCollates checks that primaryFold is the table
// golang.org/x/text/collate's root collation gives at primary strength
// (rewrite it with go test -run TestPrimaryTableIsCollates -update after
// an x/text upgrade), and that the default normalization gives every code
// point the primary key it had and every code point of one primary key one
// name.
func TestPrimaryTableIsCollates(t *testing.T) {
	table, groups := buildPrimaryFold()
	reorder, contract := buildContractions(t)
	if *update {
		require.NoError(t, os.WriteFile("primary_table.go", primaryTableSource(table, reorder, contract), 0o644))
	}
	const stale = "primary_table.go is stale: go test -run TestPrimaryTableIsCollates -update"
	require.Equal(t, table, primaryFold, stale)
	require.Equal(t, reorder, primaryReorder, stale)
	require.Equal(t, contract, primaryContract, stale)
	key := primaryKeyer()
	for _, m := range []map[rune]string{reorder, contract} {
		for x, ys := range m {
			for _, y := range ys {
				pair := string([]rune{x, y})
				require.Equal(t, key(pair), key(NormalizeUsername(pair)), "%q", pair)
			}
		}
	}
	for k, rs := range groups {
		want := NormalizeUsername(string(rs[0]))
		require.Equal(t, k, key(want), "%q, normalized %q", string(rs[0]), want)
		for _, r := range rs[1:] {
			require.Equal(t, want, NormalizeUsername(string(r)), "%q and %q have one primary key", string(rs[0]), string(r))
		}
	}
}

// primaryKeyer returns a function giving a string's primary collation key
// in CLDR's root collation.
func primaryKeyer() func(string) string {
	col := collate.New(language.Und, collate.Loose)
	var buf collate.Buffer
	return func(s string) string {
		buf.Reset()
		return string(col.KeyFromString(&buf, s))
	}
}

// buildPrimaryFold returns the primary-strength folding (see primary) and
// the code points it was built from, by primary key: every graphic code
// point that the rest of the default normalization leaves as it is, grouped
// by its primary key. A group's code points map to its least one, or, when
// its key is the concatenation of others' keys ("æ": "a" then "e"), to the
// least code points of those; a code point without a primary weight maps
// to nothing.
func buildPrimaryFold() (map[rune]string, map[string][]rune) {
	key := primaryKeyer()
	base := func(s string) string { n, _ := normalizeBy(s, -1, nil); return n }
	groups := map[string][]rune{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if s := string(r); unicode.IsGraphic(r) && base(s) == s {
			groups[key(s)] = append(groups[key(s)], r)
		}
	}
	table := map[rune]string{}
	for k, rs := range groups {
		to := string(rs[0])
		if c, ok := splitKey(k, groups); k == "" || ok && base(c) == c && key(c) == k {
			to = c
		}
		for _, r := range rs {
			if string(r) != to {
				table[r] = to
			}
		}
	}
	return table, groups
}

// contractionRanges are the code points buildContractions looks for
// contractions among: a scan of every pair of code points of planes 0 to 2
// that the rest of the normalization leaves as they are (a 6-minute run)
// found those of CLDR's root collation in these only: "l·" and the Thai,
// Lao and Tai Viet vowels written before their consonants (the Indic
// vowels in two parts are canonical compositions, which NFKC makes).
var contractionRanges = [][2]rune{{0x20, 0x250}, {0x0e00, 0x0f00}, {0xaa80, 0xaae0}}

// buildContractions returns the contractions of CLDR's root collation at
// primary strength among contractionRanges, by their first code point and
// as the followers they take: those weighed as the follower then the first
// ("เก" as "ก" then "เ") and those weighed as the first alone ("l·" as
// "l"). It fails t on a contraction of another kind.
func buildContractions(t *testing.T) (reorder, contract map[rune]string) {
	key := primaryKeyer()
	var rs []rune
	for _, rg := range contractionRanges {
		for r := rg[0]; r < rg[1]; r++ {
			if s := string(r); unicode.IsGraphic(r) && NormalizeUsername(s) == s {
				rs = append(rs, r)
			}
		}
	}
	keys := make(map[rune]string, len(rs))
	for _, r := range rs {
		keys[r] = key(string(r))
	}
	reorder, contract = map[rune]string{}, map[rune]string{}
	for _, x := range rs {
		for _, y := range rs {
			switch k := key(string([]rune{x, y})); {
			case k == keys[x]+keys[y]:
			case k == keys[y]+keys[x]:
				reorder[x] += string(y)
			case k == keys[x] && keys[y] != "":
				contract[x] += string(y)
			default:
				t.Errorf("%q%q: a contraction of an unknown kind", string(x), string(y))
			}
		}
	}
	return reorder, contract
}

// splitKey returns the least code points of the groups whose keys, in
// order, make k, split as finely as they can be (so that none of them is
// split again): false when k is not made of two keys or more.
func splitKey(k string, groups map[string][]rune) (string, bool) {
	if k == "" {
		return "", true
	}
	// most[i]: the most keys k[:i] is made of (-1: none); from[i]: where
	// the last of them starts.
	most, from := make([]int, len(k)+1), make([]int, len(k)+1)
	for i := 1; i <= len(k); i++ {
		most[i] = -1
		for j := range i {
			if _, ok := groups[k[j:i]]; ok && most[j] >= 0 && (i-j < len(k)) && most[j]+1 > most[i] {
				most[i], from[i] = most[j]+1, j
			}
		}
	}
	if most[len(k)] < 2 {
		return "", false
	}
	var parts []string
	for i := len(k); i > 0; i = from[i] {
		parts = append(parts, string(groups[k[from[i]:i]][0]))
	}
	slices.Reverse(parts)
	var b bytes.Buffer
	for _, p := range parts {
		b.WriteString(p)
	}
	return b.String(), true
}

// primaryTableSource returns the Go source of primary_table.go.
func primaryTableSource(table, reorder, contract map[rune]string) []byte {
	var b bytes.Buffer
	b.WriteString(`// Code generated by go test -run TestPrimaryTableIsCollates -update; DO NOT EDIT.

package login

// primaryFold is the primary-strength folding of the default normalization
// (see primary): each code point that CLDR's root collation (as
// golang.org/x/text/collate gives it) takes at primary strength for
// another, or for a string of others, mapped to the least of them; those
// without a primary weight mapped to "".
var primaryFold = map[rune]string{
`)
	writeMap(&b, table, 6)
	b.WriteString(`}

// primaryReorder gives, for each vowel CLDR's root collation weighs after the
// consonant it is written before (Thai, Lao, Tai Viet), those consonants
// (see contract).
var primaryReorder = map[rune]string{
`)
	writeMap(&b, reorder, 1)
	b.WriteString(`}

// primaryContract gives, for each code point that CLDR's root collation
// reads with a follower as itself alone at primary strength ("l·" as "l"),
// those followers (see contract).
var primaryContract = map[rune]string{
`)
	writeMap(&b, contract, 1)
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		panic(err)
	}
	return src
}

// writeMap writes m's entries to b in code point order, perLine a line.
func writeMap(b *bytes.Buffer, m map[rune]string, perLine int) {
	keys := make([]rune, 0, len(m))
	for r := range m {
		keys = append(keys, r)
	}
	slices.Sort(keys)
	for i, r := range keys {
		fmt.Fprintf(b, "%+q: %+q,", r, m[r])
		if i%perLine == perLine-1 || i == len(keys)-1 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
}
