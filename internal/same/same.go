// Package same compares values of interface type that users supply
// (limiters, context keys) without the panic == gives on a value of a
// comparable type holding one that is not (a struct whose interface field
// holds a slice): a panic at request time where a comparison or a map key
// was assumed safe.
package same

import "reflect"

// Is reports a == b; false where == would panic.
func Is(a, b any) (is bool) {
	defer func() {
		if recover() != nil {
			is = false
		}
	}()
	return a == b
}

// Comparable reports whether v can be compared with == and used as a map
// key without a panic: a non-nil value of a comparable type whose value
// holds nothing that cannot be compared.
func Comparable(v any) bool {
	if v == nil || !reflect.TypeOf(v).Comparable() {
		return false
	}
	return Is(v, v)
}
