package config

import (
	"errors"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// errCutShort is the error of a reload whose file ends within a rate.
var errCutShort = errors.New("the file ends within a policy's rate, with no line break after it: " +
	"a file still being written? (end it with a line break; write a new file beside it and rename it over the old)")

// cutShort reports whether last, the last line of a file (the text after
// its last line break), ends within a plain value that YAML reads up to
// the end of the data, and the column after it. A file written in place
// and read half-way through is a prefix of itself: cut at a line break,
// it lacks a section or a policy (which a reload refuses); cut within its
// last value, it reads as another value ("10/1h30m" as "10/1h", "burst
// 150" as "burst 15"). A last line that is blank, a comment, a document
// marker, or ends a flow collection or a quoted value (which a cut would
// leave unclosed, a syntax error) is whole.
func cutShort(last string) (col int, bad bool) {
	t := strings.TrimRight(last, " \t")
	content := strings.TrimLeft(t, " \t")
	switch {
	case content == "", content == "---", content == "...",
		strings.HasPrefix(content, "#"), strings.Contains(t, " #"), strings.Contains(t, "\t#"):
		return 0, false
	}
	switch t[len(t)-1] {
	case '}', ']', '"', '\'':
		return 0, false
	}
	return utf8.RuneCountInString(t) + 1, true
}

// lastNode returns the scalar or alias of root that starts last in the
// file (nil if none): the one a file cut short ends within. Aliases are
// not followed.
func lastNode(root *yaml.Node) *yaml.Node {
	var last *yaml.Node
	stack := []*yaml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil {
			continue
		}
		if n.Kind == yaml.ScalarNode || n.Kind == yaml.AliasNode {
			if last == nil || n.Line > last.Line || n.Line == last.Line && n.Column > last.Column {
				last = n
			}
			continue
		}
		stack = append(stack, n.Content...)
	}
	return last
}

// isRate reports whether n is the rate of one of the file's policies.
func (b *builder) isRate(n *yaml.Node) bool {
	for _, def := range b.policies {
		if n != nil && def.at == n {
			return true
		}
	}
	return false
}
