package middleware

import (
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
)

// APIKeyOrIP returns a Middleware that limits the clients identify vouches
// for by who they are, with keyed, and every other request by its client
// IP, with anonymous: for example 1,000 requests a minute per API key and
// 60 per IP for the rest.
//
//	m, err := middleware.APIKeyOrIP(accounts.FromAPIKey,
//		middleware.Rate("api-key", "1000/min"), middleware.Rate("anonymous", "60/min"),
//		middleware.Options{})
//
// identify returns the identity of the client a request proves to be — the
// account or key ID found by looking its API key up, a user an
// authentication middleware verified — and false for a request without a
// valid credential. The limiter and the key are both chosen from that one
// answer, so they cannot disagree.
//
// identify must vouch only for credentials it has verified: a request
// with a missing, forged or random API key must get false, and is then
// counted by its IP in anonymous's buckets, with the anonymous clients. A
// function that returned any header value as the identity would give an
// attacker a fresh bucket per made-up key. The trade-offs of checking
// first:
//
//   - identify runs on every request, before the limit: keep it cheap (an
//     in-memory set, a cache in front of the database), since a flood of
//     forged keys costs a lookup each while it is counted against its IP;
//   - an identified client is counted across all its addresses (a key used
//     from a thousand machines still gets keyed's rate), and anonymous
//     clients behind one NAT share their address's bucket.
//
// Identities are hashed (as keyfunc.User hashes them) before they become
// store keys, and identified and anonymous keys never collide, even when
// keyed and anonymous are the same limiter. opts.Key keys the anonymous
// requests: nil means the client IP from RemoteAddr; behind proxies, give
// keyfunc.ClientIP with the proxies' networks. An anonymous request whose
// key cannot be extracted is refused (see Options.NoKey).
func APIKeyOrIP(identify func(*http.Request) (string, bool), keyed, anonymous Limiter, opts Options) (*Middleware, error) {
	if identify == nil {
		return nil, fmt.Errorf("middleware: APIKeyOrIP: nil identify function: %w", core.ErrInvalidConfig)
	}
	if err := checkLimiter("APIKeyOrIP keyed", keyed); err != nil {
		return nil, err
	}
	if err := checkLimiter("APIKeyOrIP anonymous", anonymous); err != nil {
		return nil, err
	}
	a := &apiKeyOrIP{id: keyfunc.User(identify), keyed: keyed, anon: anonymous, ip: opts.Key}
	if a.ip == nil {
		ip, err := keyfunc.ClientIP(keyfunc.IPOptions{})
		if err != nil {
			return nil, err
		}
		a.ip = ip
	}
	opts.Key = nil
	return NewKeyed(a, opts)
}

// apiKeyOrIP is the KeySelector of APIKeyOrIP.
type apiKeyOrIP struct {
	id          keyfunc.Func // the hashed identity; an error for anonymous requests
	keyed, anon Limiter
	ip          keyfunc.Func
}

// SelectKey picks keyed and the identity for a request identify vouches
// for, anonymous and the IP otherwise. The keys are tagged 'i' and 'a': no
// identity is ever counted as an address.
func (a *apiKeyOrIP) SelectKey(r *http.Request, _ string) (Limiter, string, error) {
	if id, err := a.id(r); err == nil {
		return a.keyed, "i" + id, nil
	}
	ip, err := a.ip(r)
	if err != nil {
		return nil, "", err
	}
	if ip == "" {
		// An empty key refuses the request, as under New: tagged, it
		// would put every such client in one bucket.
		return nil, "", fmt.Errorf("middleware: APIKeyOrIP: an empty anonymous key: %w", keyfunc.ErrNoKey)
	}
	return a.anon, "a" + ip, nil
}
