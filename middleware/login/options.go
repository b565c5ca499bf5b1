package login

import (
	"net/http"
	"net/url"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
)

// DefaultAccount is the per-account limit when Options.Account is nil:
// 5 free failures per hour, then lockouts of 1 s doubling up to 1 hour,
// forgiven after 24 hours without a failure.
//
// OWASP ASVS 4.0 V2.2.1 asks that no more than 100 failed attempts per
// hour be possible on a single account, and NIST SP 800-63B §5.2.2 that
// failed attempts on an account be limited to no more than 100. With these
// values an attacker who retries the instant each lock ends gets at most 17
// failures in the first hour (5 free, the 6th that sets the first lock,
// then one after each lock of 1 s, 2 s, ..., 1024 s; the next lock, 2048 s,
// runs past the hour), about 6 per hour afterwards (5 free per window
// and one per hour-long lock), and never more than 100 in any hour
// (TestDefaultsBoundFailuresPerHour checks it over two days). Doubling
// rather than a hard lockout after N failures is NIST's own suggestion
// (waits that grow as failures accumulate): an attacker cannot lock a user
// out for longer than the current wait, and a user who mistypes a few
// times waits seconds, not hours.
var DefaultAccount = core.Backoff{Free: 5, Window: time.Hour, Base: time.Second, Max: time.Hour, Forgive: 24 * time.Hour}

// DefaultNetwork is the per-network limit when Options.Network is nil: 100
// free failures per hour, then lockouts of 1 s doubling up to 1 hour,
// forgiven after 24 hours without a failure. It is higher than the
// per-account limit because many users may share one address (NAT, a
// campus, a mobile carrier); it bounds credential stuffing, one network
// trying many accounts, which the per-account limit cannot see.
var DefaultNetwork = core.Backoff{Free: 100, Window: time.Hour, Base: time.Second, Max: time.Hour, Forgive: 24 * time.Hour}

// DefaultMaxBody is the most body bytes [Guard.Handler] reads to find the
// username when Options.MaxBody is 0.
const DefaultMaxBody = 64 << 10

