package config

import (
	"context"
	"errors"
)

// startSync runs the local-first store's sync rounds until Close.
func (l *Limiter) startSync() {
	if l.lf == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	l.stopSync, l.synced = cancel, make(chan struct{})
	go func() {
		defer close(l.synced)
		l.lf.Run(ctx)
	}()
}

// Close releases what the file's store holds: with store.redis, it stops
// the store and closes the Redis client the file described; with
// store.localfirst, it stops the sync rounds after a last one that pushes
// what this process admitted, then closes the client (it waits for the
// round in flight, if any, and the last one: on a stalled Redis, up to
// twice the store's timeout); with the memory store it does nothing. Decisions
// after Close fail or, with localfirst, are never synced. Calling it again
// returns the first call's error.
func (l *Limiter) Close() error {
	l.closeOnce.Do(func() {
		switch {
		case l.redis != nil:
			l.closeErr = errors.Join(l.redis.Close(), l.client.Close())
		case l.lf != nil:
			l.stopSync()
			<-l.synced
			l.closeErr = errors.Join(l.lf.Close(), l.client.Close())
		}
	})
	return l.closeErr
}

// Check verifies at start-up that the file's Redis store works, within
// ctx: with store.redis, that Redis answers within the store's timeout
// and runs its scripts (see redisstore.Store.Check); with
// store.localfirst, that too, and that this process's clock agrees with
// Redis's (see localfirst.Store.Check). Call it to refuse to serve
// without Redis, or to log a warning. With the memory store it returns
// nil.
func (l *Limiter) Check(ctx context.Context) error {
	switch {
	case l.redis != nil:
		return l.redis.Check(ctx)
	case l.lf != nil:
		return l.lf.Check(ctx)
	}
	return nil
}
