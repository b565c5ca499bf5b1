package config_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/config"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// examplePath is the example file of the schema, which examples/config
// serves.
const examplePath = "../examples/config/floodgate.yaml"

// accounts stands for an API-key store: key → account.
var accounts = map[string]string{"key-acme": "acme", "key-globex": "globex"}

var plans = map[string]string{"acme": "pro", "globex": "free", "initech": "enterprise"}

func account(r *http.Request) (string, bool) {
	a, ok := accounts[r.Header.Get("X-API-Key")]
	return a, ok
}

func plan(r *http.Request) (string, error) {
	a, ok := account(r)
	if !ok {
		return "", errors.New("no account")
	}
	return plans[a], nil
}

// options are the functions the example file names, and a clock.
func options(clk *coretest.Clock) config.Options {
	o := config.Options{
		Identities: map[string]func(*http.Request) (string, bool){"api-key": account, "tenant": account},
		Tiers:      map[string]func(*http.Request) (string, error){"plan": plan},
	}
	if clk != nil {
		o.Clock = clk
	}
	return o
}

// load parses src (named test.yaml) with options on clk, failing t on an
// error, and closes the Limiter at the end of the test.
func load(t *testing.T, src string, clk *coretest.Clock) *config.Limiter {
	t.Helper()
	l, err := config.Parse("test.yaml", []byte(src), options(clk))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, l.Close()) })
	return l
}

// client sends requests as one client.
type client struct {
	h      http.Handler
	remote string
	header map[string]string
}

func (c client) do(method, path string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	r.RemoteAddr = c.remote
	for k, v := range c.header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, r)
	return w
}

// served counts the requests served before the first refusal, up to n.
func (c client) served(method, path string, n int) int {
	for i := range n {
		if c.do(method, path).Code != http.StatusOK {
			return i
		}
	}
	return n
}

var ok = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })

func readExample(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(examplePath)
	require.NoError(t, err)
	return b
}
