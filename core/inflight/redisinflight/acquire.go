package redisinflight

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redisfault"
)

// Acquire takes a slot of key, or fails at once with inflight.ErrFull
// when Limit leases of key are live. When Redis cannot decide, the
// failure mode answers (see the package documentation).
func (l *Limiter) Acquire(ctx context.Context, key string) (*inflight.Slot, error) {
	s, _, err := l.try(ctx, key)
	return s, err
}

// try takes a slot of key. When every slot is held it returns
// inflight.ErrFull and the time until the first lease ends.
func (l *Limiter) try(ctx context.Context, key string) (*inflight.Slot, time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	rk, member := l.redisKey(key), newMember()
	v, err := l.call(ctx, func(ctx context.Context) (any, error) {
		return acquireScript.Run(ctx, l.client, []string{rk}, l.limit, l.leaseUS, member, l.now()).Result()
	})
	if err != nil {
		s, err := l.fallback(ctx, key, err)
		return s, 0, err
	}
	r, ok := v.([]any)
	if !ok || len(r) < 2 {
		return nil, 0, fmt.Errorf("redisinflight: unexpected reply %v", v)
	}
	if r[0] == int64(1) {
		return l.slot(key, rk, member), 0, nil
	}
	var wait time.Duration
	if len(r) == 3 {
		if us, ok := r[2].(int64); ok && us > 0 {
			wait = time.Duration(us) * time.Microsecond
		}
	}
	return nil, wait, inflight.ErrFull
}

// now is the script's clock argument: "" for Redis TIME.
func (l *Limiter) now() string {
	if l.opts.Clock == nil {
		return ""
	}
	return strconv.FormatInt(l.opts.Clock.Now().UnixMicro(), 10)
}

// redisKey is the sorted set of key's leases under this limiter's limit.
func (l *Limiter) redisKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return l.opts.Prefix + "c{" + hex.EncodeToString(h[:16]) + l.keyEnd
}

// newMember names a lease: 128 random bits.
func newMember() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics rather)
	return hex.EncodeToString(b[:])
}

// fallback answers an Acquire that met err: the caller's own end, a key
// conflict or another error reply that is not a fault (an error, or
// FailOpen's slot), or a fault decided by the failure mode.
func (l *Limiter) fallback(ctx context.Context, key string, err error) (*inflight.Slot, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if l.opts.OnError != nil && !errors.Is(err, errShed) {
		l.opts.OnError(err)
	}
	fault := false
	switch classify(err) {
	case redisfault.Conflict:
		err = fmt.Errorf("redisinflight: %w: %w", redisstore.ErrKeyConflict, err)
	case redisfault.Other:
		err = fmt.Errorf("redisinflight: %w", err)
	default:
		err, fault = unavailable(err), true
	}
	switch l.opts.FailureMode {
	case redisstore.FailOpen:
		return inflight.NewSlot(func(context.Context) error { return nil }, nil), nil
	case redisstore.FailLocal:
		if fault {
			s, lerr := l.local.Acquire(ctx, key)
			if lerr != nil {
				return nil, lerr
			}
			return inflight.NewSlot(func(ctx context.Context) error {
				defer l.wake(key)
				return s.Release(ctx)
			}, nil), nil
		}
	}
	return nil, err
}
