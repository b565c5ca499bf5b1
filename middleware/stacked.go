package middleware

import (
	"context"
	"hash/maphash"
	"net/http"
	"strings"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/floodgate-go/floodgate/internal/seconds"
)

// A request may pass several middlewares: a global limit around a
// route's. Each writes its fields, and one that refuses the request (a
// denial, an outage, no concurrency slot free) answers with a wait no
// shorter than those of the limits it passed before, which may have given
// it their last unit. The fields of such a limit tell when it is whole
// again (its reset), which may be far later than when it admits one more
// request: a GCRA of 1,000 a day (a burst of 10) whose last unit was taken
// is whole in 864 s, but admits again in 87 s. A middleware that admits a
// request with its last unit therefore tells the middlewares inside it
// of its decision, through the request's context (see
// [Admission.Request]), and they wait for its next admission instead of
// its reset. The fields of other middlewares (another library's, or any
// written between two of this package's) are still read from the
// response (headers.Writer.HeldWait). A middleware whose
// Options.CountIf does not count the answer given (a 429 from inside,
// where only successes count) gives its unit back once it is written:
// that answer waits for none of its decision.

// stackedKey is the context key of the *stacked a middleware shares.
type stackedKey struct{}

// stacked is what a middleware that admitted a request tells those
// inside it: the wait its own decision imposes on a retry, and the
// waits the fields held before tell of.
type stacked struct {
	parent *stacked // the middleware's outside this one, if any
	// exhausted says that the admission left less than its cost: a
	// retry must wait for lim to admit cost again for key.
	exhausted bool
	lim       Limiter
	key       string
	cost      int64
	maxDelay  time.Duration
	// countIf is the middleware's Options.CountIf: an answer it does not
	// count gives the admission back (see refunds).
	countIf func(status int) bool
	// reset is the longest reset of the limits the admission left less
	// than its cost: a retry waits no longer for them. It is the wait
	// when lim cannot be asked (see wait).
	reset time.Duration
	// before is the longest wait, in seconds, that the fields of other
	// middlewares told of (see newStacked).
	before int64
	// names are the names of the fields of the Writer that wrote, and
	// mark the rate-limit fields the response held once it wrote them
	// (see fieldMark): a response holding others has had fields written
	// since, by a middleware this one knows nothing of.
	names []string
	mark  uint64
}

// outerOf returns what the innermost middleware r passed shares, or nil.
func outerOf(r *http.Request) *stacked {
	s, _ := r.Context().Value(stackedKey{}).(*stacked)
	return s
}

// sharing reports whether the admission a of r must be shared with the
// middlewares inside m: it left less than its cost (a retry waits for
// it), or an outer middleware shares one, whose wait the fields m writes
// would hide.
func sharing(r *http.Request, a *Admission) (parent *stacked, share bool) {
	parent = outerOf(r)
	return parent, parent != nil || a.res.Remaining < a.cost
}

// newStacked returns what m shares of the admission a, before m writes
// its fields into h: the wait of the fields held that parent does not
// account for is read now.
func (m *Middleware) newStacked(h http.Header, parent *stacked, a *Admission) *stacked {
	s := &stacked{parent: parent, exhausted: a.res.Remaining < a.cost, lim: a.lim, key: a.key,
		cost: a.cost, maxDelay: m.opts.MaxDelay, countIf: m.opts.CountIf, names: m.names}
	switch {
	case parent != nil && parent.mark == fieldMark(h, parent.names):
		s.before = parent.before
	case len(h) > 0:
		// Fields of middlewares this one knows nothing of, or written
		// since parent's: read as they are (parent's own among them,
		// told no shorter than its wait).
		s.before = m.hdr.HeldWait(h, a.res.At())
	}
	if s.exhausted {
		s.reset = both.ExhaustedReset(&a.res, a.cost)
		if p, ok := a.lim.(exhaustedResetter); ok {
			// A request charged on several routes: a.res is one's.
			s.reset = max(s.reset, p.ExhaustedReset(a.cost))
		}
	}
	return s
}

// exhaustedResetter is a limiter whose Result tells of part of what it
// decided (both.Pair): ExhaustedReset is the longest reset of every limit
// its last admission left less than cost.
type exhaustedResetter interface {
	ExhaustedReset(cost int64) time.Duration
}

// peeker is a limiter that tells what it would decide, consuming nothing
// (core.Limiter, core.Overrides).
type peeker interface {
	Peek(ctx context.Context, key string, cost int64) (core.Result, error)
}

// refunds reports whether the middleware that shares s gives its
// admission back when r is answered status (0: not known), as its
// Options.CountIf does not count it: a retry then waits for none of s's
// own decision, whose cost is returned once the answer is written.
func (s *stacked) refunds(status int) bool {
	return s.countIf != nil && status >= 200 && !s.countIf(status)
}

