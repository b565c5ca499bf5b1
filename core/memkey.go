package core

import "context"

// TakeBytes is [Limiter.Take] for a key held in bytes, for callers that
// build keys in a buffer they reuse: the in-memory store hashes the key
// where it lies, so that no string is made. It decides exactly as
// Take(ctx, string(key), cost, res) does: the same key, whose state the
// two share, and the same Result, which [Limiter.Refund] refunds under
// string(key). Other stores are given string(key). key is not retained.
func (l *Limiter) TakeBytes(ctx context.Context, key []byte, cost int64, res *Result) error {
	var b *binding
	if l != nil {
		b = l.cur.Load()
	}
	if b != nil && b.mem != nil && cost >= 1 && l.top == nil &&
		l.takeMem(ctx, b, "", key, b.mem.hashBytes(key), cost, res) {
		return nil
	}
	return l.Take(ctx, string(key), cost, res)
}

// takeMem is Take's hot path on the in-memory store of binding b, for key,
// of hash h (which the shadow limits' tables, of the same store, share): no
// Request built. key is read only by the heavy-hitter sketch (TakeBytes
// passes "" when there is none) and by a refund of a delay past ctx's
// [WithMaxDelay]; TakeBytes passes its bytes as kb, made a string only
// then. It reports false, deciding nothing, when the clock reads an
// instant out of range (Take's slow path reports it).
func (l *Limiter) takeMem(ctx context.Context, b *binding, key string, kb []byte, h uint64, cost int64, res *Result) bool {
	var now int64
	if l.clock == nil {
		now = systemNow()
	} else {
		now = clockNow(l.clock)
	}
	if now < 0 || now > maxInstant {
		return false
	}
	b.mem.take(h, now, cost, res)
	res.owner, res.source = l, SourceStore
	if b.policy.shapes {
		if kb != nil && res.Delay > 0 {
			key = string(kb) // (read only by a refund of the delay)
		}
		l.capDelay(ctx, key, res)
	}
	if l.post || b.shadow != nil {
		l.after(ctx, b, key, h, cost, res, 0, nil, true)
	}
	return true
}
