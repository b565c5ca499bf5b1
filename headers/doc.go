// Package headers writes the rate-limit response header fields of a
// [core.Result]: Retry-After, the de facto X-RateLimit-Limit,
// X-RateLimit-Remaining and X-RateLimit-Reset trio, and the IETF fields of
// draft-ietf-httpapi-ratelimit-headers in one of three shapes ([Draft]).
//
// A [Writer] is built once by [New] and is then safe for concurrent use. Its
// [Writer.Write] costs one allocation per call whatever the number of
// fields: the values that depend on the decision are formatted (without
// fmt) into one stack buffer, which is copied into one block of memory
// together with the fields' value slices, each a one-element window of the
// block. What depends on the policy alone (RateLimit-Policy, each limit's
// quota and name) is rendered once per policy and shared by every Write.
//
// # What is written
//
// Every value comes from the Result and the Writer's own options: nothing
// of the request is ever copied into a response field. The partition key of
// [Writer.WriteKey] is written only as a keyed hash (HMAC-SHA-256), never as
// the key itself.
//
// Durations are written as whole seconds rounded up, so that a client that
// waits what it is told never comes back early.
//
//   - Retry-After is written on denials only: the wait until the same
//     request would pass, at least 1. A request that can never pass (its
//     RetryAfter is [core.Never]: its cost exceeds a limit's quota) gets no
//     Retry-After, because no wait would make it pass and any number would
//     invite a retry that is bound to fail.
//   - X-RateLimit-Limit and X-RateLimit-Remaining are the binding limit's
//     quota and remaining, the remaining being 0 on every denial.
//     X-RateLimit-Reset is the Unix time, in seconds rounded up, at which the
//     binding limit is whole again if nothing more is taken
//     (At + ResetAfter), except on a denial that some wait lets pass: there
//     it is the time the request passes (At + RetryAfter), as Retry-After
//     says, so that a client that waits for it, as GitHub asks its clients
//     to, waits no longer than it must.
//   - The IETF fields follow the chosen [Draft]. Their reset values ("t" in
//     draft 11, "reset" in drafts 6 and 7) are ResetAfter in seconds rounded
//     up, except on a denial, where the drafts ask the reset to agree with
//     Retry-After: a limit that denied the request then reports r=0 and the
//     same wait as Retry-After (draft 11: its own wait, which is never
//     longer). A quota ("q") and window ("w") are the limit's
//     configuration: the quota and window of a window algorithm, and the
//     burst and the time it takes to refill for GCRA, TokenBucket and
//     LeakyBucket (100 a minute with a burst of 20: q=20, w=12); windows in
//     seconds rounded up and at least 1.
//   - A limit's name in the draft 11 fields is an sf-string of the name,
//     '"' and '\' escaped, '%' and the bytes outside printable ASCII
//     percent-encoded; a name longer than 128 bytes is written as its
//     first bytes, "…" and 16 hex digits of a hash of the whole, as the
//     exporters label it, so that no name makes fields longer than proxies
//     and Structured Field parsers take.
//
// A request that passes two limiters writing to one response (a global
// middleware around a route's) is described by both with
// [Writer.Combine], which the middleware uses: the lists name every
// limit, the binding limit's fields are the stricter decision's, and a
// denial's Retry-After is the longest wait.
//
// docs/headers.md in the repository shows, for every algorithm, what each
// field says after a burst of requests, how it relates to the
// configuration, and when a request really passes again; its tables are
// checked by this package's tests.
//
// Field names default to the names above and can be changed or omitted one by
// one ([Options]). Names are stored in their canonical form
// ([http.CanonicalHeaderKey]), so http.Header.Get finds them; on the wire
// field names are case-insensitive (and lower-case in HTTP/2 and HTTP/3).
package headers