// wait returns the wait, in seconds, until s's limiter admits its
// request again: asked of the limiter when it can tell (an exact wait),
// else the reset of the limits its admission exhausted (no shorter).
func (s *stacked) wait(ctx context.Context) int64 {
	if !s.exhausted {
		return 0
	}
	if p, ok := s.lim.(peeker); ok {
		if s.maxDelay > 0 {
			// Decided as the retry will be (see decisionContext).
			ctx = core.WithMaxDelay(ctx, s.maxDelay)
		}
		// A peek the store's failure mode answered (the store could not
		// be reached: FailOpen admits) tells nothing of the limit.
		if res, err := p.Peek(ctx, s.key, s.cost); err == nil && res.Source() != core.SourceFallback {
			switch {
			case res.Allowed:
				return 0
			case res.RetryAfter > 0 && res.RetryAfter != core.Never:
				return seconds.Ceil(res.RetryAfter)
			}
		}
	}
	return seconds.Ceil(s.reset)
}

// heldWait returns the longest wait, in whole seconds from at, that a
// retry of r, answered status (0: not known), must make for the
// middlewares it passed before, whose fields h holds: read from the
// decisions they share (see stacked) when h holds the fields they wrote
// and no other, but those of middlewares that give theirs back for
// status (see stacked.refunds), else from the fields, under the default
// names and hdr's, names (headers.Writer.HeldWait; hdr may be nil, names
// then too).
func heldWait(r *http.Request, hdr *headers.Writer, names []string, h http.Header, at time.Time, status int) int64 {
	s := outerOf(r)
	if s == nil || s.mark != fieldMark(h, s.names) || unmarked(h, names, s.names) {
		return hdr.HeldWait(h, at)
	}
	wait := s.before
	for ; s != nil; s = s.parent {
		if !s.refunds(status) {
			wait = max(wait, s.wait(r.Context()))
		}
	}
	return wait
}

// unmarked reports whether h holds a field named names (those the reader
// reads besides the default names) that a mark of marked does not hash:
// one the shared decisions cannot account for, written by a middleware
// they know nothing of, outside or between them.
func unmarked(h http.Header, names, marked []string) bool {
	for _, n := range names {
		if len(h[n]) > 0 && !rateField(n, marked) {
			return true
		}
	}
	return false
}

// markSeed seeds fieldMark's hashes.
var markSeed = maphash.MakeSeed()

// fieldMark returns a hash of the rate-limit fields of h: those named
// names, or Retry-After, or whose name holds "ratelimit" or "rate-limit"
// (in any case), as every header Writer's default names do and other
// libraries' do.
func fieldMark(h http.Header, names []string) uint64 {
	var sum uint64
	for k, vs := range h {
		if !rateField(k, names) {
			continue
		}
		var d maphash.Hash
		d.SetSeed(markSeed)
		d.WriteString(k)
		for _, v := range vs {
			d.WriteByte(0)
			d.WriteString(v)
		}
		sum += d.Sum64() // the fields in any order
	}
	return sum
}

// rateField reports whether the field named k is one fieldMark hashes.
func rateField(k string, names []string) bool {
	if strings.EqualFold(k, "Retry-After") || containsFold(k, "ratelimit") || containsFold(k, "rate-limit") {
		return true
	}
	for _, n := range names {
		if strings.EqualFold(k, n) {
			return true
		}
	}
	return false
}

// containsFold reports whether s holds sub, lower-case ASCII, in any case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// HeldWait returns the longest wait, in whole seconds, that the limits r
// passed before impose on its retry, for a handler (a login guard, a
// limiter of another kind) that refuses r on grounds of its own and
// answers with a Retry-After of its own: at least this long, as one of
// them may have given r its last unit. h is the header of r's response,
// holding the rate-limit fields those limits wrote. It is the wait for
// the next admission of each limit a middleware of this package took the
// last unit of, as that middleware tells those inside it (see
// [Admission.Request]), and otherwise the wait the fields tell of
// (headers.Wait), which may be as long as a limit's reset.
//
// status is the status the caller answers r with (a 429, a 503): a
// middleware in front whose Options.CountIf does not count it gives its
// unit back once the answer is written, and r's retry waits for none of
// its decision. It must be the status written (for another, the wait may
// be too short, and the retry refused again); 0, when it is not known,
// waits for every decision.
func HeldWait(r *http.Request, h http.Header, status int) int64 {
	// (An empty h too: a limit r passed may write no field, and share its
	// decision all the same.)
	return heldWait(r, nil, nil, h, time.Now(), status)
}
