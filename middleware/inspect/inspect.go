// Package inspect serves, as JSON, what limiters know of their keys: every
// limit's state for a key (shadow limits too), a reset of a key, and the
// heaviest keys of the last minutes (core.WithTopKeys).
//
// It is an operator's tool: it shows and resets the keys of clients, so
// mount it only behind the service's own authentication, on an internal
// listener; nothing in floodgate mounts it. [New] returns the handler:
//
//	h, err := inspect.New(apiLimiter, loginLimiter)
//	admin.Handle("/debug/floodgate/", requireOperator(h))
//
// It answers the paths ending in /inspect, /reset and /top, wherever it is
// mounted:
//
//	GET  …/inspect?key=K[&policy=P]  every limit's state for key K, consuming nothing
//	POST …/reset?key=K[&policy=P]    forget key K (in policy P, or in every policy)
//	GET  …/top[?policy=P][&n=N]      the N heaviest keys (default 20, at most 1,000)
//
// K is the key as the limiter counts it, not the client as a log names it:
// the middleware's default key of an IPv4 client is "203.0.113.7/32", of an
// IPv6 client its /64 ("2001:db8:1:2::/64"; keyfunc.AddrKey computes both),
// an API key's or a user's "header:" or "user:" and 32 hex digits, and a
// route whose limiter decides several routes or tiers prefixes its scope
// ("11:POST /login203.0.113.7/32"). A key the limiter has never seen reads
// as fresh, and its reset answers 200 and changes nothing: find the key in
// …/top (core.WithTopKeys) first (see Example_middlewareKeys).
//
// Each answer is a JSON object; an error is {"error": "…"} with status 400
// (a missing or too long key, a bad n), 403 (a cross-origin browser
// request, see [net/http.CrossOriginProtection]), 404 (an unknown policy
// or path), 405 (a wrong method) or 500 (a store error, its text). Times
// are in seconds; a retry-after the request can never reach is reported as
// "never": true. Keys are JSON strings: a key that is not valid UTF-8 is
// shown with U+FFFD in place of its invalid bytes.
package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// MaxKeyBytes is the longest key a request may name.
const MaxKeyBytes = 4096

// The bounds of a top request's n.
const (
	DefaultTop = 20
	MaxTop     = 1000
)

// Handler is the http.Handler [New] returns. It is safe for concurrent
// use.
type Handler struct {
	limiters []*core.Limiter          // in the order given
	byName   map[string]*core.Limiter // by policy name
	cop      *http.CrossOriginProtection
}

// New returns a handler inspecting limiters, each named by its policy's
// name. It refuses (wrapping core.ErrInvalidConfig) no limiter, a nil one,
// and two of one policy name.
func New(limiters ...*core.Limiter) (*Handler, error) {
	if len(limiters) == 0 {
		return nil, fmt.Errorf("inspect: no limiter: %w", core.ErrInvalidConfig)
	}
	h := &Handler{byName: map[string]*core.Limiter{}, cop: http.NewCrossOriginProtection()}
	for i, l := range limiters {
		if l == nil || l.Policy() == nil {
			return nil, fmt.Errorf("inspect: limiter %d is nil: %w", i, core.ErrInvalidConfig)
		}
		name := l.Policy().Name()
		if _, dup := h.byName[name]; dup {
			return nil, fmt.Errorf("inspect: two limiters of policy %q: %w", name, core.ErrInvalidConfig)
		}
		h.byName[name] = l
		h.limiters = append(h.limiters, l)
	}
	return h, nil
}

// httpError is an error answered with its status.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func errorf(status int, format string, args ...any) error {
	return &httpError{status, fmt.Sprintf(format, args...)}
}

// ServeHTTP answers r (see the package documentation).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h.cop.Check(r); err != nil {
		writeJSON(w, http.StatusForbidden, errorBody{err.Error()})
		return
	}
	var (
		body any
		err  error
		q    = r.URL.Query() // parsed once for the operation
	)
	switch op := path.Base(r.URL.Path); op {
	case "inspect", "top":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			err = errorf(http.StatusMethodNotAllowed, "%s: method %s: want GET", op, r.Method)
		} else if op == "inspect" {
			body, err = h.inspect(r.Context(), q)
		} else {
			body, err = h.top(q)
		}
	case "reset":
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			err = errorf(http.StatusMethodNotAllowed, "reset: method %s: want POST", r.Method)
		} else {
			body, err = h.reset(r.Context(), q)
		}
	default:
		err = errorf(http.StatusNotFound, "no such operation: want a path ending in /inspect, /reset or /top")
	}
	if err != nil {
		status := http.StatusInternalServerError
		var he *httpError
		if errors.As(err, &he) {
			status = he.status
		}
		writeJSON(w, status, errorBody{err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, body)
}

type errorBody struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // a client gone: nothing to do
}

// selected returns the limiters the policy parameter of q names: that
// one, or every limiter when it names none.
func (h *Handler) selected(q url.Values) ([]*core.Limiter, error) {
	if !q.Has("policy") {
		return h.limiters, nil
	}
	name := q.Get("policy")
	l, ok := h.byName[name]
	if !ok {
		return nil, errorf(http.StatusNotFound, "no policy %q", clip(name))
	}
	return []*core.Limiter{l}, nil
}

// keyed returns the key parameter of q and the limiters q selects.
func (h *Handler) keyed(q url.Values) (string, []*core.Limiter, error) {
	k, err := key(q)
	if err != nil {
		return "", nil, err
	}
	ls, err := h.selected(q)
	return k, ls, err
}

