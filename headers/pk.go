package headers

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"sync"
)

// pkBytes is how many bytes of the HMAC are kept: 96 bits, which base64
// writes in pkLen characters without padding.
const (
	pkBytes = 12
	pkLen   = 16
)

// pkHasher computes partition keys with pooled HMAC states, so that WriteKey
// allocates no more than Write once the pool is warm.
type pkHasher struct {
	pool sync.Pool
}

type pkState struct {
	mac hash.Hash
	in  []byte
	sum []byte
}

func newPKHasher(secret []byte) *pkHasher {
	secret = append([]byte(nil), secret...)
	p := &pkHasher{}
	p.pool.New = func() any {
		return &pkState{mac: hmac.New(sha256.New, secret), sum: make([]byte, 0, sha256.Size)}
	}
	return p
}

// encode writes the base64 of the partition key of key into dst.
func (p *pkHasher) encode(dst *[pkLen]byte, key string) {
	s := p.pool.Get().(*pkState)
	s.mac.Reset()
	s.in = append(s.in[:0], key...)
	s.mac.Write(s.in)
	s.sum = s.mac.Sum(s.sum[:0])
	base64.StdEncoding.Encode(dst[:], s.sum[:pkBytes])
	if cap(s.in) > 1024 {
		s.in = nil
	}
	p.pool.Put(s)
}

// appendPK appends the pk parameter of an item.
func appendPK(b []byte, pk *[pkLen]byte) []byte {
	b = append(b, ";pk=:"...)
	b = append(b, pk[:]...)
	return append(b, ':')
}
