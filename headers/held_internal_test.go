package headers

import (
	"testing"

	"github.com/floodgate-go/floodgate/internal/sftest"
)

// FuzzHeldGrammar holds the grammar of the held values Combine merges
// with to a strict structured-field parser (internal/sftest): a value
// validList or validDict7 reads is one it reads as that field, so that
// no held value kept makes a field no client parses.
func FuzzHeldGrammar(f *testing.F) {
	for _, v := range []string{`"a";q=1;w=2, "b";q=0;pk=:AAAA:`, `"a";r=0;t=5;pk=:AA==:`, `10;w=60, 5;w=1`,
		`limit=1, remaining=0, reset=9`, `"";q=0;pk=:0:`, " \"a\\\"\";r=1\t,\t\"b\";r=2\t"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		checks := []struct {
			shape *listShape
			check func(string) ([]sftest.Item, error)
		}{{&policy11Shape, sftest.CheckPolicy11}, {&rate11Shape, sftest.CheckRateLimit11}, {&policy67Shape, func(v string) ([]sftest.Item, error) {
			// (Combine keeps one item per quota: policy67.)
			return sftest.CheckListOf(v, sftest.IsNonNegInt, []string{"w"}, map[string]int64{"w": 1})
		}}}
		for _, c := range checks {
			if validList(v, c.shape) {
				if _, err := c.check(v); err != nil {
					t.Fatalf("validList %q, the strict parser: %v", v, err)
				}
			}
		}
		if validDict7(v) {
			if _, err := sftest.CheckRateLimit7(v); err != nil {
				t.Fatalf("validDict7 %q, the strict parser: %v", v, err)
			}
		}
	})
}
