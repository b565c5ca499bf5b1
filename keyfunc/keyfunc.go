package keyfunc

import (
	"errors"
	"net/http"
)

// Func turns a request into the key it is rate limited by.
//
// A Func returns either a non-empty key and a nil error or an error; it never
// returns an empty key with a nil error. The Funcs of this package wrap
// [ErrNoKey] when the request carries nothing to build a key from. [Join] and
// [First] treat an empty key returned with a nil error by a caller's Func as
// an [ErrNoKey] failure.
type Func func(r *http.Request) (string, error)

// ErrNoKey is wrapped by every error that reports a request from which no key
// could be extracted: a missing header, an unparseable RemoteAddr, a request
// without a matched route, and so on.
var ErrNoKey = errors.New("keyfunc: no key")

// ErrInvalidOptions is wrapped by every error [ClientIP] returns for options
// it cannot use, and by the error the other constructors ([Header], [User],
// [UserFromContext], [Join], [First], [Const]) panic with when given a nil
// function, an empty name or key, or no function: a setup mistake, found
// when the key function is built rather than at the first request.
var ErrInvalidOptions = errors.New("keyfunc: invalid options")
