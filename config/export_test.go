package config

import "context"

// SyncLocalFirst runs one sync round of l's local-first store, for tests
// that drive the rounds rather than wait for them.
func SyncLocalFirst(ctx context.Context, l *Limiter) error { return l.lf.Sync(ctx) }

// StopRounds stops l's local-first sync rounds (after their last one), for
// a test whose steps a round of l's own, at the next multiple of the sync
// period on the wall clock, would change.
func StopRounds(l *Limiter) {
	l.stopSync()
	<-l.synced
}
