package config

import "context"

// SyncLocalFirst runs one sync round of l's local-first store, for tests
// that drive the rounds rather than wait for them.
func SyncLocalFirst(ctx context.Context, l *Limiter) error { return l.lf.Sync(ctx) }
