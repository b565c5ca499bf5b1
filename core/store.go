package core

import "github.com/floodgate-go/floodgate/core/store"

// Store keeps the per-key state of policies. Implementations must be safe
// for concurrent use and apply each request atomically. Package
// [github.com/floodgate-go/floodgate/core/store] holds the rest of what a
// store implements.
type Store interface {
	// Bind prepares the store to decide for p and returns the table that
	// does. Each call returns an independent table.
	Bind(p *Policy) (store.Table, error)
}
