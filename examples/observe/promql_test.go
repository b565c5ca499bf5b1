package main

import (
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queryRefs returns the metric names and label names a PromQL expression
// refers to: the names of its selectors, the labels of their matchers and
// of by/without/on/ignoring/group_left/group_right lists. Grafana's
// variables ($policy, $__rate_interval) may stand in strings and ranges.
// It knows PromQL's functions and aggregations and refuses any other call,
// so that a metric name written as a call is not taken for a function.
// It is no full parser: enough to check a dashboard against an exporter.
func queryRefs(expr string) (metrics, labels []string, err error) {
	toks, err := lexQuery(expr)
	if err != nil {
		return nil, nil, err
	}
	at := func(i int) string {
		if i < len(toks) {
			return toks[i]
		}
		return ""
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t == "{":
			end, ms, ls, err := matchers(toks, i)
			if err != nil {
				return nil, nil, fmt.Errorf("%q: %w", expr, err)
			}
			metrics, labels, i = append(metrics, ms...), append(labels, ls...), end
		case !isIdent(t):
		case at(i+1) == "(" && labelLists[t]:
			j := i + 2
			for ; j < len(toks) && toks[j] != ")"; j++ {
				if toks[j] == "," {
					continue
				}
				if !isIdent(toks[j]) {
					return nil, nil, fmt.Errorf("%q: %q in the label list of %s", expr, toks[j], t)
				}
				labels = append(labels, toks[j])
			}
			if j == len(toks) {
				return nil, nil, fmt.Errorf("%q: unclosed label list of %s", expr, t)
			}
			i = j
		case at(i+1) == "(":
			if !functions[t] {
				return nil, nil, fmt.Errorf("%q: %s is not a PromQL function", expr, t)
			}
		case keywords[t]:
		case functions[t] && (at(i+1) == "by" || at(i+1) == "without"): // sum by (x) (…)
		default:
			metrics = append(metrics, t)
		}
	}
	return metrics, labels, nil
}

// matchers reads the label matchers of the selector opened at toks[i],
// and returns the index of its "}", and the metric named by a __name__
// matcher, if any.
func matchers(toks []string, i int) (end int, metrics, labels []string, err error) {
	for j := i + 1; j < len(toks); j++ {
		switch t := toks[j]; {
		case t == "}":
			return j, metrics, labels, nil
		case t == ",":
		case isIdent(t) && j+2 < len(toks) && matchOps[toks[j+1]] && isString(toks[j+2]):
			if t == "__name__" {
				metrics = append(metrics, strings.Trim(toks[j+2], "\"'`"))
			} else {
				labels = append(labels, t)
			}
			j += 2
		default:
			return 0, nil, nil, fmt.Errorf("bad label matcher at %q", t)
		}
	}
	return 0, nil, nil, fmt.Errorf("unclosed selector")
}

