package config

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/floodgate-go/floodgate/core"
	"go.yaml.in/yaml/v3"
)

// Reload reads the configuration file at path again and applies its
// policies' limits to the running limiters; see [Limiter.ReloadData]. It
// reads the file once: replace the file by renaming a new one over it,
// never by writing it in place, as a file read while it is written is a
// prefix of itself, which may parse as other limits ("10/1h30m" cut to
// "10/1h").
func (l *Limiter) Reload(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: reload: %w", err)
	}
	return l.ReloadData(path, data)
}

// ReloadData applies the policies' limits of the configuration data (as
// [Parse] reads it; name is the file name its errors give) to the running
// limiters, while l serves: every client keeps its count, read under the
// new limits as core.Limiter.SetPolicy says, on the memory and the Redis
// store alike. A request decided while the reload runs is decided under
// its policy's old or new limits, never a mix of one policy's.
//
// The new file is checked as [Parse] checks it, then against the running
// one: it must have the same policies (by name) and the same other
// sections (store, keys, default, routes, headers, dry_run, version; their
// comments, layout and the order of their mappings' fields may change, as
// when a tool prints the file again), and each policy's change must be one
// SetPolicy makes (the same limits, by name and algorithm, keeping the
// same state). Adding or removing a policy, or changing a route, a key or
// the store, is refused: it changes which requests count where, which a
// new Limiter (Load) does from empty counts. On any error, nothing is
// applied and l goes on with its limits: the error is an [Error] at the
// offending line, or several joined. Reloads are serialised.
func (l *Limiter) ReloadData(name string, data []byte) error {
	if l == nil || l.policies == nil {
		return fmt.Errorf("config: reload: nil or zero Limiter (make it with Load or Parse): %w", core.ErrInvalidConfig)
	}
	l.reloadMu.Lock()
	defer l.reloadMu.Unlock()
	d := &decoder{file: name}
	root, ok := d.read(data)
	if !ok {
		return d.err()
	}
	b := &builder{decoder: d, opts: l.opts, running: l}
	b.build(root)
	if len(d.errs) > 0 {
		return d.err()
	}
	top := sections(root)
	for _, k := range topFields {
		if k == "policies" || sameNode(l.top[k], top[k]) {
			continue
		}
		at := root
		if n := top[k]; n != nil {
			at = n
		}
		b.errorf(at, "%s: changed: a reload changes the policies' limits only (load the file anew for the rest)", k)
	}
	for _, p := range sortedKeys(l.policies) {
		if b.policies[p] == nil {
			at := root
			if n := top["policies"]; n != nil {
				at = n
			}
			b.errorf(at, "policies: %q is gone: a reload removes no policy (load the file anew)", clip(p))
		}
	}
	if len(d.errs) > 0 {
		return d.err()
	}
	// Apply every change, or none. Every change is checked before any is
	// made: a change refused after others were made would put them back,
	// but requests decided meanwhile were decided under limits the reload
	// refused (100 refused reloads let 2,459 requests through a limit of
	// 1,000). A change the store alone refuses (past the check) still puts
	// back those made.
	type change struct {
		lim *core.Limiter
		old *core.Policy
	}
	var todo []string
	for _, p := range sortedKeys(b.policies) {
		def := b.policies[p]
		old := def.lim.Policy()
		if slices.Equal(old.Limits(), def.pol.Limits()) && slices.Equal(old.ShadowLimits(), def.pol.ShadowLimits()) {
			continue // unchanged, shadow limits included: nothing to set
		}
		if err := def.lim.CheckPolicy(def.pol); err != nil {
			b.fail(def.at, fmt.Errorf("policies.%s: %w%s", p, err, refusedHint(err)))
		}
		todo = append(todo, p)
	}
	if len(d.errs) > 0 {
		return d.err()
	}
	var done []change
	for _, p := range todo {
		def := b.policies[p]
		old := def.lim.Policy()
		if err := def.lim.SetPolicy(def.pol); err != nil {
			for _, c := range slices.Backward(done) {
				// The way back is a change SetPolicy just made the other
				// way: it cannot be refused.
				_ = c.lim.SetPolicy(c.old)
			}
			b.fail(def.at, fmt.Errorf("policies.%s: %w%s", p, err, refusedHint(err)))
			return d.err()
		}
		done = append(done, change{def.lim, old})
	}
	l.top = top
	return nil
}

