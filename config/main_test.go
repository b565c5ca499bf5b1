package config_test

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
)

// TestMain runs the tests without DNS. go-redis resolves a client's host
// name when the client is made (to classify the endpoint for maintenance
// notifications), for up to 2 s: the files the tests and the fuzzer parse
// name hosts such as "x", and a parse must not wait on, or depend on, the
// machine's resolver. Names in /etc/hosts (localhost) still resolve; any
// other lookup fails at once.
func TestMain(m *testing.M) {
	net.DefaultResolver.PreferGo = true
	net.DefaultResolver.Dial = func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("config tests: no DNS")
	}
	os.Exit(m.Run())
}
