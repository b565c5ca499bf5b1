package redisstore

import (
	"bytes"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// batchReplies returns each of the m requests' replies of a batch call (see
// batch.lua): its record or short record, or the text of its error (see
// errText).
func batchReplies(t *testing.T, cmd *redis.Cmd, m, record int, prefix string) []any {
	t.Helper()
	v, err := cmd.Text()
	require.NoError(t, err)
	r := []byte(v)
	var got []any
	for j := range m {
		require.NotEmpty(t, r, "reply %d", j)
		switch r[0] {
		case 'r':
			require.GreaterOrEqual(t, len(r), 1+record, "reply %d", j)
			got = append(got, string(r[1:1+record]))
			r = r[1+record:]
		case 'c':
			require.GreaterOrEqual(t, len(r), 1+shortRecord, "reply %d", j)
			got = append(got, string(r[1:1+shortRecord]))
			r = r[1+shortRecord:]
		case 'e':
			end := bytes.IndexByte(r, 0)
			require.Positive(t, end, "reply %d", j)
			got = append(got, errText(batchError(r[1:end]), prefix))
			r = r[end+1:]
		default:
			t.Fatalf("reply %d: %q", j, r)
		}
	}
	require.Empty(t, r, "the batch's reply holds m parts")
	return got
}
