package config

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxErrors bounds the errors reported for one file.
const maxErrors = 20

// decoder walks the YAML nodes of one file, recording errors at their
// positions.
type decoder struct {
	file  string
	lines []string // the source, for the columns of rate strings
	errs  []error  // *Error, each
}

// errorf records an error at n's position.
func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.fail(n, fmt.Errorf(format, args...))
}

// fail records err at n's position.
func (d *decoder) fail(n *yaml.Node, err error) {
	d.failAt(n.Line, n.Column, err)
}

func (d *decoder) failAt(line, col int, err error) {
	if line > len(d.lines) && len(d.lines) > 0 { // past the end: at the end
		line, col = len(d.lines), utf8.RuneCountInString(d.lines[len(d.lines)-1])+1
	}
	if len(d.errs) < maxErrors {
		d.errs = append(d.errs, &Error{File: d.file, Line: max(line, 1), Column: max(col, 1), Err: err})
	}
}

// err returns the errors recorded, in the order of the file, nil for none.
func (d *decoder) err() error {
	slices.SortStableFunc(d.errs, func(a, b error) int {
		ea, eb := a.(*Error), b.(*Error)
		return cmp.Or(cmp.Compare(ea.Line, eb.Line), cmp.Compare(ea.Column, eb.Column))
	})
	if len(d.errs) == 1 {
		return d.errs[0]
	}
	return errors.Join(d.errs...)
}

// deref follows aliases to the node they name.
func (d *decoder) deref(n *yaml.Node) (*yaml.Node, bool) {
	for i := 0; n.Kind == yaml.AliasNode; i++ {
		if n.Alias == nil || i == 100 {
			d.errorf(n, "alias *%s names no usable node", n.Value)
			return nil, false
		}
		n = n.Alias
	}
	return n, true
}

// isNull reports whether n is a null scalar ("", "~", "null").
func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// field is one key and its value in a mapping.
type field struct{ key, val *yaml.Node }

// entries returns the fields of mapping n in order: a null n is an empty
// mapping. Keys must be distinct non-empty strings; merge keys ("<<") are
// refused.
func (d *decoder) entries(n *yaml.Node, what string) ([]field, bool) {
	n, ok := d.deref(n)
	if !ok {
		return nil, false
	}
	if isNull(n) {
		return nil, true
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s: want a mapping, not %s", what, kind(n))
		return nil, false
	}
	if !strings.HasPrefix(n.Tag, "!!") {
		d.errorf(n, "%s: tag %s is not supported", what, clip(n.Tag))
		return nil, false
	}
	var out []field
	seen := map[string]*yaml.Node{}
	ok = true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, good := d.deref(n.Content[i])
		switch {
		case !good:
			ok = false
		case k.Kind != yaml.ScalarNode || isNull(k):
			d.errorf(k, "%s: want a name as key, not %s", what, kind(k))
			ok = false
		case k.Tag == "!!merge":
			d.errorf(k, "%s: merge keys (<<) are not supported: write the fields out", what)
			ok = false
		case seen[k.Value] != nil:
			d.errorf(k, "%s: %q given twice (first at line %d)", what, clip(k.Value), seen[k.Value].Line)
			ok = false
		default:
			seen[k.Value] = k
			out = append(out, field{k, n.Content[i+1]})
		}
	}
	return out, ok
}

// mapping returns the fields of mapping n by key, refusing keys not in
// allowed: a misspelt field must not silently drop a setting.
func (d *decoder) mapping(n *yaml.Node, what string, allowed ...string) (map[string]field, bool) {
	fs, ok := d.entries(n, what)
	out := make(map[string]field, len(fs))
	for _, f := range fs {
		if !contains(allowed, f.key.Value) {
			d.errorf(f.key, "%s: unknown field %q: want %s", what, f.key.Value, strings.Join(allowed, ", "))
			ok = false
			continue
		}
		out[f.key.Value] = f
	}
	return out, ok
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// kind names n's kind in errors.
func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return "an empty list" // "want a list of one or more values, not a list" was false
		}
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "nothing (null)"
		}
		if secretive(n.Value) {
			return "a value holding a URL or credentials (not quoted)"
		}
		return fmt.Sprintf("%q", clip(n.Value))
	}
	return "a document"
}

// secretive reports whether s may hold a secret: a URL (whose userinfo
// may be a password) or credentials ("user:password@host").
func secretive(s string) bool { return strings.Contains(s, "://") || strings.Contains(s, "@") }

