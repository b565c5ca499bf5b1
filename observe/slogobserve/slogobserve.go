// Package slogobserve logs the state changes of floodgate's stores with
// log/slog: one line per change (Redis unreachable, back, a slow link, a
// key conflict, an evicting Redis, decisions failing with an error reply,
// a store closed while unreachable or slow), never a line per request.
//
// Give its Observer to the stores (redisstore.Options.Observer) and, if
// convenient, to the limiters too (core.WithObserver): it ignores
// decisions. It repeats nothing a store reports twice: a change already
// logged (Redis unreachable, reported again before it came back, say) is
// not logged again. Stores of one kind are told apart by their instance
// (core.StoreEvent.Instance, logged as "instance"): each one's changes are
// logged. (The Redis store also logs its changes to its own
// Options.Logger; use one or the other.)
package slogobserve

import (
	"context"
	"log/slog"
	"sync"

	"github.com/floodgate-go/floodgate/core"
)

// Observer is a [core.Observer] logging store changes to a [slog.Logger].
// It is safe for concurrent use.
type Observer struct {
	log *slog.Logger // nil: slog.Default() when a line is logged

	mu    sync.Mutex
	state map[aspect]core.StoreChange // the last change logged, per store and aspect
}

// aspect is one side of a store's state: reachability, speed, or a
// one-off warning (a key conflict, eviction).
type aspect struct {
	store    string
	instance uint64 // core.StoreEvent.Instance: each store of a kind has its own state
	kind     uint8
}

// New returns an Observer logging to l; nil means slog.Default() when a
// line is logged, not when New runs: an Observer made before the
// application sets its logger (a package-level variable) logs to that
// logger, with its levels and attributes, never through the log package's
// bridge, which makes every line an INFO record of text.
func New(l *slog.Logger) *Observer {
	return &Observer{log: l, state: map[aspect]core.StoreChange{}}
}

// logger returns the logger to log to.
func (o *Observer) logger() *slog.Logger {
	if o.log == nil {
		return slog.Default()
	}
	return o.log
}

// Decided does nothing: decisions are never logged.
func (*Observer) Decided(context.Context, core.Decision) {}

// StoreChanged logs e, unless it repeats the last change logged of the
// same store and aspect: unreachable, a slow link, a key conflict and an
// evicting backend at level Warn, decisions failing with an error reply at
// Error, the store reachable again, the slow link's end and a store closed
// while unreachable or slow at Info (a store closed forgets what was
// logged of it).
func (o *Observer) StoreChanged(e core.StoreEvent) {
	a, level, msg := aspect{store: e.Store, instance: e.Instance}, slog.LevelWarn, ""
	switch e.Change {
	case core.StoreUnreachable:
		a.kind, msg = 1, "floodgate: store unreachable"
	case core.StoreReachable:
		a.kind, level, msg = 1, slog.LevelInfo, "floodgate: store reachable again"
	case core.StoreSlow:
		a.kind, msg = 2, "floodgate: store round trip not below its deadline"
	case core.StoreSlowEnded:
		a.kind, level, msg = 2, slog.LevelInfo, "floodgate: store round trip below its deadline again"
	case core.StoreKeyConflict:
		a.kind, msg = 3, "floodgate: a key of the store holds another type: something else writes under its prefix"
	case core.StoreEvicting:
		a.kind, msg = 4, "floodgate: the store's backend may evict limiter keys under memory pressure"
	case core.StoreErrorReply:
		a.kind, level, msg = 5, slog.LevelError, "floodgate: decisions fail with an error reply from the store's backend (fail-open admits them all)"
	case core.StoreClosed:
		if o.forget(e.Store, e.Instance) {
			o.logger().LogAttrs(context.Background(), slog.LevelInfo,
				"floodgate: store closed (the outage or slow link logged ends with it)", o.attrs(e)...)
		}
		return
	default:
		return
	}
	o.mu.Lock()
	last, seen := o.state[a]
	if seen && last == e.Change {
		o.mu.Unlock()
		return
	}
	if !seen && e.Change == core.StoreReachable || !seen && e.Change == core.StoreSlowEnded {
		// The end of something never logged: the store was fine.
		o.mu.Unlock()
		return
	}
	o.state[a] = e.Change
	o.mu.Unlock()
	o.logger().LogAttrs(context.Background(), level, msg, o.attrs(e)...)
}

// attrs returns the attributes e is logged with.
func (o *Observer) attrs(e core.StoreEvent) []slog.Attr {
	attrs := []slog.Attr{slog.String("store", e.Store), slog.String("change", e.Change.String())}
	if e.Instance != 0 {
		attrs = append(attrs, slog.Uint64("instance", e.Instance))
	}
	if e.Change == core.StoreUnreachable || e.Change == core.StoreErrorReply {
		attrs = append(attrs, slog.String("mode", e.Mode), slog.Bool("fallback", e.Fallback))
	}
	if e.Err != nil {
		attrs = append(attrs, slog.Any("err", e.Err))
	}
	return attrs
}

// forget drops what was logged of a closed store, and reports whether it
// was left unreachable or slow (its end is then worth a line).
func (o *Observer) forget(store string, instance uint64) (open bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for a, c := range o.state {
		if a.store == store && a.instance == instance {
			open = open || c == core.StoreUnreachable || c == core.StoreSlow
			delete(o.state, a)
		}
	}
	return open
}

var _ core.Observer = (*Observer)(nil)
