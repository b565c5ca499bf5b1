// Package sftest parses RFC 9651 structured fields strictly, for tests that
// check the rate-limit headers floodgate writes. It is not a general-purpose
// parser and is internal to floodgate.
package sftest

// A small RFC 9651 Structured Field parser, following the parsing algorithms
// of its section 4.2, to check that what the Writer writes parses. It is
// test code only: the package does not export a parser.

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

type (
	Token     string // a Token bare item
	Display   string // a Display String bare item
	sfDate    int64  // a Date bare item
	sfDecimal string // a Decimal bare item, as written
)

// Param is one parameter of an item or inner list.
type Param struct {
	key string
	val any
}

// Item is a bare item and its parameters.
type Item struct {
	Bare   any // int64, sfDecimal, string, Token, []byte, bool, sfDate, Display
	params []Param
}

// InnerList is a parenthesised list of items and its parameters.
type InnerList struct {
	items  []Item
	params []Param
}

// DictMember is one member of a dictionary.
type DictMember struct {
	key   string
	value any // Item or InnerList
}

// Param returns the value of the parameter key, the last one if repeated,
// and whether it is present.
func (it Item) Param(key string) (v any, ok bool) {
	for _, p := range it.params {
		if p.key == key {
			v, ok = p.val, true
		}
	}
	return v, ok
}

type sfParser struct {
	s string
	i int
}

func (p *sfParser) eof() bool  { return p.i >= len(p.s) }
func (p *sfParser) peek() byte { return p.s[p.i] }

func (p *sfParser) errorf(format string, a ...any) error {
	return fmt.Errorf("sf: at %d of %q: %s", p.i, p.s, fmt.Sprintf(format, a...))
}

func (p *sfParser) skipSP() {
	for !p.eof() && p.peek() == ' ' {
		p.i++
	}
}

func (p *sfParser) skipOWS() {
	for !p.eof() && (p.peek() == ' ' || p.peek() == '\t') {
		p.i++
	}
}

// ParseList parses a field value as an sf-list.
func ParseList(s string) ([]any, error) {
	p := &sfParser{s: s}
	p.skipSP()
	var members []any
	for !p.eof() {
		m, err := p.itemOrInnerList()
		if err != nil {
			return nil, err
		}
		members = append(members, m)
		p.skipOWS()
		if p.eof() {
			return members, nil
		}
		if p.peek() != ',' {
			return nil, p.errorf("want ','")
		}
		p.i++
		p.skipOWS()
		if p.eof() {
			return nil, p.errorf("trailing comma")
		}
	}
	return members, nil
}

// ParseDict parses a field value as an sf-dictionary.
func ParseDict(s string) ([]DictMember, error) {
	p := &sfParser{s: s}
	p.skipSP()
	var members []DictMember
	for !p.eof() {
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		var v any
		if !p.eof() && p.peek() == '=' {
			p.i++
			if v, err = p.itemOrInnerList(); err != nil {
				return nil, err
			}
		} else {
			params, err := p.params()
			if err != nil {
				return nil, err
			}
			v = Item{Bare: true, params: params}
		}
		replaced := false
		for j := range members {
			if members[j].key == key {
				members[j].value, replaced = v, true
			}
		}
		if !replaced {
			members = append(members, DictMember{key, v})
		}
		p.skipOWS()
		if p.eof() {
			return members, nil
		}
		if p.peek() != ',' {
			return nil, p.errorf("want ','")
		}
		p.i++
		p.skipOWS()
		if p.eof() {
			return nil, p.errorf("trailing comma")
		}
	}
	return members, nil
}

// ParseItem parses a field value as an sf-item.
func ParseItem(s string) (Item, error) {
	p := &sfParser{s: s}
	p.skipSP()
	it, err := p.item()
	if err != nil {
		return Item{}, err
	}
	p.skipSP()
	if !p.eof() {
		return Item{}, p.errorf("trailing characters")
	}
	return it, nil
}

