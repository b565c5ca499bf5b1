package redischeck

import (
	"fmt"
	"strings"
)

// Prefix returns an error for a key prefix holding '{' or '}'. Each
// component names the keys one call touches with a hash tag of its own
// ("{" + hash + "}") so that they share a Redis Cluster slot; Redis hashes
// the first "{…}" of a key, so a brace in the prefix would take the tag's
// place (the keys of one call in different slots: CROSSSLOT; or every key
// of the fleet in one slot). The caller wraps it in its own name and
// core.ErrInvalidConfig.
func Prefix(p string) error {
	if strings.ContainsAny(p, "{}") {
		return fmt.Errorf("Prefix %q holds '{' or '}': on a Cluster, Redis hashes the first {…} of a key, which must be the component's own hash tag", p)
	}
	return nil
}
