package echolimit

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"
)

// withValues returns a shallow copy of c's request whose context answers
// Value for a string key with the value a handler before Limit stored with
// c.Set, if any: key functions (Options.Key, a KeySelector, APIKeyOrIP's
// identify) read the user an authentication middleware found as
// r.Context().Value("user"). Limit hands the copy back with
// keyrequest.Done.
func withValues(c echo.Context) *http.Request {
	r := c.Request()
	v := &valuesRequest{ctx: valuesContext{Context: r.Context(), c: c}}
	// WithContext is inlined and its copy dereferenced at once: it stays
	// on the stack, and the copy and its context are one allocation.
	v.r = *r.WithContext(&v.ctx)
	return &v.r
}

// valuesRequest is the copy of a request that withValues returns and the
// context it gives it, allocated together.
type valuesRequest struct {
	r   http.Request
	ctx valuesContext
}

// valuesContext is a request's context with the values of its echo
// context in front; deadline and cancellation are the request's.
type valuesContext struct {
	context.Context
	c echo.Context
}

// Value returns the value c.Set stored for a string key, or else the
// request context's value for key.
func (v *valuesContext) Value(key any) any {
	if s, ok := key.(string); ok {
		if x := v.c.Get(s); x != nil {
			return x
		}
	}
	return v.Context.Value(key)
}
