package login_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// floodFail makes one failed attempt of user from addr and reports whether
// the guard let it be checked.
func floodFail(t *testing.T, g *login.Guard, user, addr string) bool {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/login", nil)
	r.RemoteAddr = addr
	a, err := g.Begin(context.Background(), user, r)
	if errors.Is(err, login.ErrThrottled) {
		return false
	}
	require.NoError(t, err)
	a.Failed()
	return true
}

func floodAddr(i int) string { return fmt.Sprintf("10.%d.%d.%d:4000", i>>16&255, i>>8&255, i&255) }

// A flood of twice the store's capacity in distinct usernames, one failed
// attempt each from distinct addresses, neither erases an account's
// lockout nor shuts new users out: the memory store with default options
// (but a small MaxKeys) keeps the locked account locked, and every new
// user's attempts are decided as by a fresh guard.
func TestFloodOfUsernamesKeepsLockout(t *testing.T) {
	const maxKeys = 4096
	clk := coretest.NewClock(t0)
	ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: maxKeys})
	require.NoError(t, err)
	g, err := login.New(login.Options{Store: ms, Clock: clk})
	require.NoError(t, err)

	// Free failures pass, the next passes and locks the account.
	free := login.DefaultAccount.Free
	for i := int64(0); i <= free; i++ {
		require.True(t, floodFail(t, g, "alice", "192.0.2.1:4000"), "failure %d", i)
	}
	require.False(t, floodFail(t, g, "alice", "192.0.2.1:4000"), "alice is locked")

	for i := 0; i < 2*maxKeys; i++ {
		clk.Advance(time.Microsecond)
		require.True(t, floodFail(t, g, fmt.Sprint("flood-", i), floodAddr(i)))
	}
	require.False(t, floodFail(t, g, "alice", "192.0.2.2:4000"), "the flood erased alice's lockout")

	// New users, each from its own address, get their free failures and
	// the one that locks, then are locked: exactly as without a flood.
	normal := 0
	const newcomers = 1000
	for i := 0; i < newcomers; i++ {
		clk.Advance(time.Microsecond)
		user, addr := fmt.Sprint("new-", i), floodAddr(1<<20+i)
		ok := true
		for j := int64(0); j <= free; j++ {
			ok = ok && floodFail(t, g, user, addr)
		}
		if ok && !floodFail(t, g, user, addr) {
			normal++
		}
	}
	assert.GreaterOrEqual(t, normal, newcomers*99/100)
	require.False(t, floodFail(t, g, "alice", "192.0.2.3:4000"), "new users erased alice's lockout")
}
