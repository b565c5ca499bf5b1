package config

import (
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/keyfunc"
	"go.yaml.in/yaml/v3"
)

// keyDef is a key of the keys section, built when first referred to.
type keyDef struct {
	name  string
	node  *yaml.Node // its definition
	fn    keyfunc.Func
	state int // 0 not built, 1 being built (a reference back is a cycle), 2 built
	reads int // the keys of other kinds than join and first a request reads for it
}

// maxKeyReads bounds what one key reads per request: join and first read
// each key they name every time it appears, so keys that join a key twice,
// level after level, would read 2^levels keys per request (a 491-byte
// file of 17 levels: 131,072 reads and a key of megabytes).
const maxKeyReads = 64

// keyKinds are the fields of a key: one of them.
var keyKinds = []string{"client_ip", "header", "user", "const", "join", "first"}

// defaultKey is the key of limits that name none: the client IP from
// RemoteAddr, unless the keys section redefines it.
const defaultKey = "ip"

// buildKeys builds every key of the keys section n (nil: none), so that an
// unused key with a mistake is reported too.
func (b *builder) buildKeys(n *yaml.Node) {
	fn, _ := keyfunc.ClientIP(keyfunc.IPOptions{})
	b.keys = map[string]*keyDef{defaultKey: {name: defaultKey, fn: fn, state: 2}}
	if n == nil {
		return
	}
	fs, _ := b.entries(n, "keys")
	for _, f := range fs {
		b.keys[f.key.Value] = &keyDef{name: f.key.Value, node: f.val}
	}
	for _, f := range fs {
		b.buildKey(b.keys[f.key.Value])
	}
}

// key returns the key scalar n names, nil (an error recorded) if none.
func (b *builder) key(n *yaml.Node, what string) keyfunc.Func {
	name, ok := b.str(n, what)
	if !ok {
		return nil
	}
	k := b.keys[name]
	if k == nil {
		b.errorf(n, "%s: no key %q in keys (ip, the client IP from RemoteAddr, needs no definition)", what, clip(name))
		return nil
	}
	if k.state == 1 {
		b.errorf(n, "%s: key %q refers back to itself", what, clip(name))
		return nil
	}
	return b.buildKey(k)
}

// buildKey builds k once; nil when it is invalid.
func (b *builder) buildKey(k *keyDef) keyfunc.Func {
	if k.state != 0 {
		return k.fn
	}
	k.state = 1
	k.fn = b.keyFunc(k)
	k.state = 2
	k.reads = max(k.reads, 1)
	return k.fn
}

func (b *builder) keyFunc(k *keyDef) keyfunc.Func {
	what := "keys." + k.name
	fs, ok := b.mapping(k.node, what, keyKinds...)
	if !ok {
		return nil
	}
	if len(fs) != 1 {
		b.errorf(k.node, "%s: want one of %v", what, keyKinds)
		return nil
	}
	for kind, f := range fs {
		what += "." + kind
		switch kind {
		case "client_ip":
			return b.clientIP(f, what)
		case "header":
			name, ok := b.str(f.val, what)
			if !ok {
				return nil
			}
			fn, err := header(name)
			if err != nil {
				b.fail(f.val, fmt.Errorf("%s: %w", what, err))
			}
			return fn
		case "user":
			id := b.identity(f.val, what)
			if id == nil {
				return nil
			}
			return keyfunc.User(id)
		case "const":
			s, ok := b.str(f.val, what)
			if !ok {
				return nil
			}
			return keyfunc.Const(s)
		default: // join, first
			items, ok := b.list(f.val, what)
			if !ok {
				return nil
			}
			fns := make([]keyfunc.Func, 0, len(items))
			reads := 0
			for _, it := range items {
				fn := b.key(it, what)
				if fn == nil {
					ok = false
				} else if name, _ := b.str(it, what); b.keys[name] != nil {
					reads += max(b.keys[name].reads, 1)
				}
				fns = append(fns, fn)
			}
			if !ok {
				return nil
			}
			if reads > maxKeyReads {
				b.errorf(f.val, "%s: reads %d keys per request (each key named, every time it is named, down to client_ip, header, user and const), more than %d", what, reads, maxKeyReads)
				return nil
			}
			k.reads = reads
			if kind == "join" {
				return keyfunc.Join(fns...)
			}
			return keyfunc.First(fns...)
		}
	}
	return nil
}

