package benchmarks

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// probeOrder and scaleProbes visit every key once, in copies of their own,
// two in a row never closer than a quarter of the keys.
func TestProbeOrder(t *testing.T) {
	for _, n := range []int{1, 2, 7, 768, 10_000, 100_000} {
		keys := keyNames(n)
		probes := probeOrder(keys)
		for i, p := range probes {
			k := keys[i*probeStep(n)%n]
			require.Equal(t, k, p)
			require.NotSame(t, unsafe.StringData(k), unsafe.StringData(p), "n %d: probe %d shares its key's bytes", n, i)
			if i > 0 && n > 2 {
				d := (i*probeStep(n)%n - (i-1)*probeStep(n)%n + n) % n
				require.True(t, d > n/4 && d < n-n/4, "n %d: probes %d and %d are %d keys apart", n, i-1, i, d)
			}
		}
		sorted := slices.Clone(probes)
		slices.Sort(sorted)
		want := slices.Clone(keys)
		slices.Sort(want)
		require.Equal(t, want, sorted, "n %d", n)

		all := scaleKeys(n)
		sp := scaleProbes(all, n)
		for i := range n {
			require.Equal(t, scaleKey(all, i*probeStep(n)%n), scaleKey(sp, i))
		}
	}
}
