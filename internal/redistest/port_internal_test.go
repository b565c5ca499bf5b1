package redistest

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStartRefusesAnotherServer: a server started on a port another
// redis-server already holds (two parallel starts handed one port) is not
// taken for started, since the one answering is not the one started.
func TestStartRefusesAnotherServer(t *testing.T) {
	first := Start(t)
	second := &Server{t: t, port: first.port}
	second.args = []string{"--port", strconv.Itoa(first.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir()}
	err := second.start()
	second.Kill()
	require.ErrorContains(t, err, "another redis-server")
	require.NoError(t, first.Client(t).Ping(t.Context()).Err(), "the first server is untouched")
}
