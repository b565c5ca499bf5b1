package keyfunc

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Join returns a Func whose key combines the keys of fs, in order, each
// prefixed with its length in bytes and a colon: parts "a|b" and "c" give
// "3:a|b1:c". The encoding is injective: distinct lists of parts never give
// the same key, whatever bytes the parts hold. When a part fails, the Func
// returns its error, wrapped; an empty part returned with a nil error is a
// failure wrapping [ErrNoKey].
//
// Join panics if fs is empty or holds a nil Func.
func Join(fs ...Func) Func {
	fs = checkFuncs("Join", fs)
	return func(r *http.Request) (string, error) {
		var b []byte
		for i, f := range fs {
			k, err := call(f, r)
			if err != nil {
				return "", fmt.Errorf("keyfunc: join part %d: %w", i, err)
			}
			b = strconv.AppendInt(b, int64(len(k)), 10)
			b = append(b, ':')
			b = append(b, k...)
		}
		return string(b), nil
	}
}

// First returns a Func that tries fs in order and returns the first key one
// of them finds. When all fail, its error wraps [ErrNoKey] and each of their
// errors. The keys of different Funcs are not told apart: join a [Const] to
// each to keep them apart if they may collide.
//
// First panics if fs is empty or holds a nil Func.
func First(fs ...Func) Func {
	fs = checkFuncs("First", fs)
	return func(r *http.Request) (string, error) {
		errs := make([]error, 0, len(fs))
		for _, f := range fs {
			k, err := call(f, r)
			if err == nil {
				return k, nil
			}
			errs = append(errs, err)
		}
		return "", &firstError{errs: errs}
	}
}

// firstError reports that every Func given to First failed.
type firstError struct{ errs []error }

func (e *firstError) Error() string {
	msgs := make([]string, len(e.errs))
	for i, err := range e.errs {
		msgs[i] = err.Error()
	}
	return "keyfunc: no key function succeeded: " + strings.Join(msgs, "; ")
}

func (e *firstError) Unwrap() []error { return append([]error{ErrNoKey}, e.errs...) }

// call runs f, turning an empty key with a nil error into an ErrNoKey error.
func call(f Func, r *http.Request) (string, error) {
	k, err := f(r)
	if err == nil && k == "" {
		err = fmt.Errorf("keyfunc: empty key: %w", ErrNoKey)
	}
	return k, err
}

func checkFuncs(name string, fs []Func) []Func {
	if len(fs) == 0 {
		panic(fmt.Errorf("keyfunc: %s: no functions: %w", name, ErrInvalidOptions))
	}
	if slices.ContainsFunc(fs, func(f Func) bool { return f == nil }) {
		panic(fmt.Errorf("keyfunc: %s: nil function: %w", name, ErrInvalidOptions))
	}
	return slices.Clone(fs)
}
