package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
)

// failed decides req after its round trip returned err (see the package
// doc's Failures): a fault goes to the failure mode, a key conflict is an
// error (FailOpen's admission), any other error reply an error.
func (t *table) failed(ctx context.Context, req store.Request, err error) (store.Decision, error) {
	if ctx.Err() != nil && !errors.Is(err, errTimeout) {
		return store.Decision{}, err // the caller gave up
	}
	switch classify(err) {
	case classFault, classMissing:
		return t.fallback(ctx, req, err)
	case classConflict:
		t.s.stats.conflicts.Add(1)
		if t.s.stats.conflictLogged.CompareAndSwap(false, true) {
			t.s.logger().Error("redisstore: a key of the store holds another type (WRONGTYPE): something else writes under the prefix; such decisions fail",
				"prefix", t.s.opts.Prefix, "policy", t.p.Name(), "mode", t.s.opts.FailureMode.String())
			t.s.notify(core.StoreKeyConflict, err)
		}
		if t.s.opts.FailureMode == FailOpen {
			return t.open(req)
		}
		return store.Decision{}, fmt.Errorf("redisstore: policy %q: %w: %w", t.p.Name(), ErrKeyConflict, err)
	}
	if t.s.stats.otherLogged.CompareAndSwap(false, true) {
		// (An error reply that is not a fault, such as an ACL refusing
		// the script, fails every decision alike: under FailOpen, it
		// admits them all. Said once.)
		t.s.logger().Error("redisstore: decisions fail with an error reply; such decisions fail (FailOpen admits them)",
			"policy", t.p.Name(), "mode", t.s.opts.FailureMode.String(), "err", err)
		t.s.notify(core.StoreErrorReply, err)
	}
	if t.s.opts.FailureMode == FailOpen {
		return t.open(req)
	}
	return store.Decision{}, fmt.Errorf("redisstore: policy %q: %w", t.p.Name(), err)
}
