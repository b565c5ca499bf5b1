package localfirst

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/floodgate-go/floodgate/internal/circuit"
	"github.com/floodgate-go/floodgate/internal/redischeck"
	"github.com/floodgate-go/floodgate/internal/redisfault"
)

// Errors of [Store.Check].
var (
	// ErrUnavailable is wrapped by Check's error when Redis does not
	// answer.
	ErrUnavailable = errors.New("localfirst: redis unavailable")
	// ErrTimeoutBelowRTT is wrapped by Check's error when the round trip
	// to Redis is not shorter than Options.Timeout: every round would fail.
	ErrTimeoutBelowRTT = errors.New("localfirst: Options.Timeout is not above the round trip to Redis")
	// ErrClockSkew is wrapped by Check's error when the store's clock
	// (Options.Clock) and Redis's differ by more than half a SyncPeriod.
	// The nodes' windows are aligned to their own clocks, and a skew adds
	// to the over-admission bound (δ and σ in the package documentation):
	// keep the nodes' clocks synchronised (NTP).
	ErrClockSkew = errors.New("localfirst: the node's clock is off Redis's by more than half a SyncPeriod")
)

// Check verifies that the store can sync, for use at start-up (a node
// that cannot still decides, on its shares: see "Stale views and Redis
// outages" in the package documentation):
//   - Redis answers (else an error wrapping [ErrUnavailable]);
//   - the shortest of three PINGs' round trips is below Options.Timeout
//     (else [ErrTimeoutBelowRTT]; a PING unanswered within Timeout wraps
//     both errors, as the store's client reads within Timeout and cannot
//     tell a round trip that long from a stall);
//   - the sync script runs: loaded, then called once on a hash of the
//     node's own, which it writes and then deletes (an ACL may forbid the
//     script, or its writes, while PING passes);
//   - the store's clock is within half a SyncPeriod of Redis's TIME, the
//     round trip's uncertainty allowed (else [ErrClockSkew]).
//
// A maxmemory-policy that may evict the store's keys is logged as a
// warning with slog's default logger, as is a Redis that does not let
// CONFIG read it. Check gives up after 4 × Timeout, or sooner by ctx.
func (s *Store) Check(ctx context.Context) error {
	caller := ctx
	ctx, cancel := context.WithTimeout(ctx, 4*s.opts.Timeout) // PINGs, load, probe, TIME
	defer cancel()
	_, err := redischeck.Check{
		What: "localfirst", Client: s.client, Timeout: s.opts.Timeout,
		Unavailable: ErrUnavailable, BelowRTT: ErrTimeoutBelowRTT, Unreachable: redisfault.Unreachable,
		Ready: func(ctx context.Context) error {
			if err := s.script.Load(ctx, s.client).Err(); err != nil && redisfault.Unreachable(err) {
				return fmt.Errorf("localfirst: start-up check: %w: %w", ErrUnavailable, err)
			}
			return nil
		},
		Probe: s.probe,
		Log:   slog.Default(),
	}.Run(ctx)
	if errors.Is(err, ErrUnavailable) && !ended(caller) && circuit.Soft(err) { // a deadline missed
		// (The caller's own deadline or cancellation is not the store's:
		// its error stays Redis unavailable.)
		// The client the store sends with reads within Timeout: a round
		// trip as long as Timeout is a timeout, as a stall is.
		return fmt.Errorf("%w (no reply within Timeout %v: a stalled Redis, or %w)", err, s.opts.Timeout, ErrTimeoutBelowRTT)
	}
	if err != nil {
		return err
	}
	return s.checkClock(ctx)
}

// probe runs the sync script once as a round runs it, on a hash of this
// node's own: a window item that pushes nothing and claims 0 of a room of
// 0 (it registers the node and writes its claim, as a round does: an ACL
// may let the script read and not write), then deletes the hash.
func (s *Store) probe(ctx context.Context) error {
	key := s.opts.Prefix + "{check}:" + s.id
	now, err := s.now()
	if err != nil {
		return err
	}
	args := []any{s.id, now / 1e6, s.life() / 1e6, s.horizon() / 1e6,
		time.Minute.Milliseconds(), 0, 0, 0, 0, // the hash: its TTL, no bucket parameters
		"w", 1, "probe", 0, 0, 1, 0} // the item: push 0, room 0, 1 node, no claim kept
	if err := s.script.Run(ctx, s.client, []string{key}, args...).Err(); err != nil {
		return err
	}
	return s.client.Del(ctx, key).Err()
}

// ended reports whether ctx is done or its deadline has passed (a read
// bounded by the deadline can time out before ctx's own timer marks it
// done).
func ended(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	return ctx.Err() != nil || ok && !time.Now().Before(dl)
}

// checkClock compares the store's clock with Redis's TIME.
func (s *Store) checkClock(ctx context.Context) error {
	before := s.opts.Clock.Now()
	redisNow, err := s.client.Time(ctx).Result()
	after := s.opts.Clock.Now()
	if err != nil {
		if redisfault.Unreachable(err) {
			return fmt.Errorf("localfirst: start-up check: %w: %w", ErrUnavailable, err)
		}
		return fmt.Errorf("localfirst: start-up check: TIME: %w", err)
	}
	rtt := after.Sub(before)
	skew := redisNow.Sub(before.Add(rtt / 2))
	if skew < 0 {
		skew = -skew
	}
	if skew-rtt/2 > s.opts.SyncPeriod/2 {
		return fmt.Errorf("localfirst: start-up check: the node's clock is %v off Redis's (round trip %v, SyncPeriod %v): %w",
			skew.Round(time.Millisecond), rtt, s.opts.SyncPeriod, ErrClockSkew)
	}
	return nil
}
