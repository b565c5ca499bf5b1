// Package isnil tells whether a value held in an interface is nil, typed
// nils included, so that constructors can refuse a (*T)(nil) passed where an
// interface is expected instead of panicking on its first use.
package isnil

import (
	"fmt"
	"reflect"
)

// Value reports whether v is nil or holds a nil pointer, map, slice,
// channel, function or interface.
func Value(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// Describe names v for an error saying it is nil: "nil" for a nil
// interface, "a nil T" for a nil value of type T in one.
func Describe(v any) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprintf("a nil %T", v)
}
