package middleware

import (
	"net/http"
	"strconv"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
)

// ipKeyBuf is the room on the stack for a default key with its scope: a
// longer scope (a route group's name) grows the buffer on the heap.
const ipKeyBuf = 128

// decideIP is decideKey for the default key, the client IP, and a
// *core.Limiter: the key, joined to scope as scoped joins it, is built in
// a buffer on the stack and given to the limiter as bytes (the in-memory
// store hashes it there), so that it becomes a string only if a refund may
// need it (Options.CountIf, or a shaping delay that may be given back) or
// the header Writer writes a partition key of it.
// The store's key is the same as decideKey's.
func (m *Middleware) decideIP(w http.ResponseWriter, r *http.Request, l *core.Limiter, scope string, a *Admission) error {
	var buf [ipKeyBuf]byte
	b := buf[:0]
	if scope != "" {
		b = appendScope(b, scope)
	}
	b, err := keyfunc.AppendClientIP(b, r)
	if err != nil {
		return m.refuse(w, r, err)
	}
	cost, err := m.cost(w, r)
	if err != nil {
		return err
	}
	if err := l.TakeBytes(m.decisionContext(r), b, cost, &a.res); err != nil {
		return err
	}
	a.m, a.r, a.lim, a.cost = m, r, l, cost
	if m.opts.CountIf != nil || a.res.Delay > 0 || a.res.Taken() && !a.res.Allowed || m.pk || a.res.Allowed && a.res.Remaining < cost {
		a.key = string(b)
	}
	return nil
}

// appendScope appends the head of scoped(scope, key), what precedes key.
func appendScope(b []byte, scope string) []byte {
	b = strconv.AppendInt(b, int64(len(scope)), 10)
	b = append(b, ':')
	return append(b, scope...)
}
