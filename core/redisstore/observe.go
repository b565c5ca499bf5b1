package redisstore

import (
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// instances numbers the stores made, for core.StoreEvent.Instance.
var instances atomic.Uint64

// Kind returns "redis": the store's kind as a [core.Observer] sees it.
func (s *Store) Kind() string { return "redis" }

// notify tells Options.Observer of a change of the store's state.
func (s *Store) notify(c core.StoreChange, err error) {
	if s.opts.Observer == nil {
		return
	}
	s.opts.Observer.StoreChanged(core.StoreEvent{
		Store: s.Kind(), Instance: s.instance, Change: c, Mode: s.opts.FailureMode.String(), Fallback: s.opts.FailureMode != FailClosed,
		Err: err, At: time.Now(),
	})
}
