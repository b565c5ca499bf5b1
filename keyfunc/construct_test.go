package keyfunc_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/stretchr/testify/assert"
)

// The constructors that return no error refuse nil functions, empty names
// and keys by panicking when the key function is built — never at the first
// request — with an error wrapping ErrInvalidOptions; ClientIP returns one.
func TestConstructorsRefuseNilAndEmpty(t *testing.T) {
	var nilUser func(*http.Request) (string, bool)
	for name, build := range map[string]func(){
		"Header(\"\")":          func() { keyfunc.Header("") },
		"Header(bad)":           func() { keyfunc.Header("X Key") },
		"User(nil)":             func() { keyfunc.User(nilUser) },
		"UserFromContext(nil)":  func() { keyfunc.UserFromContext(nil) },
		"UserFromContext(func)": func() { keyfunc.UserFromContext([]int{1}) },
		// A comparable type holding a value that is not: the request's
		// context.Value would panic comparing it.
		"UserFromContext(struct holding a slice)": func() { keyfunc.UserFromContext(struct{ v any }{[]int{1}}) },
		"Join()":      func() { keyfunc.Join() },
		"Join(nil)":   func() { keyfunc.Join(keyfunc.Const("a"), nil) },
		"First()":     func() { keyfunc.First() },
		"First(nil)":  func() { keyfunc.First(nil) },
		"Const(\"\")": func() { keyfunc.Const("") },
	} {
		assert.ErrorIs(t, panicOf(build), keyfunc.ErrInvalidOptions, name)
	}
	_, err := keyfunc.ClientIP(keyfunc.IPOptions{TrustedHops: -1})
	assert.ErrorIs(t, err, keyfunc.ErrInvalidOptions)
}

func panicOf(f func()) (err error) {
	defer func() {
		switch v := recover().(type) {
		case nil:
			err = errors.New("no panic")
		case error:
			err = v
		default:
			err = fmt.Errorf("panic %v", v)
		}
	}()
	f()
	return nil
}
