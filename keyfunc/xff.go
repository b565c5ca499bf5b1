package keyfunc

import (
	"iter"
	"net/netip"
	"strings"
)

// xffEntries yields the entries of the X-Forwarded-For header lines, merged in
// order and split on commas, from the right-most one to the left-most one.
// Each entry comes with whether it is a usable address. Entries are parsed
// only as they are reached.
func xffEntries(lines []string) iter.Seq2[netip.Addr, bool] {
	return func(yield func(netip.Addr, bool) bool) {
		for i := len(lines) - 1; i >= 0; i-- {
			line := lines[i]
			for {
				j := strings.LastIndexByte(line, ',')
				a, ok := parseNode(trimOWS(line[j+1:]), false)
				if !yield(a, ok) {
					return
				}
				if j < 0 {
					break
				}
				line = line[:j]
			}
		}
	}
}
