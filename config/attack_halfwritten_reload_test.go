package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// halfWrittenBase ends with its policies: a file written in place (not
// renamed) and read half-way through by a reload is a prefix of it.
const halfWrittenBase = `default: {policy: api}
routes:
  - {pattern: POST /login, policy: login}
policies:
  login: 3/15m
  api: 10/1h30m
`

// TestAttackHalfWrittenReloadRefused: a reload (on SIGHUP, say) that reads
// a file while it is being written in place sees a prefix of it. A prefix
// cut at a line break loses a policy or a section and is refused; one cut
// within the last value parsed as another value: "10/1h30m" read as
// "10/1h" was applied, a limit 1.5 times the file's (5 requests in 30
// minutes where the file allows 3), and a burst cut from "burst 150" to
// "burst 15" shuts clients out. A file that ends within a value, without
// a line break, is now refused and the running limits stay.
func TestAttackHalfWrittenReloadRefused(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	l := load(t, halfWrittenBase, clk)
	h := l.Handler(okHandler)
	path := filepath.Join(t.TempDir(), "limits.yaml")
	for _, cut := range []string{"10/1h", "10/1h3", "10/1h30", "10/1h30m # raised fr"} {
		full := halfWrittenBase[:len(halfWrittenBase)-len("10/1h30m\n")] + cut
		require.NoError(t, os.WriteFile(path, []byte(full), 0o600))
		err := l.Reload(path)
		if cut == "10/1h30m # raised fr" {
			assert.NoError(t, err, "cut within a comment: the value is whole")
			continue
		}
		require.Error(t, err, "cut at %q", cut) // (10/1h3, 10/1h30: not rates)
		if cut == "10/1h" {
			assert.Contains(t, err.Error(), "line break")
		}
	}
	require.Equal(t, 10, serve(h, "GET", "/", "192.0.2.1:1", 20))
	clk.Advance(30 * time.Minute) // 10/1h30m: a request every 9 minutes
	assert.Equal(t, 3, serve(h, "GET", "/", "192.0.2.1:1", 20), "the file's limits")

	// A rate ending the data may be cut short, whatever a tool that adds
	// no line break meant; a comment, a quoted rate, a closed flow mapping
	// and any other value ending the data (which a cut would make differ
	// from the running one: refused as a change) are not refused for it.
	require.NoError(t, l.ReloadData("test.yaml", []byte(halfWrittenBase+`  # end`)))
	require.NoError(t, l.ReloadData("test.yaml", []byte("policies:\n  login: 3/15m\n  api: 10/1h30m\n"+
		"routes:\n  - {pattern: POST /login, policy: login}\ndefault:\n  policy: api")))
	require.NoError(t, l.ReloadData("test.yaml", []byte(halfWrittenBase[:len(halfWrittenBase)-len("10/1h30m\n")]+`"10/1h30m"`)))
	require.NoError(t, l.ReloadData("test.json", []byte(`{"default": {"policy": "api"}, "routes": [{"pattern": "POST /login", "policy": "login"}], "policies": {"login": "3/15m", "api": "10/1h30m"}}`)))
}
