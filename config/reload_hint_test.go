package config_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A reload whose limit change the kept counts cannot be read under (another
// algorithm) said only "policy change not applicable to the kept state":
// the error now says the running limits stay and what applies the change.
func TestReloadRefusedChangeSaysWhatToDo(t *testing.T) {
	t.Parallel()
	const src = "policies: {api: 100/min}\ndefault: {policy: api}\n"
	l := load(t, src, coretest.NewClock(t0))
	err := l.ReloadData("test.yaml", []byte("policies: {api: 100/min fixed-window}\ndefault: {policy: api}\n"))
	require.ErrorIs(t, err, core.ErrPolicyChange)
	assert.ErrorContains(t, err, "the running limits stay; load the file anew to apply it (its counts start afresh)")
}
