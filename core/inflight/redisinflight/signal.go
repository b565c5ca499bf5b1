package redisinflight

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// signals are the announcements of releases that this process's waiting
// heads listen to (see Limiter.Wait): a release publishes on its lease
// set's channel, and a head listens on its key's, so that a slot freed in
// another process wakes it at once instead of at its next poll, which a
// flood of heads on other keys delays (each polls in its turn). One
// pub/sub connection, and the goroutines sending its subscriptions and
// reading it, live while some head listens; none otherwise. The heads
// never wait for its round trips (a stalled connection, which go-redis
// reconnects holding its lock, would hold up every Wait's return):
// subscriptions are sent by a goroutine of their own, in the order the
// heads asked for them. Announcements are a hint: one lost (the
// connection broken, an ACL forbidding PUBLISH or SUBSCRIBE) leaves the
// head to its polls, as before.
type signals struct {
	mu   sync.Mutex
	subs map[string]*listen // by channel
	ops  []subOp            // to send, in order
	// sent is the subscriptions sent and not yet confirmed, in order:
	// Redis confirms them in that order on the connection, so that a
	// confirmation readies the listen that asked for it, never a later
	// one of the same channel.
	sent []subOp
	// kick wakes the sender (see Limiter.subscriber), which runs while
	// it is not nil; gen counts the senders started, so that the reader
	// of an earlier connection confirms nothing of a later one.
	kick chan struct{}
	gen  uint64
}

// subOp is a SUBSCRIBE (on), for ln, or an UNSUBSCRIBE of a channel.
type subOp struct {
	channel string
	on      bool
	ln      *listen
}

// listen is the heads of one key listening on its channel: a line's head,
// and for a moment the next one it hands over to.
type listen struct {
	key, channel string
	n            int
	ready        chan struct{} // closed once Redis has confirmed the subscription
	confirmed    bool
}

// signalled reports whether client can carry the announcements: a Client
// (Sentinel's too) or a ClusterClient, where PUBLISH reaches every node's
// subscribers. A Ring routes a channel to one shard of its own choosing:
// its heads only poll.
func signalled(client redis.UniversalClient) bool {
	switch client.(type) {
	case *redis.Client, *redis.ClusterClient:
		return true
	}
	return false
}

// channel is the pub/sub channel that releases of the lease set rk
// announce themselves on: rk's name with "r" for "c", in its Cluster slot.
func (l *Limiter) channel(rk string) string {
	return l.opts.Prefix + "r" + rk[len(l.opts.Prefix)+1:]
}

// listen subscribes to the releases of key, whose lease set is rk; the
// caller must unlisten. Its ready is closed once Redis confirms it (never,
// when the subscription cannot be sent). It sends nothing itself.
func (l *Limiter) listen(key, rk string) *listen {
	s := &l.sig
	ch := l.channel(rk)
	s.mu.Lock()
	defer s.mu.Unlock()
	ln := s.subs[ch]
	if ln == nil {
		ln = &listen{key: key, channel: ch, ready: make(chan struct{})}
		s.subs[ch] = ln
		l.send(subOp{ch, true, ln})
	}
	ln.n++
	return ln
}

// unlisten ends a listen.
func (l *Limiter) unlisten(ln *listen) {
	s := &l.sig
	s.mu.Lock()
	defer s.mu.Unlock()
	if ln.n--; ln.n > 0 {
		return
	}
	delete(s.subs, ln.channel)
	l.send(subOp{ln.channel, false, nil})
}

// send queues op for the sender, starting it if it is not running
// (l.sig.mu held).
func (l *Limiter) send(op subOp) {
	s := &l.sig
	s.ops = append(s.ops, op)
	if s.kick == nil {
		s.kick = make(chan struct{}, 1)
		s.gen++
		go l.subscriber(s.kick, s.gen)
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// subscriber sends the queued subscriptions on a pub/sub connection of its
// own, and reads it (hear), until nobody listens: then it closes it and
// ends.
func (l *Limiter) subscriber(kick chan struct{}, gen uint64) {
	s := &l.sig
	ps := l.client.Subscribe(context.Background())
	heard := make(chan struct{})
	go func() {
		defer close(heard)
		l.hear(ps.ChannelWithSubscriptions(), gen)
	}()
	for {
		s.mu.Lock()
		ops := s.ops
		s.ops = nil
		if len(ops) == 0 && len(s.subs) == 0 {
			s.kick, s.sent = nil, nil
			s.mu.Unlock()
			_ = ps.Close() // (its reader ends with it)
			<-heard
			return
		}
		s.mu.Unlock()
		if len(ops) == 0 {
			<-kick
			continue
		}
		for _, op := range ops {
			s.mu.Lock()
			s.sent = append(s.sent, op) // (before it is written: its confirmation may come at once)
			s.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), l.opts.Timeout)
			var err error
			if op.on {
				err = ps.Subscribe(ctx, op.channel) // (an error: its head polls)
			} else {
				err = ps.Unsubscribe(ctx, op.channel)
			}
			cancel()
			if err != nil {
				s.mu.Lock()
				if i := len(s.sent) - 1; i >= 0 && s.sent[i] == op {
					s.sent = s.sent[:i] // (no confirmation comes)
				}
				s.mu.Unlock()
			}
		}
	}
}

// hear reads the messages of the connection of sender gen until it is
// closed: a confirmed subscription readies the listen that asked for it,
// a release wakes its key's head.
func (l *Limiter) hear(msgs <-chan any, gen uint64) {
	s := &l.sig
	for m := range msgs {
		switch m := m.(type) {
		case *redis.Subscription:
			s.mu.Lock()
			if s.gen == gen {
				s.confirmed(m.Channel, m.Kind == "subscribe")
			}
			s.mu.Unlock()
		case *redis.Message:
			s.mu.Lock()
			ln := s.subs[m.Channel]
			stale := ln == nil || s.gen != gen
			s.mu.Unlock()
			if !stale {
				l.wake(ln.key)
			}
		}
	}
}

// confirmed takes Redis's confirmation of a SUBSCRIBE (on) or UNSUBSCRIBE
// of ch (s.mu held): the first of those sent that it matches, whose listen
// it readies, if still listening. One matching none sent is go-redis's own,
// sending again every channel of a connection it made anew: ch's listen,
// if any, is subscribed now.
func (s *signals) confirmed(ch string, on bool) {
	for i, op := range s.sent {
		if op.channel != ch || op.on != on {
			continue
		}
		s.sent = s.sent[i+1:] // (those before it will not be confirmed: a connection made anew)
		if on && s.subs[ch] == op.ln {
			op.ln.ready1()
		}
		return
	}
	if ln := s.subs[ch]; on && ln != nil {
		ln.ready1()
	}
}

// ready1 closes ln.ready once (l.sig.mu held).
func (ln *listen) ready1() {
	if !ln.confirmed {
		ln.confirmed = true
		close(ln.ready)
	}
}
