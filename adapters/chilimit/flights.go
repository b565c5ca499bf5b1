package chilimit

import (
	"context"
	"net/http"
	"reflect"
	"sync"

	"github.com/floodgate-go/floodgate/internal/charges"
	"github.com/floodgate-go/floodgate/middleware"
)

// flightShards is how many locks a Middleware's flights are spread over.
const flightShards = 16

// flightKey is the room a flight keeps for a key the decision did not
// spell out (the client IP and a scope): a longer one is made a string.
// It keeps a flight within 128 bytes, which a map holds in place (a
// larger value is allocated for each request).
const flightKey = 39

// flights holds the requests a Middleware's uses decided, and are
// serving, without telling the handlers inside in the request (see
// serve): a request that could not meet the Middleware twice when it was
// decided (its only use then) may meet a use wrapped while it is served
// (a router built inside a request, or built once by the first), which
// finds no decision in the request and would charge it again. Such a use
// finds it here, by the very request it was passed, until the handler the
// decision served it with returns. It allocates nothing once its maps
// have grown to the requests served at once.
type flights struct {
	shards [flightShards]flightShard
}

// flightShard is one lock's share of the flights.
type flightShard struct {
	mu   sync.Mutex
	m    map[*http.Request]flight
	room [flightKey]byte // where add spells a key, under mu
}

// flight is what a request in flight was decided by and charged (see
// decision): by pattern and methods, passed on with context ctx, charging
// key on lim by cost; key is room[:n] when empty.
type flight struct {
	pattern, methods string
	ctx              context.Context
	lim              any
	cost             int64
	key              string
	n                uint8
	room             [flightKey]byte
}

// shard returns the shard of r.
func (f *flights) shard(r *http.Request) *flightShard {
	p := reflect.ValueOf(r).Pointer()
	return &f.shards[(p>>4^p>>12)%flightShards]
}

// add records r, the request a passed on, as decided by pattern and
// methods, and reports whether it did: a charge a does not tell, or r
// in flight already (served again through the router while served), is
// not recorded, and r is then decided again by a use it meets. What add
// recorded, remove forgets.
func (f *flights) add(r *http.Request, pattern, methods string, a *middleware.Admission) bool {
	s := f.shard(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[*http.Request]flight{}
	}
	if _, dup := s.m[r]; dup {
		return false
	}
	// The key is spelt in the shard's room: a buffer of the caller's
	// own would be allocated for each request.
	c, key, ok := charges.AppendDecided(a, s.room[:0])
	if !ok || c.Key == "" && len(key) == 0 {
		return false
	}
	fl := flight{pattern: pattern, methods: methods, ctx: r.Context(), lim: c.Lim, cost: c.Cost, key: c.Key}
	if c.Key == "" {
		if len(key) > flightKey {
			fl.key = string(key)
		} else {
			fl.n = uint8(copy(fl.room[:], key))
		}
	}
	s.m[r] = fl
	return true
}

// remove forgets r, recorded by add.
func (f *flights) remove(r *http.Request) {
	s := f.shard(r)
	s.mu.Lock()
	delete(s.m, r)
	s.mu.Unlock()
}

// took reports whether m, whose flights f are, decided r by pattern and
// methods and is serving it, r being the very request it passed on, with
// its context, and r charges now what it charged then (see decidedBefore).
func (f *flights) took(r *http.Request, m *middleware.Middleware, pattern, methods string) bool {
	s := f.shard(r)
	s.mu.Lock()
	fl, ok := s.m[r]
	s.mu.Unlock()
	if !ok || fl.pattern != pattern || fl.methods != methods || fl.ctx != r.Context() {
		return false
	}
	c, ok := chargeOf(r, m, pattern, methods)
	if !ok {
		return false
	}
	key := fl.key
	if key == "" {
		if string(fl.room[:fl.n]) != c.Key {
			return false
		}
		key = c.Key
	}
	return charges.Same(charges.Charge{Lim: fl.lim, Key: key, Cost: fl.cost}, c)
}
