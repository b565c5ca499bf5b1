package ginlimit

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
)

// withKeys returns c.Request, or, when a handler before Limit stored values
// with c.Set, a shallow copy of it whose context answers Value with those
// values first: key functions (Options.Key, a KeySelector, APIKeyOrIP's
// identify) read the user an authentication middleware found as
// r.Context().Value("user"). Requests without values cost nothing more.
// Limit hands the copy back with keyrequest.Done.
func withKeys(c *gin.Context) *http.Request {
	if len(c.Keys) == 0 {
		return c.Request
	}
	return c.Request.WithContext(&keysContext{Context: c.Request.Context(), c: c})
}

// keysContext is a request's context with the values of its gin context
// (c.Keys) in front; deadline and cancellation are the request's.
type keysContext struct {
	context.Context
	c *gin.Context
}

// Value returns the value c.Set stored for key, or else the request
// context's value for key.
func (k *keysContext) Value(key any) any {
	if v, ok := get(k.c, key); ok {
		return v
	}
	return k.Context.Value(key)
}

// get is c.Get, which reports a key whose type cannot be a map key (a
// slice, a map, a func) as absent rather than panicking, as
// context.Context.Value does for keys nobody stored.
func get(c *gin.Context, key any) (v any, ok bool) {
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	return c.Get(key)
}
