package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/floodgate-go/floodgate/core"
	"go.yaml.in/yaml/v3"
)

// policyDef is a policy of the policies section and its limiter.
type policyDef struct {
	lim *core.Limiter // nil when the policy is invalid
	// pol is the policy parsed, and at where its rate was given: what a
	// reload applies to lim, the running limiter of its name.
	pol *core.Policy
	at  *yaml.Node
}

// buildPolicies parses every policy of the policies section n and makes
// its limiter on the store.
func (b *builder) buildPolicies(n *yaml.Node) {
	b.policies = map[string]*policyDef{}
	if n == nil {
		return
	}
	fs, _ := b.entries(n, "policies")
	for _, f := range fs {
		def := &policyDef{}
		b.policies[f.key.Value] = def
		what := fmt.Sprintf("policies.%s", f.key.Value)
		v, ok := b.scalar(f.val, what)
		if !ok {
			continue
		}
		p, err := core.ParsePolicy(f.key.Value, v.Value)
		if err != nil {
			b.rateError(v, what, err)
			continue
		}
		def.pol, def.at = p, v
		if b.running != nil {
			if def.lim = b.running.policies[f.key.Value]; def.lim == nil {
				b.errorf(f.key, "%s: a policy the running configuration does not have: a reload changes the limits of its policies, it adds none (load the file anew)", what)
			}
			continue
		}
		if b.store == nil { // the store section failed: reported already
			continue
		}
		opts := []core.Option{core.WithStore(b.store)}
		if b.opts.Clock != nil {
			opts = append(opts, core.WithClock(b.opts.Clock))
		}
		if def.lim, err = core.NewLimiter(p, opts...); err != nil {
			b.fail(v, fmt.Errorf("%s: %w", what, err))
		}
	}
}

// policy returns the limiter of the policy scalar n names; nil, with an
// error recorded unless the policy itself was reported, if it has none.
func (b *builder) policy(n *yaml.Node, what string) *core.Limiter {
	name, ok := b.str(n, what)
	if !ok {
		return nil
	}
	def := b.policies[name]
	if def == nil {
		b.errorf(n, "%s: no policy %q in policies", what, clip(name))
		return nil
	}
	return def.lim
}

// rateError records the error of the rate in scalar v at the column the
// ParseError names, counted in the file, when the rate is written on one
// line as it is read (plain or quoted without escapes); else at the
// scalar, whose message names the column within the rate.
func (b *builder) rateError(v *yaml.Node, what string, err error) {
	err = fmt.Errorf("%s: rate %q: %w", what, clip(v.Value), err)
	var pe *core.ParseError
	if errors.As(err, &pe) {
		if col, ok := b.column(v, pe.Column); ok {
			b.failAt(v.Line, col, err)
			return
		}
	}
	b.fail(v, err)
}

// column returns the file column of the 1-based byte column col of
// scalar v's value, if the value stands verbatim on v's line.
func (b *builder) column(v *yaml.Node, col int) (int, bool) {
	if v.Line < 1 || v.Line > len(b.lines) || col < 1 || col > len(v.Value)+1 || !utf8.ValidString(v.Value[:col-1]) {
		return 0, false
	}
	line := b.lines[v.Line-1]
	off := 0 // the byte offset of character column v.Column
	for range v.Column - 1 {
		if off >= len(line) {
			return 0, false
		}
		_, size := utf8.DecodeRuneInString(line[off:])
		off += size
	}
	quote := 0
	switch v.Style {
	case 0:
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		quote = 1
	default:
		return 0, false
	}
	if !strings.HasPrefix(line[min(off+quote, len(line)):], v.Value) {
		return 0, false
	}
	return v.Column + quote + utf8.RuneCountInString(v.Value[:col-1]), true
}

// names lists the keys of m, for errors.
func names[V any](m map[string]V) string {
	if len(m) == 0 {
		return "none given"
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, fmt.Sprintf("%q", k))
	}
	slices.Sort(out)
	return "given: " + strings.Join(out, ", ")
}
