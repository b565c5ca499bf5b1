package core_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseErrorCase is an input refused, the column and token blamed and the
// whole message (less "core: " and ": invalid rate limit configuration").
type parseErrorCase struct {
	in     string
	column int
	token  string
	msg    string
}

// checkParseError asserts that err is the ParseError tc describes, and
// that its token is found in the input at its column.
func checkParseError(t *testing.T, tc parseErrorCase, err error) {
	t.Helper()
	require.Error(t, err, tc.in)
	assert.ErrorIs(t, err, core.ErrInvalidConfig, tc.in)
	var pe *core.ParseError
	require.True(t, errors.As(err, &pe), tc.in)
	assert.Equal(t, tc.column, pe.Column, tc.in)
	assert.Equal(t, tc.token, pe.Token, tc.in)
	assert.Equal(t, "core: "+tc.msg+": invalid rate limit configuration", err.Error(), tc.in)
	assert.True(t, strings.HasPrefix(tc.in[pe.Column-1:], pe.Token), "%q: token %q not at column %d", tc.in, pe.Token, pe.Column)
}

// Every class of error: its message, the token blamed and its column.
func TestParseAlgorithmErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []parseErrorCase{
		{"", 1, "", "empty limit at column 1: want a rate such as 100/min"},
		{"   ", 4, "", "empty limit at column 4: want a rate such as 100/min"},
		{"100", 1, "100", "rate \"100\" at column 1 has no '/': want COUNT/PERIOD such as 100/min, without spaces"},
		{"100 /min", 1, "100", "rate \"100\" at column 1 has no '/': want COUNT/PERIOD such as 100/min, without spaces"},
		{"/min", 1, "", "missing count at column 1: want a whole number ≥ 1 before '/', as in 100/min"},
		{"x/min", 1, "x", "count \"x\" at column 1: want a whole number ≥ 1"},
		{"-5/min", 1, "-5", "count \"-5\" at column 1: want a whole number ≥ 1"},
		{"+5/min", 1, "+5", "count \"+5\" at column 1: want a whole number ≥ 1"},
		{"1.5/s", 1, "1.5", "count \"1.5\" at column 1: want a whole number ≥ 1 (counts are whole: scale the period instead, as 3/2s for 1.5/s)"},
		{"0/min", 1, "0", "count \"0\" at column 1: want a whole number ≥ 1"},
		{"9223372036854775808/min", 1, "9223372036854775808", "count \"9223372036854775808\" at column 1 is too large: want at most 9223372036854775807"},
		{"NaN/s", 1, "NaN", "count \"NaN\" at column 1: want a whole number ≥ 1"},
		{"1e3/s", 1, "1e3", "count \"1e3\" at column 1: want a whole number ≥ 1"},
		{"100/", 5, "", "missing period at column 5: want a unit such as s, min, h or day, or a number and a unit such as 15m"},
		{"100/0s", 5, "0s", "period \"0s\" at column 5: want a duration > 0"},
		{"100/0", 5, "0", "period \"0\" at column 5: want a unit after \"0\" (ns, us, ms, s, sec, second, m, min, minute, h, hr, hour, d, day, w, week)"},
		{"100/15", 5, "15", "period \"15\" at column 5: want a unit after \"15\" (ns, us, ms, s, sec, second, m, min, minute, h, hr, hour, d, day, w, week)"},
		{"100/mni", 5, "mni", "unknown unit \"mni\" at column 5 (did you mean \"min\"?): want ns, us, ms, s, sec, second, m, min, minute, h, hr, hour, d, day, w, week"},
		{"100/MIN", 5, "MIN", "unknown unit \"MIN\" at column 5 (did you mean \"min\"? words are lowercase): want ns, us, ms, s, sec, second, m, min, minute, h, hr, hour, d, day, w, week"},
		{"100/M", 5, "M", "unknown unit \"M\" at column 5 (did you mean \"m\"? words are lowercase): want ns, us, ms, s, sec, second, m, min, minute, h, hr, hour, d, day, w, week"},
		{"100/month", 5, "month", "unit \"month\" at column 5: months and years vary in length: use days, as 30d or 365d"},
		{"100/1y", 6, "y", "unit \"y\" at column 6: months and years vary in length: use days, as 30d or 365d"},
		{"100/1..5s", 5, "1.", "number \"1.\" at column 5 in period \"1..5s\": want digits on both sides of '.'"},
		{"100/.5s", 5, ".5", "number \".5\" at column 5 in period \".5s\": want digits on both sides of '.'"},
		{"100/5.s", 5, "5.", "number \"5.\" at column 5 in period \"5.s\": want digits on both sides of '.'"},
		{"100/1.5ns", 5, "1.5ns", "\"1.5ns\" at column 5 is not a whole number of nanoseconds"},
		{"100/1h1h", 5, "1h1h", "period \"1h1h\" at column 5: want units in decreasing order, as in 1h30m"},
		{"100/30m1h", 5, "30m1h", "period \"30m1h\" at column 5: want units in decreasing order, as in 1h30m"},
		{"100/h30m", 5, "h", "unit \"h\" at column 5 in period \"h30m\": want a number before it"},
		{"100/min5s", 5, "min", "unit \"min\" at column 5 in period \"min5s\": want a number before it"},
		{"100/99999999999999999999s", 5, "99999999999999999999s", "period \"99999999999999999999s\" at column 5 is longer than 2^60 ns (about 36 years)"},
		{"100/36500d", 5, "36500d", "period \"36500d\" at column 5 is longer than 2^60 ns (about 36 years)"},
		{"100/1152921504606846977ns", 5, "1152921504606846977ns", "period \"1152921504606846977ns\" at column 5 is longer than 2^60 ns (about 36 years)"},
		{"100/1.5.5s", 5, "1.5.5s", "period \"1.5.5s\" at column 5: want a unit after \"1.5\" (ns, us, ms, s, sec, second, m, min, minute, h, hr, hour, d, day, w, week)"},
		{"10/s brust 20", 6, "brust", "unknown word \"brust\" at column 6 (did you mean \"burst\"?): want an algorithm (gcra, token-bucket, leaky-bucket, fixed-window, sliding-window, sliding-log, hybrid, rolling-window, warm-up, backoff) or a parameter (burst, no-delay, anchored, count-rejected, every, cap, cold, base, max, forgive)"},
		{"10/s BURST 20", 6, "BURST", "unknown word \"BURST\" at column 6 (did you mean \"burst\"? words are lowercase): want an algorithm (gcra, token-bucket, leaky-bucket, fixed-window, sliding-window, sliding-log, hybrid, rolling-window, warm-up, backoff) or a parameter (burst, no-delay, anchored, count-rejected, every, cap, cold, base, max, forgive)"},
		{"10/s fixed-window brust", 19, "brust", "unknown word \"brust\" at column 19: want an algorithm (gcra, token-bucket, leaky-bucket, fixed-window, sliding-window, sliding-log, hybrid, rolling-window, warm-up, backoff) or a parameter of fixed-window (anchored)"},
		{"10/s burst", 6, "burst", "\"burst\" at column 6 wants a whole number ≥ 1 after it"},
		{"10/s burst x", 12, "x", "burst \"x\" at column 12: want a whole number ≥ 1"},
		{"10/s burst 0", 12, "0", "burst \"0\" at column 12: want a whole number ≥ 1 (leave burst out for its default)"},
		{"10/s burst -1", 12, "-1", "burst \"-1\" at column 12: want a whole number ≥ 1"},
		{"10/s burst 1.5", 12, "1.5", "burst \"1.5\" at column 12: want a whole number ≥ 1"},
		{"10/s burst 99999999999999999999", 12, "99999999999999999999", "burst \"99999999999999999999\" at column 12 is too large: want at most 9223372036854775807"},
		{"10/s burst 5 burst 5", 14, "burst", "duplicate \"burst\" at column 14: already given at column 6"},
		{"10/s fixed sliding", 12, "sliding", "second algorithm \"sliding\" at column 12: fixed-window already named at column 6"},
		{"10/s gcra gcra", 11, "gcra", "second algorithm \"gcra\" at column 11: gcra already named at column 6"},
		{"10/s anchored", 6, "anchored", "\"anchored\" at column 6 does not apply to gcra, the default algorithm: it is a parameter of fixed-window"},
		{"10/s token anchored", 12, "anchored", "\"anchored\" at column 12 does not apply to token-bucket: it is a parameter of fixed-window"},
		{"10/s sliding-log anchored", 18, "anchored", "\"anchored\" at column 18 does not apply to sliding-log: it is a parameter of fixed-window"},
		{"10/s burst 5 fixed-window", 6, "burst", "\"burst\" at column 6 does not apply to fixed-window: it is a parameter of gcra, token-bucket, leaky-bucket"},
		{"10/s leaky no-delay -1", 21, "-1", "no-delay \"-1\" at column 21: want a whole number ≥ 0"},
		{"10/s leaky burst 5 no-delay 6", 20, "no-delay 6", "\"no-delay 6\" at column 20: LeakyBucket: no-delay 6 must be in [0, capacity 5]"},
		{"10/s leaky no-delay 6 burst 5", 23, "burst 5", "\"burst 5\" at column 23: LeakyBucket: no-delay 6 must be in [0, capacity 5]"},
		{"10/day rolling", 8, "rolling", "rolling at column 8 needs \"every PERIOD\", the period the window rolls by, such as every 1h"},
		{"10/day rolling every", 16, "every", "\"every\" at column 16 wants a duration such as 30s or 1h after it"},
		{"10/day rolling every 7h", 16, "every 7h", "\"every 7h\" at column 16: RollingWindow: period 7h0m0s must divide window 24h0m0s"},
		{"10/day rolling every 0s", 22, "0s", "every \"0s\" at column 22: want a duration > 0"},
		{"10/day rolling every 1m", 16, "every 1m", "\"every 1m\" at column 16: RollingWindow: window 24h0m0s spans 1440 periods of 1m0s, more than 1024"},
		{"10/day rolling every 1h cap 11", 25, "cap 11", "\"cap 11\" at column 25: RollingWindow: period cap 11 must be in [0, quota 10]"},
		{"10/day rolling every 1h cap 0", 29, "0", "cap \"0\" at column 29: want a whole number ≥ 1 (leave cap out for its default)"},
		{"10/h rolling every 2h", 14, "every 2h", "\"every 2h\" at column 14: RollingWindow: period 2h0m0s must divide window 1h0m0s"},
		{"10/s warm-up", 6, "warm-up", "\"warm-up\" at column 6 wants a duration such as 30s or 1h after it"},
		{"10/s warm-up 0s", 14, "0s", "warm-up \"0s\" at column 14: want a duration > 0"},
		{"10/s warm-up x", 14, "x", "warm-up \"x\" at column 14: want a duration: a number and a unit such as 30s or 1h, or a unit alone"},
		{"10/s warm-up 1m cold 0", 22, "0", "cold \"0\" at column 22: want a decimal number ≥ 1 such as 3 or 2.5 (leave cold out for its default)"},
		{"10/s warm-up 1m cold 0.5", 17, "cold 0.5", "\"cold 0.5\" at column 17: WarmUp: cold factor 0.5 must be finite and ≥ 1"},
		{"10/s warm-up 1m cold x", 22, "x", "cold \"x\" at column 22: want a decimal number ≥ 1 such as 3 or 2.5"},
		{"10/s warm-up 1m cold 1e3", 22, "1e3", "cold \"1e3\" at column 22: want a decimal number ≥ 1 such as 3 or 2.5"},
		{"10/s warm-up 1m cold -3", 22, "-3", "cold \"-3\" at column 22: want a decimal number ≥ 1 such as 3 or 2.5"},
		{"10/s warm-up 1m cold NaN", 22, "NaN", "cold \"NaN\" at column 22: want a decimal number ≥ 1 such as 3 or 2.5"},
		{"10/s warm-up 1m cold inf", 22, "inf", "cold \"inf\" at column 22: want a decimal number ≥ 1 such as 3 or 2.5"},
		{"1/13000d warm-up 1s", 1, "1/13000d", "\"1/13000d\" at column 1: WarmUp: period 312000h0m0s × cold factor 3 overflows 36 years"},
		{"5/h backoff base 0s", 18, "0s", "base \"0s\" at column 18: want a duration > 0"},
		{"5/h backoff base 1h max 1m", 21, "max 1m", "\"max 1m\" at column 21: Backoff: max 1m0s is below base 1h0m0s"},
		{"5/h backoff max 2d forgive 1d", 20, "forgive 1d", "\"forgive 1d\" at column 20: Backoff: forgive 24h0m0s is below max 48h0m0s"},
		{"5/h backoff forgive 1m", 13, "forgive 1m", "\"forgive 1m\" at column 13: Backoff: forgive 1m0s is below max 15m0s"},
		{"70000/min sliding-log", 1, "70000/min", "\"70000/min\" at column 1: SlidingLog: quota 70000 must be in [1, 65536] (use SlidingWindow or RollingWindow for larger quotas)"},
		{"5000000000/min backoff", 1, "5000000000/min", "\"5000000000/min\" at column 1: Backoff: free 5000000000 must be in [1, 4294967296]"},
		{"3/1152921504606846976ns", 1, "3/1152921504606846976ns", "\"3/1152921504606846976ns\" at column 1: GCRA: burst 3 × interval 106751h59m28.202282326s exceeds 36 years"},
		{"api: 10/s", 1, "api:", "rate \"api:\" at column 1 has no '/': want COUNT/PERIOD such as 100/min, without spaces (a limit's name and ':' are read by ParsePolicy)"},
		{"10/s 1000/day", 6, "1000/day", "unknown word \"1000/day\" at column 6 (a second rate: separate limits with ';' in a policy): want an algorithm (gcra, token-bucket, leaky-bucket, fixed-window, sliding-window, sliding-log, hybrid, rolling-window, warm-up, backoff) or a parameter (burst, no-delay, anchored, count-rejected, every, cap, cold, base, max, forgive)"},
		{"burst 10/s", 1, "burst", "\"burst\" at column 1 comes before the rate: want the rate first (COUNT/PERIOD such as 100/min), then the words"},
		{"fixed-window 10/s", 1, "fixed-window", "\"fixed-window\" at column 1 comes before the rate: want the rate first (COUNT/PERIOD such as 100/min), then the words"},
		{"10/s ;", 6, ";", "unknown word \";\" at column 6: want an algorithm (gcra, token-bucket, leaky-bucket, fixed-window, sliding-window, sliding-log, hybrid, rolling-window, warm-up, backoff) or a parameter (burst, no-delay, anchored, count-rejected, every, cap, cold, base, max, forgive)"},
		{"100/min shadow", 9, "shadow", "unknown word \"shadow\" at column 9 (shadow comes before the rate, in a policy: shadow 100/min): want an algorithm (gcra, token-bucket, leaky-bucket, fixed-window, sliding-window, sliding-log, hybrid, rolling-window, warm-up, backoff) or a parameter (burst, no-delay, anchored, count-rejected, every, cap, cold, base, max, forgive)"},
		{"10/s:", 4, "s:", "unknown unit \"s:\" at column 4 (did you mean \"s\"?): want ns, us, ms, s, sec, second, m, min, minute, h, hr, hour, d, day, w, week"},
	} {
		a, err := core.ParseAlgorithm(tc.in)
		assert.Nil(t, a, tc.in)
		checkParseError(t, tc, err)
	}
}

func TestParsePolicyErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []parseErrorCase{
		{"", 1, "", "empty limit at column 1: want a rate such as 100/min"},
		{";", 1, "", "empty limit at column 1: want a rate such as 100/min"},
		{"10/s;", 6, "", "empty limit at column 6: want a rate such as 100/min"},
		{"10/s;;1/min", 6, "", "empty limit at column 6: want a rate such as 100/min"},
		{"10/s; 20/s", 7, "20/s", "duplicate limit name \"second\" at column 7, named after its period (name each limit, as \"minute: 100/min\"): already used at column 1"},
		{"a: 10/s; a: 1/min", 10, "a: 1/min", "duplicate limit name \"a\" at column 10: already used at column 1"},
		{"a: 10/s; 1/min; a: 1/h", 17, "a: 1/h", "duplicate limit name \"a\" at column 17: already used at column 1"},
		{"a b: 10/s", 1, "a b", "limit name \"a b\" at column 1: want letters, digits, '-', '_' and '.', or a double-quoted string"},
		{": 10/s", 1, "", "limit name \"\" at column 1: want letters, digits, '-', '_' and '.', or a double-quoted string"},
		{"a:", 3, "", "empty limit at column 3: want a rate such as 100/min"},
		{"burst: 10/s; daily 10000/day", 14, "daily", "rate \"daily\" at column 14 has no '/': want COUNT/PERIOD such as 100/min, without spaces (a limit's name? follow it with ':', as daily: COUNT/PERIOD)"},
		{"minute: 60/min; day: 1000/day fixed-window shadow", 44, "shadow", "unknown word \"shadow\" at column 44 (shadow comes before the rate, in a policy: shadow 100/min): want an algorithm (gcra, token-bucket, leaky-bucket, fixed-window, sliding-window, sliding-log, hybrid, rolling-window, warm-up, backoff) or a parameter of fixed-window (anchored)"},
		{"a: b: 10/s", 4, "b:", "rate \"b:\" at column 4 has no '/': want COUNT/PERIOD such as 100/min, without spaces (a limit has one name)"},
		{"10/s, 1000/day", 4, "s,", "unknown unit \"s,\" at column 4 (separate limits with ';' in a policy, and words with spaces): want ns, us, ms, s, sec, second, m, min, minute, h, hr, hour, d, day, w, week"},
		{"\"a\" 10/s", 1, "\"a\"", "limit name \"a\" at column 1: want ':' after it"},
		{"\"a\" x: 10/s", 5, "x", "\"x\" at column 5 after the limit name: want ':'"},
		{"\"a", 1, "\"a", "limit name \"\\\"a\" at column 1: want a closing '\"'"},
		{"\"a\\q\": 10/s", 1, "\"a\\q\"", "limit name \"a\\q\" at column 1: want a Go double-quoted string"},
		{"\"\\xffa\": 10/s", 1, "\"\\xffa\"", "limit name \"\\xffa\" at column 1 is not valid UTF-8"},
		{"a: 10/s burst", 9, "burst", "\"burst\" at column 9 wants a whole number ≥ 1 after it"},
		{"a: 10/s; b: 1/min brust 2", 19, "brust", "unknown word \"brust\" at column 19 (did you mean \"burst\"?): want an algorithm (gcra, token-bucket, leaky-bucket, fixed-window, sliding-window, sliding-log, hybrid, rolling-window, warm-up, backoff) or a parameter (burst, no-delay, anchored, count-rejected, every, cap, cold, base, max, forgive)"},
		{"1/s; 2/min; 3/hour; 4/day; 5/7d", 28, "5/7d", "limit 5 at column 28: a policy has at most 4 limits"},
		{"x:10/s;y:10/s;z:10/s;w:10/s;v:1/s", 29, "v:1/s", "limit 5 at column 29: a policy has at most 4 limits"},
	} {
		p, err := core.ParsePolicy("api", tc.in)
		assert.Nil(t, p, tc.in)
		checkParseError(t, tc, err)
	}
}