func (p *sfParser) itemOrInnerList() (any, error) {
	if !p.eof() && p.peek() == '(' {
		return p.innerList()
	}
	return p.item()
}

func (p *sfParser) innerList() (InnerList, error) {
	p.i++ // '('
	var l InnerList
	for !p.eof() {
		p.skipSP()
		if !p.eof() && p.peek() == ')' {
			p.i++
			params, err := p.params()
			l.params = params
			return l, err
		}
		it, err := p.item()
		if err != nil {
			return l, err
		}
		l.items = append(l.items, it)
		if p.eof() || (p.peek() != ' ' && p.peek() != ')') {
			return l, p.errorf("want SP or ')' in inner list")
		}
	}
	return l, p.errorf("unterminated inner list")
}

func (p *sfParser) item() (Item, error) {
	bare, err := p.bareItem()
	if err != nil {
		return Item{}, err
	}
	params, err := p.params()
	return Item{Bare: bare, params: params}, err
}

func (p *sfParser) params() ([]Param, error) {
	var params []Param
	for !p.eof() && p.peek() == ';' {
		p.i++
		p.skipSP()
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		var v any = true
		if !p.eof() && p.peek() == '=' {
			p.i++
			if v, err = p.bareItem(); err != nil {
				return nil, err
			}
		}
		// RFC 9651 lets a later parameter overwrite an earlier one of the
		// same key; duplicates are kept here so that checks can refuse them.
		params = append(params, Param{key, v})
	}
	return params, nil
}

func (p *sfParser) key() (string, error) {
	if p.eof() || !(isLCAlpha(p.peek()) || p.peek() == '*') {
		return "", p.errorf("want key")
	}
	start := p.i
	for !p.eof() {
		c := p.peek()
		if !(isLCAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*') {
			break
		}
		p.i++
	}
	return p.s[start:p.i], nil
}

func (p *sfParser) bareItem() (any, error) {
	if p.eof() {
		return nil, p.errorf("want bare item")
	}
	switch c := p.peek(); {
	case c == '-' || isDigit(c):
		return p.number()
	case c == '"':
		return p.str()
	case c == '*' || isAlpha(c):
		return p.token()
	case c == ':':
		return p.byteSeq()
	case c == '?':
		return p.boolean()
	case c == '@':
		p.i++
		n, err := p.number()
		if err != nil {
			return nil, err
		}
		i, ok := n.(int64)
		if !ok {
			return nil, p.errorf("date is not an integer")
		}
		return sfDate(i), nil
	case c == '%':
		return p.displayString()
	}
	return nil, p.errorf("unknown bare item")
}

func (p *sfParser) number() (any, error) {
	start := p.i
	if p.peek() == '-' {
		p.i++
	}
	if p.eof() || !isDigit(p.peek()) {
		return nil, p.errorf("want digit")
	}
	decimal := false
	n := 0 // length of the number without its sign
	for !p.eof() {
		c := p.peek()
		if isDigit(c) {
			p.i++
			n++
		} else if c == '.' && !decimal {
			if n > 12 {
				return nil, p.errorf("decimal integer part too long")
			}
			p.i++
			n++
			decimal = true
		} else {
			break
		}
		if !decimal && n > 15 {
			return nil, p.errorf("integer too long")
		}
		if decimal && n > 16 {
			return nil, p.errorf("decimal too long")
		}
	}
	num := p.s[start:p.i]
	if !decimal {
		return strconv.ParseInt(num, 10, 64)
	}
	dot := strings.IndexByte(num, '.')
	if dot == len(num)-1 {
		return nil, p.errorf("decimal ends in '.'")
	}
	if len(num)-dot-1 > 3 {
		return nil, p.errorf("decimal fraction too long")
	}
	return sfDecimal(num), nil
}

