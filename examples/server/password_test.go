package main

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoreURLPasswordNeverPrinted: -store takes a Redis URL, which may
// hold a password; the server prints its errors to stderr. The
// -require-redis start-up failure and -store's validation printed the
// whole URL, password included (found by an adversarial review); they
// print it redacted now.
func TestStoreURLPasswordNeverPrinted(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-s3cret"
	// A rejected URL (a database path) is quoted by checkStore.
	_, err := parseConfig([]string{"-store", "redis://:" + secret + "@127.0.0.1:6379/0"}, io.Discard)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), secret, "checkStore quotes the password")

	// A dead Redis under -require-redis: the start-up error quotes it.
	cfg, err := parseConfig([]string{"-addr", "127.0.0.1:0", "-store", "redis://:" + secret + "@127.0.0.1:1", "-require-redis"}, io.Discard)
	require.NoError(t, err)
	err = run(context.Background(), cfg, io.Discard)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), secret, "the -require-redis error quotes the password")
}

// TestTinyURLTimeoutRefused: the -store URL's query may set the client's
// timeouts. With read_timeout=1ns every round trip failed at once, and
// under -fail open a limit of 1 served 5 of 5 with Redis up and healthy
// (found by an adversarial review); the config package refused it, the
// server did not. A timeout below 1ms is now refused.
func TestTinyURLTimeoutRefused(t *testing.T) {
	t.Parallel()
	for _, q := range []string{"read_timeout=1ns", "write_timeout=999us", "dial_timeout=1ns"} {
		_, err := parseConfig([]string{"-store", "redis://127.0.0.1:6379/?" + q, "-fail", "open"}, io.Discard)
		require.Error(t, err, q)
		assert.Contains(t, err.Error(), "1ms or more", q)
	}
	_, err := parseConfig([]string{"-store", "redis://127.0.0.1:6379/?read_timeout=1ms"}, io.Discard)
	require.NoError(t, err)
}
