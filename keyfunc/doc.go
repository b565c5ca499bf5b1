// Package keyfunc turns an HTTP request into the string key it is rate
// limited by.
//
// A [Func] returns either a non-empty key or an error; an extractor that
// finds nothing returns an error wrapping [ErrNoKey], never an empty key.
//
// The extractors are:
//
//   - [ClientIP]: the client's address masked to a prefix. Forwarding headers
//     (X-Forwarded-For, RFC 7239 Forwarded, and headers the caller names such
//     as X-Real-IP) are read only when the direct peer is a trusted proxy.
//   - [Header], [User] and [UserFromContext]: an API key or a user name,
//     hashed before it becomes a key so that no raw credential reaches a
//     store.
//   - [Route], [Method] and [Const]: the matched ServeMux pattern, the
//     request method and a constant.
//
// [Join] combines keys injectively and [First] is a fallback chain.
//
// Package keyfunc uses the standard library only.
package keyfunc
