package redisstore

import (
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
)

// Rebind returns a table that decides p on the keys t decides on: the
// same Redis keys, read by p's script (see core.Rebinder; core.Limiter's
// SetPolicy checks that p keeps the state's shape). The scripts keep every
// algorithm's state in units that do not depend on its parameters (an
// instant, a count, tokens, permits, a log of instants), so the state is
// read as it stands. The new table's deny cache and FailLocal fallback
// start empty: what the old ones hold was decided under t's limits.
func (t *table) Rebind(p *core.Policy) (store.Table, error) {
	nt, err := t.s.Bind(p)
	if err != nil {
		return nil, err
	}
	n := nt.(*table)
	n.fp, n.fpSum = t.fp, t.fpSum
	return n, nil
}