// clip shortens a value quoted in an error, and hides one that may hold a
// secret (see secretive).
func clip(s string) string {
	if secretive(s) {
		return "(a URL or credentials, not quoted)"
	}
	if len(s) <= 40 {
		return s
	}
	i := 40
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// scalar returns the scalar n, refusing null, collections and tags other
// than YAML's own.
func (d *decoder) scalar(n *yaml.Node, what string) (*yaml.Node, bool) {
	n, ok := d.deref(n)
	if !ok {
		return nil, false
	}
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.errorf(n, "%s: want a value, not %s", what, kind(n))
		return nil, false
	}
	if !strings.HasPrefix(n.Tag, "!!") {
		d.errorf(n, "%s: tag %s is not supported", what, n.Tag)
		return nil, false
	}
	return n, true
}

// str returns the text of scalar n, which may not be empty.
func (d *decoder) str(n *yaml.Node, what string) (string, bool) {
	s, ok := d.scalar(n, what)
	if !ok {
		return "", false
	}
	if s.Value == "" {
		d.errorf(s, "%s: empty", what)
		return "", false
	}
	return s.Value, true
}

// word returns scalar n, which must be one of words.
func (d *decoder) word(n *yaml.Node, what string, words ...string) (string, bool) {
	s, ok := d.str(n, what)
	if ok && !contains(words, s) {
		d.errorf(n, "%s: %q: want %s", what, clip(s), strings.Join(words, ", "))
		return "", false
	}
	return s, ok
}

// integer returns scalar n as an int in [lo, hi].
func (d *decoder) integer(n *yaml.Node, what string, lo, hi int64) (int64, bool) {
	s, ok := d.scalar(n, what)
	if !ok {
		return 0, false
	}
	var v int64
	if s.Tag != "!!int" || s.Decode(&v) != nil {
		d.errorf(s, "%s: %s: want a whole number", what, kind(s))
		return 0, false
	}
	switch {
	case (v < lo || v > hi) && lo == hi: // "want 1 to 1" read as a typo
		d.errorf(s, "%s: %d: want %d", what, v, lo)
		return 0, false
	case v < lo || v > hi:
		d.errorf(s, "%s: %d: want %d to %d", what, v, lo, hi)
		return 0, false
	}
	return v, true
}

// boolean returns scalar n as true or false.
func (d *decoder) boolean(n *yaml.Node, what string) (bool, bool) {
	s, ok := d.scalar(n, what)
	if !ok {
		return false, false
	}
	var v bool
	if s.Tag != "!!bool" || s.Decode(&v) != nil {
		d.errorf(s, "%s: %s: want true or false", what, kind(s))
		return false, false
	}
	return v, true
}

// fraction returns scalar n as a number in [1/most, 1]: one part among at
// most most.
func (d *decoder) fraction(n *yaml.Node, what string, most int) (float64, bool) {
	s, ok := d.scalar(n, what)
	if !ok {
		return 0, false
	}
	var v float64
	if (s.Tag != "!!float" && s.Tag != "!!int") || s.Decode(&v) != nil || math.IsNaN(v) || !(v >= 1/float64(most) && v <= 1) {
		d.errorf(s, "%s: %s: want a number from 1/%d to 1, such as 0.25", what, kind(s), most)
		return 0, false
	}
	return v, true
}

// duration returns scalar n as a positive Go duration ("100ms", "1m30s").
func (d *decoder) duration(n *yaml.Node, what string) (time.Duration, bool) {
	s, ok := d.str(n, what)
	if !ok {
		return 0, false
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		d.errorf(n, "%s: %q: want a positive duration such as 100ms or 1m30s, in Go's units ns, us, ms, s, m, h (not the rate syntax's min, sec, day)", what, clip(s))
		return 0, false
	}
	return v, true
}

// list returns the items of sequence n; a single scalar is a list of one.
func (d *decoder) list(n *yaml.Node, what string) ([]*yaml.Node, bool) {
	n, ok := d.deref(n)
	if !ok {
		return nil, false
	}
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		return []*yaml.Node{n}, true
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		d.errorf(n, "%s: want a list of one or more values, not %s", what, kind(n))
		return nil, false
	}
	if !strings.HasPrefix(n.Tag, "!!") {
		d.errorf(n, "%s: tag %s is not supported", what, clip(n.Tag))
		return nil, false
	}
	return n.Content, true
}

// strs returns the texts of the scalars of list n, and their nodes.
func (d *decoder) strs(n *yaml.Node, what string) ([]string, []*yaml.Node, bool) {
	items, ok := d.list(n, what)
	if !ok {
		return nil, nil, false
	}
	out := make([]string, 0, len(items))
	nodes := make([]*yaml.Node, 0, len(items))
	for _, it := range items {
		s, ok2 := d.str(it, what)
		if !ok2 {
			ok = false
			continue
		}
		it, _ = d.deref(it)
		out, nodes = append(out, s), append(nodes, it)
	}
	return out, nodes, ok
}
