package localfirst

import "fmt"

// Dump returns key's buckets on s, for debugging tests.
func Dump(s *Store, key string, now int64) string {
	out := ""
	for _, k := range s.keysets {
		sh, h := k.shard(key)
		sh.mu.Lock()
		if e := sh.get(h, key); e != nil {
			ls := k.lims.Load().ls
			for i := range ls {
				if ls[i].kind.bucket() {
					b := e.bs[ls[i].at]
					out += fmt.Sprintf("credit %d exp %v frozen %d unconf %d viewavail %d k %d sharers %d; ", b.credit, b.exp > now, b.frozen, b.unconf, ls[i].avail(&b, now), b.k, b.sharers)
				}
			}
		}
		sh.mu.Unlock()
	}
	return out
}
