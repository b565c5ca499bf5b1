package redisstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// panicky is an Observer whose StoreChanged panics (an application's
// exporter with a bug).
type panicky struct{}

func (panicky) Decided(context.Context, core.Decision) {}
func (panicky) StoreChanged(core.StoreEvent)           { panic("exporter bug") }

// TestAttackPanickingObserverKeepsTheProcess: the store reports its
// changes from its pipeline workers, background goroutines: an Observer
// (or OnSwitch) that panicked there crashed the whole process at the first
// Redis outage (the test binary died: "panic: exporter bug"). The panic is
// now recovered and logged; the store switches to its failure mode and
// back as ever.
func TestAttackPanickingObserverKeepsTheProcess(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	s, logs := faultStore(t, patientClient(t, p.Addr()), redisstore.Options{
		FailureMode: redisstore.FailLocal, LocalShare: 1, Timeout: noDeadline, Observer: panicky{},
		OnSwitch: func(redisstore.Switch) { panic("hook bug") },
	})
	l := faultLimiter(t, s, wide)
	ctx := context.Background()
	_, err := l.Allow(ctx, "k")
	require.NoError(t, err)

	cutOff(t, p, s, l)
	p.Refuse(false)
	i := 0
	within.Until(t, "the store back on Redis", func() bool {
		if !s.Down() {
			return true
		}
		i++
		_, _ = l.Allow(ctx, fmt.Sprint("up", i))
		return false
	})
	assert.Equal(t, 2, logs.count("Options.Observer panicked"), "down and up")
	assert.Equal(t, 2, logs.count("Options.OnSwitch panicked"), "down and up")
}
