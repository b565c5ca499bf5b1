package sftest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
		_, err := CheckPolicy11(v)
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
		_, err := CheckRateLimit11(v)
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
		_, err := CheckPolicy67(v)
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
		_, err := CheckRateLimit7(v)
		assert.Equal(t, ok, err == nil, "%q: %v", v, err)
	}
	ints := map[string]bool{"0": true, "123456789012345": true, "1234567890123456": false, "-1": false, " 1": false, "1.0": false, "": false, "+1": false}
	for v, ok := range ints {
		_, err := CheckInt(v)
		assert.Equal(t, ok, err == nil, "%q: %v", v, err)
	}
	// The other bare item types parse.
	m, err := ParseList(`tok/en:x, ?0, @1700000000, %"caf%c3%a9", 1.125, -4, ("a" 1);p`)
	require.NoError(t, err)
	require.Len(t, m, 7)
	assert.Equal(t, Token("tok/en:x"), m[0].(Item).Bare)
	assert.Equal(t, false, m[1].(Item).Bare)
	assert.Equal(t, sfDate(1700000000), m[2].(Item).Bare)
	assert.Equal(t, Display("café"), m[3].(Item).Bare)
	assert.Equal(t, sfDecimal("1.125"), m[4].(Item).Bare)
	assert.Equal(t, int64(-4), m[5].(Item).Bare)
	assert.Len(t, m[6].(InnerList).items, 2)
}