var (
	labelLists = set("by", "without", "on", "ignoring", "group_left", "group_right")
	keywords   = set("and", "or", "unless", "bool", "offset", "inf", "nan", "Inf", "NaN")
	matchOps   = set("=", "!=", "=~", "!~")
	functions  = set(
		// aggregations
		"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk", "quantile",
		"limitk", "limit_ratio",
		// functions
		"abs", "absent", "absent_over_time", "ceil", "changes", "clamp", "clamp_max", "clamp_min", "day_of_month",
		"day_of_week", "day_of_year", "days_in_month", "delta", "deriv", "exp", "floor", "histogram_avg",
		"histogram_count", "histogram_sum", "histogram_fraction", "histogram_quantile", "histogram_stddev",
		"histogram_stdvar", "hour", "idelta", "increase", "irate", "label_join", "label_replace", "ln", "log2",
		"log10", "minute", "month", "predict_linear", "rate", "resets", "round", "scalar", "sgn", "sort",
		"sort_desc", "sqrt", "time", "timestamp", "vector", "year", "avg_over_time", "min_over_time",
		"max_over_time", "sum_over_time", "count_over_time", "quantile_over_time", "stddev_over_time",
		"stdvar_over_time", "last_over_time", "present_over_time", "start", "end")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func isIdent(t string) bool {
	return t != "" && (t[0] == '_' || t[0] == ':' || unicode.IsLetter(rune(t[0])))
}

func isString(t string) bool { return t != "" && strings.ContainsRune("\"'`", rune(t[0])) }

// lexQuery splits a PromQL expression into identifiers, strings (quotes
// kept), numbers and operators. Range and subquery brackets ("[5m]",
// "[$__rate_interval]") and Grafana variables outside strings are
// dropped.
func lexQuery(s string) ([]string, error) {
	var toks []string
	identChar := func(c byte) bool {
		return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' && c != '`' {
					j++
				}
			}
			if j >= len(s) {
				return nil, fmt.Errorf("%q: unclosed string", s)
			}
			toks, i = append(toks, s[i:j+1]), j+1
		case c == '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("%q: unclosed range", s)
			}
			i += j + 1
		case c == '$':
			j := i + 1
			if j < len(s) && s[j] == '{' {
				k := strings.IndexByte(s[j:], '}')
				if k < 0 {
					return nil, fmt.Errorf("%q: unclosed variable", s)
				}
				j += k + 1
			}
			for j < len(s) && identChar(s[j]) {
				j++
			}
			i = j
		case identChar(c) || c == '.':
			j := i
			for j < len(s) && (identChar(s[j]) || s[j] == '.') {
				j++
			}
			toks, i = append(toks, s[i:j]), j
		default:
			if i+1 < len(s) && matchOps[s[i:i+2]] || i+1 < len(s) && (s[i:i+2] == "==" || s[i:i+2] == ">=" || s[i:i+2] == "<=") {
				toks, i = append(toks, s[i:i+2]), i+2
				continue
			}
			toks, i = append(toks, s[i:i+1]), i+1
		}
	}
	return toks, nil
}

func TestQueryRefs(t *testing.T) {
	for _, tc := range []struct {
		expr            string
		metrics, labels []string
	}{
		{`floodgate_store_up`, []string{"floodgate_store_up"}, nil},
		{`sum by (result) (rate(floodgate_decisions_total{policy=~"$policy"}[$__rate_interval]))`,
			[]string{"floodgate_decisions_total"}, []string{"result", "policy"}},
		{`sum(rate(a_total{x="1",y!~'b,c'}[5m])) without (z) / on (w) group_left(v) b`,
			[]string{"a_total", "b"}, []string{"x", "y", "z", "w", "v"}},
		{`histogram_quantile(0.99, sum by (le, store) (rate(floodgate_store_latency_seconds_bucket[$__rate_interval])))`,
			[]string{"floodgate_store_latency_seconds_bucket"}, []string{"le", "store"}},
		{`topk(10, sum by (policy, limit) (increase(floodgate_decisions_total{result="denied"}[$__range]))) > bool 0`,
			[]string{"floodgate_decisions_total"}, []string{"policy", "limit", "result"}},
		{`{__name__="m", a="}"} offset 5m and n`, []string{"m", "n"}, []string{"a"}},
		{`rate(x[${__rate_interval}:1m]) * 1e3`, []string{"x"}, nil},
	} {
		m, l, err := queryRefs(tc.expr)
		require.NoError(t, err, tc.expr)
		assert.Equal(t, tc.metrics, m, tc.expr)
		assert.Equal(t, tc.labels, l, tc.expr)
	}
	for _, bad := range []string{
		`floodgate_decisions_total(x)`, // a metric called like a function
		`sum by (policy`,
		`x{a="b"`,
		`x{a=b}`,
		`x{a="b}`,
		`rate(x[5m)`,
	} {
		_, _, err := queryRefs(bad)
		assert.Error(t, err, bad)
	}
}
