package promobserve_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/floodgate-go/floodgate/observe/promobserve"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refusingRegisterer registers into a real registry but refuses its
// refuse-th Register (from 1), as a registry holding that metric already
// does, and counts the collectors it holds.
type refusingRegisterer struct {
	reg    *prometheus.Registry
	refuse int
	calls  int
	held   map[prometheus.Collector]bool
}

func (r *refusingRegisterer) Register(c prometheus.Collector) error {
	r.calls++
	if r.calls == r.refuse {
		return prometheus.AlreadyRegisteredError{ExistingCollector: c, NewCollector: c}
	}
	if err := r.reg.Register(c); err != nil {
		return err
	}
	r.held[c] = true
	return nil
}

func (r *refusingRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

func (r *refusingRegisterer) Unregister(c prometheus.Collector) bool {
	if !r.held[c] {
		return false
	}
	delete(r.held, c)
	return r.reg.Unregister(c)
}

// TestAttackObs37FailedNewLeavesNothingRegistered: New registers its seven
// collectors one by one. When the registry refused one (a metric of that
// name registered already: another library's floodgate_store_up, an
// Observer made earlier), New failed, but the collectors registered before
// it stayed in the registry, owned by no Observer: the operator who frees
// the name and calls New again gets "duplicate metrics collector
// registration attempted" for metrics nothing of theirs holds. Refusing the
// k-th of the seven left k-1 collectors behind: 21 in all over the seven
// cases. And the error, client_golang's "duplicate metrics collector
// registration attempted", named no metric. Now a failed New unregisters
// what it registered, and its error names the metrics refused.
func TestAttackObs37FailedNewLeavesNothingRegistered(t *testing.T) {
	left := 0
	for k := 1; k <= 7; k++ {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			r := &refusingRegisterer{reg: prometheus.NewRegistry(), refuse: k, held: map[prometheus.Collector]bool{}}
			_, err := promobserve.New(r, promobserve.Options{})
			require.Error(t, err)
			var are prometheus.AlreadyRegisteredError
			assert.True(t, errors.As(err, &are), "the registry's error is wrapped: %v", err)
			assert.Contains(t, err.Error(), "floodgate_", "the error names the metric refused")
			left += len(r.held)
			assert.Empty(t, r.held, "collectors of the failed New left registered")

			r.refuse = 0
			_, err = promobserve.New(r, promobserve.Options{})
			require.NoError(t, err, "the name freed, New succeeds")
		})
	}
	assert.Zero(t, left, "collectors left behind over the seven refusals")
}
