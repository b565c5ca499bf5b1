package same

import (
	"math"
	"reflect"
	"unsafe"
)

// Identical reports whether a and b are one value: a == b where == can
// tell, and, where == panics or cannot be used (a func, a struct holding
// a slice or a map), values of one type whose parts are one by identity:
// a slice the same elements in memory (one array, length and capacity), a
// map, a pointer or a channel the same one, a func the same closure (its
// code and captured variables), the rest equal by ==. Identical values
// behave alike: a limiter Identical to another is that limiter. Values
// told apart may still be alike (two slices of equal elements, two
// closures of one function over one variable): false then costs a
// caller that takes them for two only the work of two, never a value
// taken for another. A func reached only through an interface held in a
// field not exported is taken for another.
func Identical(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if Is(a, b) {
		return true
	}
	t := reflect.TypeOf(a)
	if t != reflect.TypeOf(b) {
		return false
	}
	// Addressable copies: a func's closure is read from where it is held.
	x, y := reflect.New(t).Elem(), reflect.New(t).Elem()
	x.Set(reflect.ValueOf(a))
	y.Set(reflect.ValueOf(b))
	return identical(x, y)
}

// identical is Identical for x and y of one type.
func identical(x, y reflect.Value) bool {
	switch x.Kind() {
	case reflect.Bool:
		return x.Bool() == y.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return x.Int() == y.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return x.Uint() == y.Uint()
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(x.Float()) == math.Float64bits(y.Float())
	case reflect.Complex64, reflect.Complex128:
		cx, cy := x.Complex(), y.Complex()
		return math.Float64bits(real(cx)) == math.Float64bits(real(cy)) &&
			math.Float64bits(imag(cx)) == math.Float64bits(imag(cy))
	case reflect.String:
		return x.String() == y.String()
	case reflect.Pointer, reflect.Chan, reflect.UnsafePointer, reflect.Map:
		return x.Pointer() == y.Pointer()
	case reflect.Slice:
		return x.Pointer() == y.Pointer() && x.Len() == y.Len() && x.Cap() == y.Cap() && x.IsNil() == y.IsNil()
	case reflect.Func:
		cx, okX := closure(x)
		cy, okY := closure(y)
		return okX && okY && cx == cy
	case reflect.Interface:
		if x.IsNil() || y.IsNil() {
			return x.IsNil() && y.IsNil()
		}
		ex, ey := x.Elem(), y.Elem()
		return ex.Type() == ey.Type() && identical(ex, ey)
	case reflect.Array:
		for i := range x.Len() {
			if !identical(x.Index(i), y.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range x.NumField() {
			if !identical(x.Field(i), y.Field(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// closure returns the closure a func value f points to (its code and
// captured variables; nil for a nil func): the word a func value is made
// of. ok is false when it cannot be read (a func inside an interface
// held in a field not exported: not addressable, not to be copied).
func closure(f reflect.Value) (c unsafe.Pointer, ok bool) {
	if !f.CanAddr() {
		if !f.CanInterface() {
			return nil, false
		}
		cp := reflect.New(f.Type()).Elem()
		cp.Set(f)
		f = cp
	}
	return *(*unsafe.Pointer)(f.Addr().UnsafePointer()), true
}
