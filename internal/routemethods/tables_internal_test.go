package routemethods

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// One adapter middleware mounted on two root routers (a public and an
// admin server) is asked for their tables in turn: each request took the
// mutex, a lock on the hot path. A router already read is now found
// without it: Of answers while the mutex is held (before, it waited for
// ever).
func TestTablesOfKnownRoutersTakesNoLock(t *testing.T) {
	t.Parallel()
	var ts Tables[string]
	list := func(string) []Route { return nil }
	a, b := ts.Of("public", list), ts.Of("admin", list)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for range 3 {
		assert.Same(t, a, ts.Of("public", list))
		assert.Same(t, b, ts.Of("admin", list))
	}
}