// Options configures a [Guard]. The zero Options use [DefaultAccount] and
// [DefaultNetwork], in-memory state, the client's direct peer address, and
// count every response outside 2xx as a failure (redirects too, unless
// SuccessRedirect says otherwise).
type Options struct {
	// Account limits failures per account; nil means DefaultAccount. Any
	// algorithm works; core.Backoff is the one meant for this.
	Account core.Algorithm
	// Network limits failures per client network; nil means
	// DefaultNetwork.
	Network core.Algorithm
	// Store keeps the state of both limits (each in its own table); nil
	// means one core.MemoryStore with default options: when full it
	// forgets the entry whose forgetting admits least (core.EvictCheapest),
	// so a flood of made-up usernames neither refuses real users nor erases
	// a lockout (a one-failure entry goes long before a locked account).
	// A Redis store in fail-open mode admits every guess while Redis is
	// unreachable: give the guard a fail-closed or fail-local one.
	//
	// The guard's store is its own: the store given to the middleware's
	// limiters is not the guard's. Behind several instances (a fleet
	// behind a load balancer), give it the fleet's shared store too: with
	// nil, each instance counts failures apart, so that a guesser spread
	// over N instances has N times every budget (the account's lockout
	// included) and a locked account is unlocked on the other instances.
	Store core.Store
	// Clock is the limiters' clock; nil means the system clock.
	Clock core.Clock
	// IP says how the client network is found: trusted proxies, prefix
	// lengths (see keyfunc.IPOptions). The zero value keys by the direct
	// peer, IPv4 /32 and IPv6 /64, and trusts no forwarding header: behind
	// a load balancer or a proxy, name it (TrustedProxyCIDRs or
	// TrustedHops), or every user is counted on the proxy's network, and
	// one guesser's failures (Network's free ones, 100 an hour by default)
	// lock everyone without a device cookie out of the login. An
	// ISP delegates a /56 or a /48 to many homes and offices: a client with
	// one has 256 to 65,536 /64s, each with a network budget of its own
	// (the account counter still holds). Set IPv6Prefix to 56 or 48 to
	// count such a client as one network, at the cost of counting the
	// neighbours a shorter prefix groups with it together.
	IP keyfunc.IPOptions
	// Normalize maps a username to the form accounts are counted by, on
	// every path that derives a key from a username ([Guard.Begin],
	// [Guard.Handler], [Guard.Unlock], device cookies); nil means
	// [NormalizeUsername] (NFKC, full case folding, accents and other
	// marks dropped, what a primary-strength collation equates mapped to
	// one, white space trimmed, ignorable code points dropped). Normalizing more coarsely than the
	// application matches usernames only shares counters between accounts
	// (stricter); more finely would let an attacker spread guesses at one
	// account over spellings of its name. To count usernames byte for byte
	// (only if the application itself does so), pass a function returning
	// its argument. Usernames over [MaxUsername] bytes are refused before
	// Normalize sees them.
	Normalize func(string) string
	// Devices, when not nil, turns on device cookies, so that an attacker
	// cannot lock a user out of the devices they logged in from: see
	// [DeviceOptions].
	Devices *DeviceOptions
	// ResetAccountOnSuccess forgets the account's failures on a successful
	// login, instead of only refunding the attempt (for an attempt judged
	// on a device cookie, the device's failures). The network counter is
	// never reset. The account counter is shared by every username that
	// normalizes alike (Normalize), so it is reset only by a success whose
	// username was submitted already normalized ("alice", not "Alice" nor
	// fullwidth "ａｌｉｃｅ"); other spellings are refunded: an attacker
	// owning an account "ａｌｉｃｅ" that the application keeps apart from
	// "alice" cannot clear alice's counter by logging in to their own. An
	// application whose own usernames may be unnormalized ("Alice" an
	// account apart from "alice") should leave this off, and so should one
	// that tells usernames apart by their accents ("josé" an account apart
	// from "jose", as a byte-for-byte or an accent-sensitive comparison
	// does): the owner of "jose" would clear the counter josé's failures
	// are on.
	ResetAccountOnSuccess bool
	// Field is the name of the username field of a form or JSON body;
	// "" means "username".
	Field string
	// MaxBody bounds the body bytes [Guard.Handler] reads; 0 means
	// DefaultMaxBody. A longer body is answered 413.
	MaxBody int64
	// Succeeded tells [Guard.Handler] whether a response status is a
	// successful login; nil means 2xx, and 3xx only as SuccessRedirect
	// judges it (see [Attempt.Respond]): a handler that answers a wrong
	// password with 200 needs its own Succeeded. Every other status (401,
	// 403, but also 400 or 500) counts as a failure. A Succeeded of one's
	// own judges redirects by their status alone, unless SuccessRedirect
	// is given too.
	Succeeded func(status int) bool
	// SuccessRedirect tells whether a redirect (a 3xx response) is a
	// successful login, from its Location resolved against the login
	// request's URL ("home" is "/home"). nil, with the default Succeeded,
	// means no redirect is: each counts as a failure and is reported to
	// OnError with [ErrRedirectNotJudged], for a redirect's status says
	// nothing of the outcome (a wrong password is as often redirected to
	// "/login/failed", "/login-error" or "/?error=bad" as a right one to
	// "/home"), and taking a failure for a success refunds every guess. A
	// post/redirect/get login gives the successes' target, query
	// included: func(u *url.URL) bool { return u.Path == "/home" &&
	// u.RawQuery == "" }; one redirecting to a return URL after a success
	// tells it from its failures' targets. A redirect without a Location or
	// back to the login page ("/login?error=1") is a failure whatever it
	// says (reported with [ErrRedirectBackToLogin] when it says success: a
	// login whose successes land on its own page cannot be judged by its
	// Location), and so is one answering a request whose decoded path does not
	// read back as itself from a Location ("/home#/login", from a
	// "/{tenant}/login" route's "home%23"): a handler writing r.URL.Path
	// back into its Location sends that one to "/home".
	SuccessRedirect func(location *url.URL) bool
	// OnLockout is called when a failed attempt leaves a key locked, with
	// the key's kind, "account", "network" or "device", and the time until it admits
	// again: log every lockout there.
	OnLockout func(kind string, retryAfter time.Duration)
	// OnError is called with every store or key error and the request it
	// concerns (never nil): for errors of [Attempt.Succeeded] and
	// [Attempt.Failed], the request given to [Guard.Begin].
	OnError func(r *http.Request, err error)
}

func defaultSucceeded(status int) bool { return status >= 200 && status < 400 }
