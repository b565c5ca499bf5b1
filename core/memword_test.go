package core

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests play, one step at a time, the interleavings of a lock-free
// take with the changes made under the lock (memword.go): each step is
// what one side does, in the order the race would have it.

var wordT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano()

func wordTable(t *testing.T, opts MemoryOptions) *memTable {
	t.Helper()
	return wordTableOf(t, GCRA{Rate: PerSecond(10), Burst: 5}, opts)
}

func wordTableOf(t *testing.T, a Algorithm, opts MemoryOptions) *memTable {
	t.Helper()
	p := MustPolicy("w", Limit{Name: "g", Algorithm: a})
	ms, err := NewMemoryStore(opts)
	require.NoError(t, err)
	tb, err := ms.Bind(p)
	require.NoError(t, err)
	mt := tb.(*memTable)
	require.NotNil(t, mt.word, "GCRA decides in the word mode")
	return mt
}

func wordDo(tb *memTable, op store.Op, key string, now int64) Result {
	var r Result
	tb.do(&store.Request{Op: op, Key: key, Now: now, Cost: 1}, 0, &r)
	return r
}

// wordSlot returns key's shard, array and state word, as a lock-free take
// finds them.
func wordSlot(t *testing.T, tb *memTable, key string) (*memShard, *memSlots, int, *int64) {
	t.Helper()
	h := tb.hash(key)
	s := tb.shard(h)
	a := s.arr.Load()
	off, found := tb.find(a, h)
	require.True(t, found, key)
	return s, a, off, &a.slots[off+1]
}

// A take that found the key's slot before a rebuild, and swaps after it,
// fails on the frozen word and changes nothing: the state moved to the new
// array as it was, and the take, decided again, lands there.
func TestWordStaleTakeAfterRebuild(t *testing.T) {
	tb := wordTable(t, MemoryOptions{MaxKeys: 64, Shards: 1})
	require.True(t, wordDo(tb, store.OpTake, "a", wordT0).Allowed)
	s, old, _, w := wordSlot(t, tb, "a")
	before := atomic.LoadInt64(w)

	s.mu.Lock()
	tb.rebuild(s, wordT0)
	s.mu.Unlock()
	require.NotSame(t, old, s.arr.Load())
	for off := 0; off < len(old.slots); off += tb.stride {
		assert.Equal(t, int64(frozen), old.slots[off+1], "slot %d of the old array", off/tb.stride)
	}

	var res Result
	assert.False(t, tb.takeWord(s, tb.hash("a"), w, wordT0, 1, &res), "a take on the old array")
	_, _, _, w2 := wordSlot(t, tb, "a")
	assert.Equal(t, before, atomic.LoadInt64(w2), "the state moved as it was")
	r := wordDo(tb, store.OpTake, "a", wordT0)
	assert.True(t, r.Allowed)
	assert.Equal(t, int64(3), r.Remaining, "the second of five units")
}

// A drop (sweep or eviction) that viewed the state before a lock-free take
// swapped it fails, and the entry stays with the take in it; dropped once
// viewed again, its slot is a tombstone no take can write.
func TestWordDropLosesToTake(t *testing.T) {
	tb := wordTable(t, MemoryOptions{MaxKeys: 64, Shards: 1})
	require.True(t, wordDo(tb, store.OpTake, "a", wordT0).Allowed)
	s, a, off, w := wordSlot(t, tb, "a")

	s.mu.Lock()
	_, v := tb.view(s, a, off)
	var res Result
	require.True(t, tb.takeWord(s, tb.hash("a"), w, wordT0, 1, &res)) // (no lock: it does not take it)
	require.True(t, res.Allowed)
	taken := atomic.LoadInt64(w)
	assert.False(t, tb.drop(s, a, off, v), "a drop of the state as it was before the take")
	assert.Equal(t, taken, atomic.LoadInt64(w))
	assert.Equal(t, 1, s.n)
	_, v = tb.view(s, a, off)
	assert.True(t, tb.drop(s, a, off, v))
	s.mu.Unlock()

	assert.Equal(t, int64(tombHash), a.slots[off])
	assert.Equal(t, int64(frozen), atomic.LoadInt64(w))
	assert.False(t, tb.takeWord(s, tb.hash("a"), w, wordT0, 1, &res), "a take holding the dropped slot")
	assert.Equal(t, int64(frozen), atomic.LoadInt64(w))
	_, found := tb.find(a, tb.hash("a"))
	assert.False(t, found)
}

// A refund that viewed the state before a lock-free take swapped it does
// not publish over the take: it fails, and, viewed again, gives its unit
// back on top of the take.
func TestWordRefundLosesToTake(t *testing.T) {
	tb := wordTable(t, MemoryOptions{MaxKeys: 64, Shards: 1})
	first := wordDo(tb, store.OpTake, "a", wordT0)
	require.True(t, first.Allowed)
	s, a, off, w := wordSlot(t, tb, "a")
	p := tb.policy
	holds := first.holds()

	s.mu.Lock()
	st, v := tb.view(s, a, off)
	p.refund(st, wordT0, first.at, 1, &holds)
	var res Result
	require.True(t, tb.takeWord(s, tb.hash("a"), w, wordT0, 1, &res))
	taken := atomic.LoadInt64(w)
	assert.False(t, tb.publish(s, a, off, v, st), "a refund of the state as it was before the take")
	assert.Equal(t, taken, atomic.LoadInt64(w))
	st, v = tb.view(s, a, off)
	p.refund(st, wordT0, first.at, 1, &holds)
	assert.True(t, tb.publish(s, a, off, v, st))
	s.mu.Unlock()

	assert.Equal(t, taken-int64(100*time.Millisecond), atomic.LoadInt64(w), "one interval back, after the take")
}