// key returns the key parameter of q.
func key(q url.Values) (string, error) {
	if !q.Has("key") {
		return "", errorf(http.StatusBadRequest, "want a key parameter")
	}
	k := q.Get("key")
	if len(k) > MaxKeyBytes {
		return "", errorf(http.StatusBadRequest, "key of %d bytes: want at most %d", len(k), MaxKeyBytes)
	}
	return k, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// Inspection is the answer to an inspect request.
type Inspection struct {
	Key      string         `json:"key"`
	Policies []PolicyReport `json:"policies"`
}

// PolicyReport is one policy's state for a key.
type PolicyReport struct {
	Policy string `json:"policy"`
	// Allowed reports whether a request of cost 1 would pass now.
	Allowed bool          `json:"allowed"`
	Limits  []LimitReport `json:"limits"`
}

// LimitReport is one limit's state for a key, as core.LimitResult.
type LimitReport struct {
	Name       string  `json:"name"`
	Shadow     bool    `json:"shadow,omitempty"`
	Quota      int64   `json:"quota"`
	Window     float64 `json:"window"`
	Allowed    bool    `json:"allowed"`
	Remaining  int64   `json:"remaining"`
	ResetAfter float64 `json:"reset_after"`
	RetryAfter float64 `json:"retry_after"`
	Never      bool    `json:"never,omitempty"`
}

func report(lr core.LimitResult, shadow bool) LimitReport {
	out := LimitReport{
		Name: lr.Name, Shadow: shadow, Quota: lr.Quota, Window: lr.Window.Seconds(), Allowed: lr.Allowed,
		Remaining: lr.Remaining, ResetAfter: lr.ResetAfter.Seconds(),
	}
	if lr.RetryAfter == core.Never {
		out.Never = true
	} else {
		out.RetryAfter = lr.RetryAfter.Seconds()
	}
	return out
}

func (h *Handler) inspect(ctx context.Context, q url.Values) (any, error) {
	k, ls, err := h.keyed(q)
	if err != nil {
		return nil, err
	}
	out := Inspection{Key: k, Policies: make([]PolicyReport, 0, len(ls))}
	for _, l := range ls {
		res, err := l.Peek(ctx, k, 1)
		if err != nil {
			return nil, fmt.Errorf("inspect: policy %q: %w", l.Policy().Name(), err)
		}
		pr := PolicyReport{Policy: l.Policy().Name(), Allowed: res.Allowed}
		for _, lr := range res.Limits() {
			pr.Limits = append(pr.Limits, report(lr, false))
		}
		for _, lr := range res.ShadowLimits() {
			pr.Limits = append(pr.Limits, report(lr, true))
		}
		out.Policies = append(out.Policies, pr)
	}
	return out, nil
}

// Reset is the answer to a reset request: the key and the policies it was
// forgotten in.
type Reset struct {
	Key      string   `json:"key"`
	Policies []string `json:"policies"`
}

func (h *Handler) reset(ctx context.Context, q url.Values) (any, error) {
	k, ls, err := h.keyed(q)
	if err != nil {
		return nil, err
	}
	out := Reset{Key: k, Policies: []string{}}
	for _, l := range ls {
		if err := l.Reset(ctx, k); err != nil {
			return nil, fmt.Errorf("reset: policy %q (after resetting %q): %w", l.Policy().Name(), out.Policies, err)
		}
		out.Policies = append(out.Policies, l.Policy().Name())
	}
	return out, nil
}

// TopReport is the answer to a top request: one entry per policy whose
// limiter counts its keys (core.WithTopKeys).
type TopReport struct {
	Policies []PolicyTop `json:"policies"`
}

// PolicyTop is one policy's heaviest keys (see core.Top).
type PolicyTop struct {
	Policy string      `json:"policy"`
	From   time.Time   `json:"from"`
	To     time.Time   `json:"to"`
	Takes  int64       `json:"takes"`
	Keys   []KeyReport `json:"keys"`
}

// KeyReport is one key of a [PolicyTop], as core.KeyCount.
type KeyReport struct {
	Key       string `json:"key"`
	Truncated bool   `json:"truncated,omitempty"`
	Count     int64  `json:"count"`
	Admitted  int64  `json:"admitted"`
	Denied    int64  `json:"denied"`
	Abandoned int64  `json:"abandoned,omitempty"`
	Error     int64  `json:"error"`
}

func (h *Handler) top(q url.Values) (any, error) {
	n := DefaultTop
	if s := q.Get("n"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > MaxTop {
			return nil, errorf(http.StatusBadRequest, "n %q: want a whole number from 1 to %d", clip(s), MaxTop)
		}
		n = v
	}
	ls, err := h.selected(q)
	if err != nil {
		return nil, err
	}
	out := TopReport{Policies: []PolicyTop{}}
	for _, l := range ls {
		t, ok := l.TopKeys(n)
		if !ok {
			if len(ls) == 1 {
				return nil, errorf(http.StatusNotFound, "policy %q counts no keys (see core.WithTopKeys)", clip(l.Policy().Name()))
			}
			continue
		}
		pt := PolicyTop{Policy: l.Policy().Name(), From: t.From.UTC(), To: t.To.UTC(), Takes: t.Takes, Keys: make([]KeyReport, len(t.Keys))}
		for i, kc := range t.Keys {
			pt.Keys[i] = KeyReport{Key: kc.Key, Truncated: kc.Truncated, Count: kc.Count, Admitted: kc.Admitted, Denied: kc.Denied, Abandoned: kc.Abandoned, Error: kc.Error}
		}
		out.Policies = append(out.Policies, pt)
	}
	return out, nil
}
