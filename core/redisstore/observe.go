package redisstore

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// instances numbers the stores made, for core.StoreEvent.Instance.
var instances atomic.Uint64

// Kind returns "redis": the store's kind as a [core.Observer] sees it.
func (s *Store) Kind() string { return "redis" }

// notify tells Options.Observer of a change of the store's state; once
// the store is closed, of nothing more (see Store.Close).
func (s *Store) notify(c core.StoreChange, err error) {
	if s.opts.Observer == nil || s.gone.Load() && c != core.StoreClosed {
		return
	}
	defer s.recoverHook("Options.Observer", c)
	s.opts.Observer.StoreChanged(core.StoreEvent{
		Store: s.Kind(), Instance: s.instance, Change: c, Mode: s.opts.FailureMode.String(), Fallback: s.opts.FailureMode != FailClosed,
		Err: err, At: time.Now(),
	})
}

// recoverHook recovers a panic of the application's hook (an Observer,
// OnSwitch) told of change c, and logs it: the store reports its changes
// from its pipeline workers, background goroutines, where a panic would
// end the process.
func (s *Store) recoverHook(hook string, c core.StoreChange) {
	if v := recover(); v != nil {
		s.logger().Error("redisstore: "+hook+" panicked; the store goes on", "change", c.String(), "panic", fmt.Sprint(v))
	}
}
