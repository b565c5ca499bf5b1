package coretest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// The suite's checks, on plain testing.TB: a program that imports coretest
// (a store's tests) builds no assertion library. The require* functions
// stop the test, the assert* ones record the failure and go on. msgAndArgs
// is a format and its arguments, as testify's.

func fail(t testing.TB, fatal bool, what string, msgAndArgs []any) {
	t.Helper()
	if len(msgAndArgs) > 0 {
		if f, ok := msgAndArgs[0].(string); ok {
			what += ": " + fmt.Sprintf(f, msgAndArgs[1:]...)
		} else {
			what += ": " + fmt.Sprint(msgAndArgs...)
		}
	}
	if fatal {
		t.Fatal(what)
		return
	}
	t.Error(what)
}

// check reports, unless ok, what format and args say.
func check(t testing.TB, fatal, ok bool, msgAndArgs []any, format string, args ...any) bool {
	t.Helper()
	if !ok {
		fail(t, fatal, fmt.Sprintf(format, args...), msgAndArgs)
	}
	return ok
}

func equal(t testing.TB, fatal bool, want, got any, msgAndArgs []any) bool {
	t.Helper()
	return check(t, fatal, reflect.DeepEqual(want, got), msgAndArgs, "got %#v, want %#v", got, want)
}

func truth(t testing.TB, fatal, want, got bool, msgAndArgs []any) bool {
	t.Helper()
	return check(t, fatal, got == want, msgAndArgs, "got %v, want %v", got, want)
}

func errorIs(t testing.TB, fatal bool, err, target error, msgAndArgs []any) bool {
	t.Helper()
	return check(t, fatal, errors.Is(err, target), msgAndArgs, "error %v, want one matching %v", err, target)
}

func requireNoError(t testing.TB, err error, msgAndArgs ...any) {
	t.Helper()
	check(t, true, err == nil, msgAndArgs, "unexpected error: %v", err)
}

func requireEqual[T any](t testing.TB, want, got T, msgAndArgs ...any) {
	t.Helper()
	equal(t, true, want, got, msgAndArgs)
}

func requireTrue(t testing.TB, ok bool, msgAndArgs ...any) {
	t.Helper()
	truth(t, true, true, ok, msgAndArgs)
}

func requireFalse(t testing.TB, ok bool, msgAndArgs ...any) {
	t.Helper()
	truth(t, true, false, ok, msgAndArgs)
}

func requireErrorIs(t testing.TB, err, target error, msgAndArgs ...any) {
	t.Helper()
	errorIs(t, true, err, target, msgAndArgs)
}

func requireLen[T any](t testing.TB, s []T, n int, msgAndArgs ...any) {
	t.Helper()
	check(t, true, len(s) == n, msgAndArgs, "length %d, want %d", len(s), n)
}

func assertEqual[T any](t testing.TB, want, got T, msgAndArgs ...any) bool {
	t.Helper()
	return equal(t, false, want, got, msgAndArgs)
}

func assertTrue(t testing.TB, ok bool, msgAndArgs ...any) bool {
	t.Helper()
	return truth(t, false, true, ok, msgAndArgs)
}

func assertFalse(t testing.TB, ok bool, msgAndArgs ...any) bool {
	t.Helper()
	return truth(t, false, false, ok, msgAndArgs)
}

func assertZero[T comparable](t testing.TB, got T, msgAndArgs ...any) bool {
	t.Helper()
	var zero T
	return assertEqual(t, zero, got, msgAndArgs...)
}

func assertErrorIs(t testing.TB, err, target error, msgAndArgs ...any) bool {
	t.Helper()
	return errorIs(t, false, err, target, msgAndArgs)
}

func assertLessOrEqual(t testing.TB, got, bound int64, msgAndArgs ...any) bool {
	t.Helper()
	return check(t, false, got <= bound, msgAndArgs, "%d exceeds %d", got, bound)
}
