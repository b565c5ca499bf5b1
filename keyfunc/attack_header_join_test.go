package keyfunc

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Header's documentation advised joining a header the service does not
// check with a ClientIP key, as if that bounded a client. It does not:
// one address sending 20 made-up values got 20 keys, each a budget of
// its own, exactly as with Header alone. What bounds such a client is
// keying its requests by what it cannot choose (First with a verified
// identity, then ClientIP), which the documentation now says.
func TestAttackHeaderJoinedWithClientIPIsStillAFreshBudgetPerValue(t *testing.T) {
	t.Parallel()
	joined := Join(Header("X-API-Key"), mustClientIP(t, IPOptions{}))
	keys := map[string]bool{}
	for i := range 20 {
		k, err := joined(newReq("198.51.100.7:1", "X-API-Key", fmt.Sprint("made-up-", i)))
		require.NoError(t, err)
		keys[k] = true
	}
	assert.Len(t, keys, 20, "one address, 20 made-up values: 20 budgets")
}
