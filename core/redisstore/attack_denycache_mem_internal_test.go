package redisstore

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
)

// TestAttackDenyCacheLongKeys: the deny cache's memory is bounded by its
// size, whatever the keys' length: keys come from requests (a caller of
// core may pass a header or a username as it is), and 1,000 denied keys
// of 64 KiB each kept 64 MiB alive when the cache held the keys
// themselves.
func TestAttackDenyCacheLongKeys(t *testing.T) {
	const keys, keyLen = 1000, 64 << 10
	c := newDenyCache(1 << 16)
	o := store.Outcome{RetryAfter: time.Hour}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	pad := strings.Repeat("x", keyLen)
	for i := range keys {
		k := pad + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
		c.put(k, 0, 0, o, 0)
	}
	after := heap()
	grown := int64(after) - int64(before)
	assert.Less(t, grown, int64(8<<20), "heap grown by %d bytes for %d denials", grown, keys)
	runtime.KeepAlive(c)
}
