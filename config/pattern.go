package config

import (
	"fmt"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// patternError records err, the mistake of pattern scalar v at its
// 1-based byte column col, at that column in the file when the pattern
// stands there verbatim, else at v with the column within the pattern.
func (b *builder) patternError(v *yaml.Node, col int, err error) {
	if c, ok := b.column(v, col); ok {
		b.failAt(v.Line, c, err)
		return
	}
	if col >= 1 && col <= len(v.Value)+1 {
		err = fmt.Errorf("%w (column %d of the pattern)", err, utf8.RuneCountInString(v.Value[:col-1])+1)
	}
	b.fail(v, err)
}
