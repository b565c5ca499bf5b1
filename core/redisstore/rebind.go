package redisstore

import (
	"fmt"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
)

// Rebind returns a table that decides p on the keys t decides on: the
// same Redis keys, read by p's script (see core.Rebinder; core.Limiter's
// SetPolicy checks that p keeps the state's shape). The scripts keep every
// algorithm's state in units that do not depend on its parameters (an
// instant, a count, tokens, permits, a log of instants), so the state is
// read as it stands. The new table's deny cache starts empty: what the
// old one holds was decided under t's limits (a raised limit would deny
// too long), and it admits nothing by itself. The FailLocal limiter is
// kept, moved to p's scaled limits (see localState): a new one would grant
// this process a fresh share of every limit at each change, during an
// outage. A change it cannot read its state under is refused.
func (t *table) Rebind(p *core.Policy) (store.Table, error) {
	nt, err := t.s.Bind(p)
	if err != nil {
		return nil, err
	}
	n := nt.(*table)
	n.fp, n.fpSum = t.fp, t.fpSum
	if t.local != nil {
		n.local, n.gen = t.local, t.local.gens.Add(1)
		if t.local.cur.Load() != nil {
			// Moved now, so that a change the local state cannot be read
			// under is refused here rather than at the next fault.
			if _, err := n.local.table(n); err != nil {
				return nil, fmt.Errorf("redisstore: policy %q: the FailLocal limiter: %w", p.Name(), err)
			}
		}
	}
	return n, nil
}

// CheckRebind returns the error Rebind(p) would return, changing nothing
// (see core.Rebinder): core.Limiter.CheckPolicy asks it, so that a reload
// refused here is refused before any limiter changes.
func (t *table) CheckRebind(p *core.Policy) error {
	if err := t.s.CheckBind(p); err != nil {
		return err
	}
	if t.local == nil {
		return nil
	}
	if lt := t.local.cur.Load(); lt != nil {
		scaled, err := ScalePolicy(p, t.s.opts.LocalShare)
		if err != nil {
			return err
		}
		// The move Rebind makes, on a copy: a memory table's Rebind
		// leaves the receiver as it is.
		if _, err := lt.t.(core.Rebinder).Rebind(scaled); err != nil {
			return fmt.Errorf("redisstore: policy %q: the FailLocal limiter: %w", p.Name(), err)
		}
	}
	return nil
}

// CheckBind returns the error Bind(p) would return, binding nothing:
// core.Limiter.CheckPolicy asks it for the shadow limits of a changed
// policy.
func (s *Store) CheckBind(p *core.Policy) error {
	if p == nil {
		return fmt.Errorf("redisstore: nil policy: %w", core.ErrInvalidConfig)
	}
	if s == nil || s.client == nil {
		return fmt.Errorf("redisstore: nil or zero Store (make it with New): %w", core.ErrInvalidConfig)
	}
	if _, err := compile(p); err != nil {
		return err
	}
	if s.opts.FailureMode == FailLocal {
		if _, err := ScalePolicy(p, s.opts.LocalShare); err != nil {
			return err
		}
	}
	return nil
}
