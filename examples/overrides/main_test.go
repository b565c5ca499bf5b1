package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDemo(t *testing.T) {
	clk := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	b := &billing{contracts: map[string]int64{"acme": 20}}
	o, h, err := newHandler(b, clk)
	require.NoError(t, err)
	var out strings.Builder
	demo(&out, h, o, b, clk)
	assert.Equal(t, `acme: 20 served, then 429 ("hour";q=20;w=3600)
globex: 5 served, then 429 ("hour";q=5;w=3600)
acme's contract raised to 30 an hour
acme: 10 served, then 429 ("hour";q=30;w=3600)
billing down
initech: 5 served, then 429 ("hour";q=5;w=3600)
acme: 0 served, then 429 ("hour";q=30;w=3600)
default raised to 8 an hour
globex: 3 served, then 429 ("hour";q=8;w=3600)
`, out.String())
}
