package config

import (
	"fmt"

	"github.com/floodgate-go/floodgate/core"
)

// Error is a mistake in a configuration, at a position of its file. Parse
// and Load return one Error, or several joined with errors.Join, one per
// line; each wraps core.ErrInvalidConfig.
type Error struct {
	// File is the name the configuration was read under.
	File string
	// Line and Column are 1-based; Column counts characters. Column is 0
	// for a YAML syntax error, whose parser reports the line only.
	Line, Column int
	// Err says what is wrong.
	Err error
}

// Error returns "file:line:column: what is wrong".
func (e *Error) Error() string {
	if e.Column == 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Column, e.Err)
}

// Unwrap returns Err and core.ErrInvalidConfig.
func (e *Error) Unwrap() []error { return []error{e.Err, core.ErrInvalidConfig} }
