package main

import (
	"bytes"
	"testing"

	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

const want = `3 slots, 10 parallel requests, refusing: 3 served (200), 7 refused (429, Retry-After 1), at most 3 at once
waiting up to a minute instead: 10 of 10 served, never more than 3 at once: true
after 4 panicking requests every slot is free again
`

func TestRunMemory(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, ""))
	require.Equal(t, want, out.String())
}

func TestRunRedis(t *testing.T) {
	srv := redistest.Start(t)
	var out bytes.Buffer
	require.NoError(t, run(&out, srv.Addr()))
	require.Equal(t, want, out.String())
}