// Over random operations, a word-mode array's slots are claimed once:
// within one array a slot's hash goes from empty to a key's to a
// tombstone, never back and never to another key, an empty slot's or a
// tombstone's state is frozen and a live one's never is; an array replaced
// by a rebuild is frozen whole; the counts of live entries and tombstones
// match the slots.
func TestWordSlotsClaimedOnce(t *testing.T) {
	for _, whenFull := range []WhenFull{EvictCheapest, RefuseNew} {
		t.Run(fmt.Sprint(whenFull), func(t *testing.T) {
			// Keys recover in a second per unit: some 60 keys live at once,
			// for a shard of 24.
			tb := wordTableOf(t, GCRA{Rate: PerSecond(1), Burst: 5}, MemoryOptions{MaxKeys: 24, Shards: 1, WhenFull: whenFull})
			s := &tb.shards[0]
			rng := rand.New(rand.NewPCG(5, 6))
			now := wordT0
			var prev *memSlots
			var prevHashes []int64
			type take struct {
				key string
				r   Result
			}
			var taken []take
			rebuilds, sawTombs, full := 0, 0, 0
			for step := range 4000 {
				now += rng.Int64N(int64(30 * time.Millisecond))
				key := fmt.Sprintf("k%d", rng.IntN(60))
				switch x := rng.IntN(20); {
				case x < 14:
					if r := wordDo(tb, store.OpTake, key, now); r.taken {
						taken = append(taken, take{key, r})
					}
				case x < 16 && len(taken) > 0:
					tk := taken[rng.IntN(len(taken))]
					var res Result
					tb.do(&store.Request{Op: store.OpRefund, Key: tk.key, Now: now, Cost: 1, Taken: tk.r.at, Holds: tk.r.holds()}, tk.r.epoch, &res)
				case x < 17:
					wordDo(tb, store.OpReset, key, now)
				default:
					wordDo(tb, store.OpPeek, key, now)
				}
				a := s.arr.Load()
				if a == nil {
					continue
				}
				if prev != nil && prev != a {
					rebuilds++
					for off := 0; off < len(prev.slots); off += tb.stride {
						if prev.slots[off+1] != int64(frozen) { // no require per slot: each walks the stack
							t.Fatalf("step %d: a replaced array's slot %d holds %x, not frozen", step, off/tb.stride, prev.slots[off+1])
						}
					}
					prevHashes = nil
				}
				live, tombs := 0, 0
				for i := range a.cap {
					off := i * tb.stride
					hv, st := a.slots[off], a.slots[off+1]
					switch {
					case (hv == emptyHash || hv == tombHash) && st != int64(frozen):
						t.Fatalf("step %d: slot %d holds no key but state %x, not frozen", step, i, st)
					case hv != emptyHash && hv != tombHash && st == int64(frozen):
						t.Fatalf("step %d: live slot %d is frozen", step, i)
					}
					if hv == tombHash {
						tombs++
					} else if hv != emptyHash {
						live++
					}
					if prevHashes != nil {
						was := prevHashes[i]
						if !(was == hv || was == emptyHash || (liveHash(uint64(was)) && hv == tombHash)) {
							t.Fatalf("step %d: slot %d went from %x to %x", step, i, was, hv)
						}
					}
				}
				sawTombs += tombs
				if s.n == tb.perShard {
					full++
				}
				require.Equal(t, s.n, live, "step %d", step)
				require.Equal(t, s.tombs, tombs, "step %d", step)
				prev, prevHashes = a, make([]int64, a.cap)
				for i := range a.cap {
					prevHashes[i] = a.slots[i*tb.stride]
				}
			}
			assert.Greater(t, rebuilds, 20, "rebuilds")
			assert.Positive(t, sawTombs, "tombstones")
			assert.Greater(t, full, 100, "steps with the shard full")
			t.Logf("%d rebuilds, %d steps full, %d evictions remembered", rebuilds, full, len(s.evicted.marks))
		})
	}
}

// The word steppers' idleAt is their state word, as wordIdleAt, which the
// rebuilds use, has it.
func TestWordIdleAtIsTheState(t *testing.T) {
	for _, a := range []Algorithm{GCRA{Rate: PerSecond(3), Burst: 4}, LeakyBucket{Rate: PerSecond(3), Capacity: 4, NoDelay: 2}} {
		tb := wordTableOf(t, a, MemoryOptions{MaxKeys: 64})
		for _, v := range []int64{0, 1, wordT0, maxInstant + maxSpan} {
			assert.Equal(t, tb.policy.idleAt([]int64{v}), wordIdleAt(v))
		}
	}
}

// A shard's arr and epoch, read by every lock-free take, share no cache
// line with the fields its lock guards, nor with another shard's.
func TestShardLayout(t *testing.T) {
	var s memShard
	assert.Zero(t, unsafe.Sizeof(s)%cacheLine, "size %d", unsafe.Sizeof(s))
	assert.Equal(t, uintptr(cacheLine), unsafe.Offsetof(s.mu))
}
