package slogobserve_test

import (
	"context"
	"errors"
	"log"
	"log/slog"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/observe/slogobserve"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// records is a slog.Handler keeping the records it is given.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *records) Enabled(context.Context, slog.Level) bool { return true }
func (h *records) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, r.Clone())
	return nil
}
func (h *records) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *records) WithGroup(string) slog.Handler      { return h }

// TestAttackObs37NilLoggerFollowsDefault: New(nil) took slog.Default() as
// it was when New ran. An Observer made before main set its logger (a
// package-level variable, an init) logged to the default of then: its
// lines reached the logger main set only through the log package's
// bridge, as records of level INFO whose message held the text of the
// line, attributes and level in it: a store's error-reply line, at level
// ERROR, arrived as INFO with no "store" attribute, and an alert on
// level>=ERROR, or a filter on store=redis, missed 1 line of 1. Now a nil
// logger means slog.Default() when a line is logged.
func TestAttackObs37NilLoggerFollowsDefault(t *testing.T) {
	obs := slogobserve.New(nil) // before the application sets its logger
	prev, prevFlags, prevOut := slog.Default(), log.Flags(), log.Writer()
	t.Cleanup(func() {
		slog.SetDefault(prev)
		log.SetFlags(prevFlags)
		log.SetOutput(prevOut)
	})
	h := &records{}
	slog.SetDefault(slog.New(h))

	obs.StoreChanged(core.StoreEvent{Store: "redis", Instance: 1, Change: core.StoreErrorReply, Mode: "fail-open", Fallback: true, Err: errors.New("NOPERM")})
	h.mu.Lock()
	defer h.mu.Unlock()
	require.Len(t, h.recs, 1)
	r := h.recs[0]
	assert.Equal(t, slog.LevelError, r.Level, "the line's level")
	var store string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "store" {
			store = a.Value.String()
		}
		return true
	})
	assert.Equal(t, "redis", store, "the line's store attribute (message %q)", r.Message)
}
