package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The quickstart runs every algorithm, and each one both admits and denies.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	sections := strings.Split(strings.TrimSpace(out.String()), "\n\n")
	require.Len(t, sections, len(demos()))
	for _, s := range sections {
		assert.Contains(t, s, "allowed", s)
		assert.Contains(t, s, "DENIED", s)
	}
	// GCRA: 5 at once, then 2 denied with 2 s to wait (one unit per 2 s).
	assert.Contains(t, sections[0], "    0.0s  DENIED           0           2s")
}
