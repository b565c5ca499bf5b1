package redisstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCloseTellsTheObserver: a store closed while down tells its Observer
// core.StoreClosed, once, and nothing after it (decisions after Close
// fail without reporting the store down again), so that an exporter
// keeping the worst of a kind's stores does not keep a closed one down for
// the life of the process (see promobserve's
// TestAttackClosedStoreNotDownForever).
func TestCloseTellsTheObserver(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	obs := &coretest.Observer{}
	s, _ := faultStore(t, patientClient(t, p.Addr()), redisstore.Options{
		FailureMode: redisstore.FailLocal, LocalShare: 1, Timeout: noDeadline, Observer: obs,
	})
	l := faultLimiter(t, s, wide)
	ctx := context.Background()
	_, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	cutOff(t, p, s, l)

	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	for i := range 5 {
		_, _ = l.Allow(ctx, fmt.Sprint("closed", i))
	}
	var changes []core.StoreChange
	for _, e := range obs.Events() {
		changes = append(changes, e.Change)
	}
	assert.Equal(t, []core.StoreChange{core.StoreUnreachable, core.StoreClosed}, changes)
}