// ipList returns the strings of list n, each checked on its own by
// keyfunc.ClientIP with the options one makes of it, so that an error
// points at the entry; *ok is cleared on an error.
func (b *builder) ipList(n *yaml.Node, what string, ok *bool, one func(string) keyfunc.IPOptions) []string {
	vals, nodes, good := b.strs(n, what)
	for i, v := range vals {
		if _, err := keyfunc.ClientIP(one(v)); err != nil {
			b.fail(nodes[i], fmt.Errorf("%s: %w", what, err))
			good = false
		}
	}
	*ok = *ok && good
	return vals
}

// header is keyfunc.Header, its panic on an invalid name an error.
func header(name string) (fn keyfunc.Func, err error) {
	defer func() {
		if v := recover(); v != nil {
			fn, err = nil, fmt.Errorf("%v", v)
		}
	}()
	return keyfunc.Header(name), nil
}

// identity returns the function of Options.Identities scalar n names.
func (b *builder) identity(n *yaml.Node, what string) func(*http.Request) (string, bool) {
	name, ok := b.str(n, what)
	if !ok {
		return nil
	}
	fn := b.opts.Identities[name]
	if fn == nil {
		b.errorf(n, "%s: no identity %q in Options.Identities (%s)", what, clip(name), names(b.opts.Identities))
	}
	return fn
}

// clientIPFields are the fields of a client_ip key.
var clientIPFields = []string{"trusted_proxies", "trusted_hops", "source", "headers", "ipv4_prefix", "ipv6_prefix", "nat64_prefixes"}

// clientIP builds a client_ip key. Each proxy network and header name is
// checked on its own first, so that an error points at it.
func (b *builder) clientIP(f field, what string) keyfunc.Func {
	fs, ok := b.mapping(f.val, what, clientIPFields...)
	if !ok {
		return nil
	}
	var o keyfunc.IPOptions
	if p, has := fs["trusted_proxies"]; has {
		o.TrustedProxyCIDRs = b.ipList(p.val, what+".trusted_proxies", &ok, func(s string) keyfunc.IPOptions {
			return keyfunc.IPOptions{TrustedProxyCIDRs: []string{s}}
		})
	}
	if h, has := fs["headers"]; has {
		o.Headers = b.ipList(h.val, what+".headers", &ok, func(s string) keyfunc.IPOptions {
			return keyfunc.IPOptions{TrustedHops: 1, Headers: []string{s}}
		})
	}
	if p, has := fs["nat64_prefixes"]; has {
		o.NAT64Prefixes = b.ipList(p.val, what+".nat64_prefixes", &ok, func(s string) keyfunc.IPOptions {
			return keyfunc.IPOptions{NAT64Prefixes: []string{s}}
		})
	}
	if s, has := fs["source"]; has {
		switch w, good := b.word(s.val, what+".source", "x-forwarded-for", "forwarded", "none"); w {
		case "forwarded":
			o.Source = keyfunc.SourceForwarded
		case "none":
			o.Source = keyfunc.SourceNone
		default:
			ok = ok && good
		}
	}
	for _, n := range []struct {
		field  string
		lo, hi int64
		to     *int
	}{{"trusted_hops", 1, 64, &o.TrustedHops}, {"ipv4_prefix", 8, 32, &o.IPv4Prefix}, {"ipv6_prefix", 32, 128, &o.IPv6Prefix}} {
		if f, has := fs[n.field]; has {
			v, good := b.integer(f.val, what+"."+n.field, n.lo, n.hi)
			ok = ok && good
			*n.to = int(v)
		}
	}
	if !ok {
		return nil
	}
	fn, err := keyfunc.ClientIP(o)
	if err != nil {
		b.fail(f.key, fmt.Errorf("%s: %w", what, err))
		return nil
	}
	return fn
}