func (p *sfParser) str() (string, error) {
	p.i++ // '"'
	var b strings.Builder
	for !p.eof() {
		c := p.peek()
		p.i++
		switch {
		case c == '\\':
			if p.eof() {
				return "", p.errorf("backslash at end")
			}
			n := p.peek()
			p.i++
			if n != '"' && n != '\\' {
				return "", p.errorf("bad escape %q", n)
			}
			b.WriteByte(n)
		case c == '"':
			return b.String(), nil
		case c < 0x20 || c > 0x7e:
			return "", p.errorf("byte %#x in string", c)
		default:
			b.WriteByte(c)
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *sfParser) token() (Token, error) {
	start := p.i
	p.i++
	for !p.eof() {
		c := p.peek()
		if !isTchar(c) && c != ':' && c != '/' {
			break
		}
		p.i++
	}
	return Token(p.s[start:p.i]), nil
}

func (p *sfParser) byteSeq() ([]byte, error) {
	p.i++ // ':'
	end := strings.IndexByte(p.s[p.i:], ':')
	if end < 0 {
		return nil, p.errorf("unterminated byte sequence")
	}
	enc := p.s[p.i : p.i+end]
	for i := 0; i < len(enc); i++ {
		c := enc[i]
		if !(isAlpha(c) || isDigit(c) || c == '+' || c == '/' || c == '=') {
			return nil, p.errorf("byte %#x in byte sequence", c)
		}
	}
	p.i += end + 1
	return base64.StdEncoding.Strict().DecodeString(enc)
}

func (p *sfParser) boolean() (bool, error) {
	p.i++ // '?'
	if p.eof() {
		return false, p.errorf("want boolean")
	}
	c := p.peek()
	p.i++
	switch c {
	case '1':
		return true, nil
	case '0':
		return false, nil
	}
	return false, p.errorf("bad boolean")
}

func (p *sfParser) displayString() (Display, error) {
	p.i++ // '%'
	if p.eof() || p.peek() != '"' {
		return "", p.errorf("want '\"' after '%%'")
	}
	p.i++
	var b []byte
	for !p.eof() {
		c := p.peek()
		p.i++
		switch {
		case c < 0x20 || c > 0x7e:
			return "", p.errorf("byte %#x in display string", c)
		case c == '%':
			if p.i+2 > len(p.s) {
				return "", p.errorf("short percent escape")
			}
			h := p.s[p.i : p.i+2]
			if strings.ToLower(h) != h {
				return "", p.errorf("upper-case percent escape")
			}
			v, err := strconv.ParseUint(h, 16, 8)
			if err != nil {
				return "", err
			}
			b = append(b, byte(v))
			p.i += 2
		case c == '"':
			return Display(b), nil
		default:
			b = append(b, c)
		}
	}
	return "", p.errorf("unterminated display string")
}

func isLCAlpha(c byte) bool { return 'a' <= c && c <= 'z' }
func isAlpha(c byte) bool   { return isLCAlpha(c) || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool   { return '0' <= c && c <= '9' }

func isTchar(c byte) bool {
	return isAlpha(c) || isDigit(c) || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// Checks of the fields the Writer writes.

// CheckListOf parses v as an sf-list of items (no inner lists) whose bare
// items satisfy bare and whose parameters are listed in want: each must be an
// Integer ≥ min (or a Byte Sequence for pk), and required ones present.
func CheckListOf(v string, bare func(any) error, required []string, optional map[string]int64) ([]Item, error) {
	members, err := ParseList(v)
	if err != nil {
		return nil, err
	}
	if len(members) == 0 {
		return nil, errors.New("empty list")
	}
	items := make([]Item, 0, len(members))
	for _, m := range members {
		it, ok := m.(Item)
		if !ok {
			return nil, fmt.Errorf("member %v is not an item", m)
		}
		if err := bare(it.Bare); err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, p := range it.params {
			if seen[p.key] {
				return nil, fmt.Errorf("duplicate parameter %q", p.key)
			}
			seen[p.key] = true
			if p.key == "pk" {
				if _, ok := p.val.([]byte); !ok {
					return nil, fmt.Errorf("pk is %T, want a byte sequence", p.val)
				}
				continue
			}
			lo, known := optional[p.key]
			if !known {
				return nil, fmt.Errorf("unexpected parameter %q", p.key)
			}
			n, ok := p.val.(int64)
			if !ok || n < lo {
				return nil, fmt.Errorf("parameter %s=%v, want an integer ≥ %d", p.key, p.val, lo)
			}
		}
		for _, k := range required {
			if !seen[k] {
				return nil, fmt.Errorf("missing parameter %q", k)
			}
		}
		items = append(items, it)
	}
	return items, nil
}

// IsString reports an error unless the bare item v is a String.
func IsString(v any) error {
	if _, ok := v.(string); !ok {
		return fmt.Errorf("bare item %v is %T, want a string", v, v)
	}
	return nil
}

// IsNonNegInt reports an error unless the bare item v is an Integer ≥ 0.
func IsNonNegInt(v any) error {
	if n, ok := v.(int64); !ok || n < 0 {
		return fmt.Errorf("bare item %v is %T, want a non-negative integer", v, v)
	}
	return nil
}

// CheckPolicy11 checks a draft 11 RateLimit-Policy value.
func CheckPolicy11(v string) ([]Item, error) {
	return CheckListOf(v, IsString, []string{"q"}, map[string]int64{"q": 0, "w": 1})
}

// CheckRateLimit11 checks a draft 11 RateLimit value.
func CheckRateLimit11(v string) ([]Item, error) {
	return CheckListOf(v, IsString, []string{"r"}, map[string]int64{"r": 0, "t": 0})
}

// CheckPolicy67 checks a drafts 6 and 7 RateLimit-Policy value, including
// draft 7's rule that no two items share a quota.
func CheckPolicy67(v string) ([]Item, error) {
	items, err := CheckListOf(v, IsNonNegInt, []string{"w"}, map[string]int64{"w": 1})
	if err != nil {
		return nil, err
	}
	seen := map[int64]bool{}
	for _, it := range items {
		q := it.Bare.(int64)
		if seen[q] {
			return nil, fmt.Errorf("two policies with quota %d", q)
		}
		seen[q] = true
	}
	return items, nil
}

// CheckRateLimit7 checks a draft 7 RateLimit value and returns its limit,
// remaining and reset.
func CheckRateLimit7(v string) ([3]int64, error) {
	var out [3]int64
	members, err := ParseDict(v)
	if err != nil {
		return out, err
	}
	keys := []string{"limit", "remaining", "reset"}
	if len(members) != len(keys) {
		return out, fmt.Errorf("%d members, want %v", len(members), keys)
	}
	for i, k := range keys {
		if members[i].key != k {
			return out, fmt.Errorf("member %d is %q, want %q", i, members[i].key, k)
		}
		it, ok := members[i].value.(Item)
		if !ok || len(it.params) != 0 {
			return out, fmt.Errorf("%s is not a bare item", k)
		}
		n, ok := it.Bare.(int64)
		if !ok || n < 0 {
			return out, fmt.Errorf("%s=%v, want a non-negative integer", k, it.Bare)
		}
		out[i] = n
	}
	return out, nil
}

// CheckInt checks that v is a non-negative integer of at most 15 digits, as
// delay-seconds, an epoch and an sf-integer all are.
func CheckInt(v string) (int64, error) {
	if v == "" || len(v) > 15 {
		return 0, fmt.Errorf("integer %q: empty or too long", v)
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return 0, fmt.Errorf("integer %q: not digits", v)
		}
	}
	it, err := ParseItem(v)
	if err != nil {
		return 0, err
	}
	return it.Bare.(int64), nil
}
