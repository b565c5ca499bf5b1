package headers_test

// A small RFC 9651 Structured Field parser, following the parsing algorithms
// of its section 4.2, to check that what the Writer writes parses. It is
// test code only: the package does not export a parser.

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type (
	sfToken   string // a Token bare item
	sfDisplay string // a Display String bare item
	sfDate    int64  // a Date bare item
	sfDecimal string // a Decimal bare item, as written
)

type sfParam struct {
	key string
	val any
}

type sfItem struct {
	bare   any // int64, sfDecimal, string, sfToken, []byte, bool, sfDate, sfDisplay
	params []sfParam
}

type sfInnerList struct {
	items  []sfItem
	params []sfParam
}

type sfDictMember struct {
	key   string
	value any // sfItem or sfInnerList
}

// param returns the value of the parameter key, the last one if repeated,
// and whether it is present.
func (it sfItem) param(key string) (v any, ok bool) {
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

// parseSFList parses a field value as an sf-list.
func parseSFList(s string) ([]any, error) {
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

// parseSFDict parses a field value as an sf-dictionary.
func parseSFDict(s string) ([]sfDictMember, error) {
	p := &sfParser{s: s}
	p.skipSP()
	var members []sfDictMember
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
			v = sfItem{bare: true, params: params}
		}
		replaced := false
		for j := range members {
			if members[j].key == key {
				members[j].value, replaced = v, true
			}
		}
		if !replaced {
			members = append(members, sfDictMember{key, v})
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

// parseSFItem parses a field value as an sf-item.
func parseSFItem(s string) (sfItem, error) {
	p := &sfParser{s: s}
	p.skipSP()
	it, err := p.item()
	if err != nil {
		return sfItem{}, err
	}
	p.skipSP()
	if !p.eof() {
		return sfItem{}, p.errorf("trailing characters")
	}
	return it, nil
}

func (p *sfParser) itemOrInnerList() (any, error) {
	if !p.eof() && p.peek() == '(' {
		return p.innerList()
	}
	return p.item()
}

func (p *sfParser) innerList() (sfInnerList, error) {
	p.i++ // '('
	var l sfInnerList
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

func (p *sfParser) item() (sfItem, error) {
	bare, err := p.bareItem()
	if err != nil {
		return sfItem{}, err
	}
	params, err := p.params()
	return sfItem{bare: bare, params: params}, err
}

func (p *sfParser) params() ([]sfParam, error) {
	var params []sfParam
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
		params = append(params, sfParam{key, v})
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

func (p *sfParser) token() (sfToken, error) {
	start := p.i
	p.i++
	for !p.eof() {
		c := p.peek()
		if !isTchar(c) && c != ':' && c != '/' {
			break
		}
		p.i++
	}
	return sfToken(p.s[start:p.i]), nil
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

func (p *sfParser) displayString() (sfDisplay, error) {
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
			return sfDisplay(b), nil
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

// checkSFListOf parses v as an sf-list of items (no inner lists) whose bare
// items satisfy bare and whose parameters are listed in want: each must be an
// Integer ≥ min (or a Byte Sequence for pk), and required ones present.
func checkSFListOf(v string, bare func(any) error, required []string, optional map[string]int64) ([]sfItem, error) {
	members, err := parseSFList(v)
	if err != nil {
		return nil, err
	}
	if len(members) == 0 {
		return nil, errors.New("empty list")
	}
	items := make([]sfItem, 0, len(members))
	for _, m := range members {
		it, ok := m.(sfItem)
		if !ok {
			return nil, fmt.Errorf("member %v is not an item", m)
		}
		if err := bare(it.bare); err != nil {
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

func isString(v any) error {
	if _, ok := v.(string); !ok {
		return fmt.Errorf("bare item %v is %T, want a string", v, v)
	}
	return nil
}

func isNonNegInt(v any) error {
	if n, ok := v.(int64); !ok || n < 0 {
		return fmt.Errorf("bare item %v is %T, want a non-negative integer", v, v)
	}
	return nil
}

// checkPolicy11 checks a draft 11 RateLimit-Policy value.
func checkPolicy11(v string) ([]sfItem, error) {
	return checkSFListOf(v, isString, []string{"q"}, map[string]int64{"q": 0, "w": 1})
}

// checkRateLimit11 checks a draft 11 RateLimit value.
func checkRateLimit11(v string) ([]sfItem, error) {
	return checkSFListOf(v, isString, []string{"r"}, map[string]int64{"r": 0, "t": 0})
}

// checkPolicy67 checks a drafts 6 and 7 RateLimit-Policy value, including
// draft 7's rule that no two items share a quota.
func checkPolicy67(v string) ([]sfItem, error) {
	items, err := checkSFListOf(v, isNonNegInt, []string{"w"}, map[string]int64{"w": 1})
	if err != nil {
		return nil, err
	}
	seen := map[int64]bool{}
	for _, it := range items {
		q := it.bare.(int64)
		if seen[q] {
			return nil, fmt.Errorf("two policies with quota %d", q)
		}
		seen[q] = true
	}
	return items, nil
}

// checkRateLimit7 checks a draft 7 RateLimit value and returns its limit,
// remaining and reset.
func checkRateLimit7(v string) ([3]int64, error) {
	var out [3]int64
	members, err := parseSFDict(v)
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
		it, ok := members[i].value.(sfItem)
		if !ok || len(it.params) != 0 {
			return out, fmt.Errorf("%s is not a bare item", k)
		}
		n, ok := it.bare.(int64)
		if !ok || n < 0 {
			return out, fmt.Errorf("%s=%v, want a non-negative integer", k, it.bare)
		}
		out[i] = n
	}
	return out, nil
}

// checkInt checks that v is a non-negative integer of at most 15 digits, as
// delay-seconds, an epoch and an sf-integer all are.
func checkInt(v string) (int64, error) {
	if v == "" || len(v) > 15 {
		return 0, fmt.Errorf("integer %q: empty or too long", v)
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return 0, fmt.Errorf("integer %q: not digits", v)
		}
	}
	it, err := parseSFItem(v)
	if err != nil {
		return 0, err
	}
	return it.bare.(int64), nil
}

// The checks above must refuse what is not a valid field, or they prove
// nothing.
func TestSFChecks(t *testing.T) {
	policy := map[string]bool{
		`"a";q=1;w=1`:                    true,
		`"a";q=0, "b";q=5;w=60`:          true,
		`"a";q=1;w=1;pk=:AAEC:`:          true,
		`"a\"b\\c";q=1`:                  true,
		`"a";q=1,"b";q=2`:                true,
		`"a";q=1 ,	"b";q=2`:              true,
		`"a";q=1;w=0`:                    false, // w ≥ 1
		`"a";q=-1`:                       false,
		`"a";q=1.5`:                      false,
		`"a";w=1`:                        false, // q required
		`"a";q=1;x=1`:                    false,
		`"a";q=1;q=2`:                    false,
		`a;q=1`:                          false, // a token
		`1;q=1`:                          false,
		`("a");q=1`:                      false, // an inner list
		`"a";q=1,`:                       false,
		`"a";q=1,,"b";q=1`:               false,
		`"a\q";q=1`:                      false,
		`"a;q=1`:                         false,
		"\"\xc3\xa9\";q=1":               false,
		"\"a\tb\";q=1":                   false,
		`"a";q=1234567890123456`:         false, // 16 digits
		`"a";q=123456789012345`:          true,
		`"a";q=1;pk=abc`:                 false,
		`"a";q=1;pk=:AAE:`:               false, // bad base64
		`"a";q=1;Q=1`:                    false,
		``:                               false,
		`"a" ;q=1`:                       false,
		`"a";q=1 "b"`:                    false,
		`"a";q=1;w=2;pk=:AAEC:;t=?1`:     false,
		`"a";q=1;w=2;pk=:AAEC:, "b";q=3`: true,
	}
	for v, ok := range policy {
		_, err := checkPolicy11(v)
		assert.Equal(t, ok, err == nil, "%q: %v", v, err)
	}
	rl := map[string]bool{
		`"a";r=1;t=0`:  true,
		`"a";r=1`:      true,
		`"a";t=1`:      false,
		`"a";r=1;t=-1`: false,
		`"a";r=1;q=1`:  false,
	}
	for v, ok := range rl {
		_, err := checkRateLimit11(v)
		assert.Equal(t, ok, err == nil, "%q: %v", v, err)
	}
	p67 := map[string]bool{
		`10;w=1, 100;w=60`: true,
		`10;w=1, 10;w=60`:  false, // one quota twice
		`10`:               false, // w required
		`"a";w=1`:          false,
		`-1;w=1`:           false,
	}
	for v, ok := range p67 {
		_, err := checkPolicy67(v)
		assert.Equal(t, ok, err == nil, "%q: %v", v, err)
	}
	d7 := map[string]bool{
		`limit=10, remaining=0, reset=1`:   true,
		`limit=10,remaining=0,reset=1`:     true,
		`limit=10, remaining=0`:            false,
		`remaining=0, limit=10, reset=1`:   false,
		`limit=10, remaining=-1, reset=1`:  false,
		`limit=10;x, remaining=0, reset=1`: false,
		`limit=(10), remaining=0, reset=1`: false,
	}
	for v, ok := range d7 {
		_, err := checkRateLimit7(v)
		assert.Equal(t, ok, err == nil, "%q: %v", v, err)
	}
	ints := map[string]bool{"0": true, "123456789012345": true, "1234567890123456": false, "-1": false, " 1": false, "1.0": false, "": false, "+1": false}
	for v, ok := range ints {
		_, err := checkInt(v)
		assert.Equal(t, ok, err == nil, "%q: %v", v, err)
	}
	// The other bare item types parse.
	m, err := parseSFList(`tok/en:x, ?0, @1700000000, %"caf%c3%a9", 1.125, -4, ("a" 1);p`)
	require.NoError(t, err)
	require.Len(t, m, 7)
	assert.Equal(t, sfToken("tok/en:x"), m[0].(sfItem).bare)
	assert.Equal(t, false, m[1].(sfItem).bare)
	assert.Equal(t, sfDate(1700000000), m[2].(sfItem).bare)
	assert.Equal(t, sfDisplay("café"), m[3].(sfItem).bare)
	assert.Equal(t, sfDecimal("1.125"), m[4].(sfItem).bare)
	assert.Equal(t, int64(-4), m[5].(sfItem).bare)
	assert.Len(t, m[6].(sfInnerList).items, 2)
}
