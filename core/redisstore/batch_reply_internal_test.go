package redisstore

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// batchReplies returns each of the m requests' replies of a batch call: its
// record, or the text of its error (see errText).
func batchReplies(t *testing.T, cmd *redis.Cmd, m, record int, prefix string) []any {
	t.Helper()
	v, err := cmd.Result()
	require.NoError(t, err)
	var got []any
	switch rs := v.(type) {
	case string:
		require.Len(t, rs, m*record)
		for j := range m {
			got = append(got, rs[j*record:(j+1)*record])
		}
	case []any:
		require.Len(t, rs, m)
		for j, r := range rs {
			switch r := r.(type) {
			case string:
				got = append(got, r)
			case error:
				got = append(got, errText(r, prefix))
			default:
				t.Fatalf("reply %d: %v", j, r)
			}
		}
	default:
		t.Fatalf("batch reply %T", v)
	}
	return got
}
