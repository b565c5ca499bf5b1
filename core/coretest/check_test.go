package coretest

import (
	"errors"
	"fmt"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper()              {}
func (r *recorder) Error(args ...any)    { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recorder) Fatal(args ...any)    { r.fatals = append(r.fatals, fmt.Sprint(args...)) }
func (r *recorder) failures() (int, int) { return len(r.errors), len(r.fatals) }

// The suite's checks pass what holds, and report what does not: the
// require ones as fatal, the assert ones as errors, with the message.
func TestChecks(t *testing.T) {
	errX := errors.New("x")
	r := &recorder{}
	requireNoError(r, nil)
	requireEqual(r, int64(3), 3)
	requireTrue(r, true)
	requireFalse(r, false)
	requireErrorIs(r, fmt.Errorf("w: %w", errX), errX)
	requireLen(r, []int{1, 2}, 2)
	assertEqual(r, "a", "a")
	assertZero(r, 0)
	assertLessOrEqual(r, 2, 2)
	if e, f := r.failures(); e+f != 0 {
		t.Fatalf("passing checks reported %v %v", r.errors, r.fatals)
	}

	requireNoError(r, errX, "step %d", 7)
	requireEqual(r, 1, 2)
	requireTrue(r, false)
	requireFalse(r, true)
	requireErrorIs(r, nil, errX)
	requireLen(r, []int{1}, 2)
	if e, f := r.failures(); e != 0 || f != 6 {
		t.Fatalf("failing require checks: %d errors, %d fatals; want 0, 6", e, f)
	}
	if want := "unexpected error: x: step 7"; r.fatals[0] != want {
		t.Fatalf("message %q, want %q", r.fatals[0], want)
	}
	if assertEqual(r, 1, 2) || assertTrue(r, false) || assertFalse(r, true) || assertZero(r, 1) ||
		assertErrorIs(r, nil, errX) || assertLessOrEqual(r, 3, 2) {
		t.Fatal("a failing assert check reported success")
	}
	if e, f := r.failures(); e != 6 || f != 6 {
		t.Fatalf("failing assert checks: %d errors, %d fatals; want 6, 6", e, f)
	}
}