// refusedHint says, after a change of limits SetPolicy refuses
// (core.ErrPolicyChange), what an operator can do about it.
func refusedHint(err error) string {
	if !errors.Is(err, core.ErrPolicyChange) {
		return ""
	}
	return ": the running limits stay; load the file anew to apply it (its counts start afresh)"
}

// sections returns the sections of the top-level mapping root by name.
func sections(root *yaml.Node) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if root == nil || root.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		for d := 0; k.Kind == yaml.AliasNode && k.Alias != nil && d < maxDepth; d++ {
			k = k.Alias // a key written as an alias is its anchor's value, as the builder reads it
		}
		out[k.Value] = root.Content[i+1]
	}
	return out
}

// sameNode reports whether a and b hold the same YAML data as the builder
// reads it, for two files that both parsed: the same kinds, tags, values
// and contents, aliases followed; positions, comments and styles aside,
// and so are the order of a mapping's fields (a YAML mapping has none, and
// tools that print a file sort them), a null beside an empty mapping (both
// read as no fields) and a value beside a list of that one value (read as
// a list of one: where a value or a mapping is read, a list is refused).
func sameNode(a, b *yaml.Node) bool {
	return sameDepth(a, b, 0)
}

// maxDepth bounds sameDepth's recursion (aliases may form cycles).
const maxDepth = 64

func sameDepth(a, b *yaml.Node, depth int) bool {
	a, b = follow(a), follow(b)
	switch {
	case a == nil || b == nil:
		return a == b
	case depth > maxDepth:
		return false
	case isNull(a) && isEmptyMapping(b), isEmptyMapping(a) && isNull(b):
		return true
	case isOne(a) && isValue(b):
		return sameDepth(a.Content[0], b, depth+1)
	case isValue(a) && isOne(b):
		return sameDepth(a, b.Content[0], depth+1)
	case a.Kind != b.Kind || a.ShortTag() != b.ShortTag() || a.Value != b.Value || len(a.Content) != len(b.Content):
		return false
	case a.Kind == yaml.MappingNode:
		return sameFields(a, b, depth)
	}
	for i := range a.Content {
		if !sameDepth(a.Content[i], b.Content[i], depth+1) {
			return false
		}
	}
	return true
}

// sameFields reports whether mappings a and b, of as many fields, give
// each field name the same value, in whatever order. Names are scalars,
// distinct within a mapping, in files that parsed.
func sameFields(a, b *yaml.Node, depth int) bool {
	vals := make(map[string]*yaml.Node, len(b.Content)/2)
	for i := 0; i+1 < len(b.Content); i += 2 {
		k := follow(b.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			return false
		}
		vals[k.Value] = b.Content[i+1]
	}
	if len(vals) != len(b.Content)/2 {
		return false
	}
	for i := 0; i+1 < len(a.Content); i += 2 {
		k := follow(a.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode {
			return false
		}
		v, ok := vals[k.Value]
		if !ok || !sameDepth(a.Content[i+1], v, depth+1) {
			return false
		}
	}
	return true
}

// follow follows aliases to the node they name.
func follow(n *yaml.Node) *yaml.Node {
	for d := 0; n != nil && n.Kind == yaml.AliasNode && d <= maxDepth; d++ {
		n = n.Alias
	}
	return n
}

func isEmptyMapping(n *yaml.Node) bool { return n.Kind == yaml.MappingNode && len(n.Content) == 0 }

// isValue reports whether n is a scalar that is not null.
func isValue(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && !isNull(n) }

// isOne reports whether n is a list of one item.
func isOne(n *yaml.Node) bool { return n.Kind == yaml.SequenceNode && len(n.Content) == 1 }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
