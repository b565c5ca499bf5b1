package config

import (
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"go.yaml.in/yaml/v3"
)

// redisClient makes the client of the store section n, named sec
// (store.redis, store.localfirst): from url, url_env or addresses.
// Commands are never retried: the stores have their own deadlines and
// failure handling, and a retried take or push would count twice. A
// client of several addresses (a Cluster) reads and writes within io, the
// store's bound on a round trip: the store sends with it as it is, rather
// than with a client of its own beside it (see redisbound). A connection
// is dialled once per attempt, not five times 100 ms apart: the stores
// try again by themselves (the Redis store's probes, the local-first
// store's next round), and a request never waits on a dial's backoff.
func (b *builder) redisClient(n *yaml.Node, fs map[string]field, io time.Duration, sec string) redis.UniversalClient {
	var given []field
	for _, k := range []string{"url", "url_env", "addresses"} {
		if f, ok := fs[k]; ok {
			given = append(given, f)
		}
	}
	if len(given) != 1 {
		at := n
		if len(given) > 1 {
			at = given[1].key
		}
		b.errorf(at, "%s: want one of url, url_env and addresses", sec)
		return nil
	}
	for _, k := range []string{"master_name", "password_env"} {
		if f, ok := fs[k]; ok && given[0].key.Value != "addresses" {
			b.errorf(f.key, "%s.%s: only with addresses (a URL holds its own settings)", sec, k)
			return nil
		}
	}
	switch f := given[0]; f.key.Value {
	case "url", "url_env":
		return b.redisURL(f, sec)
	default:
		addrs, nodes, ok := b.strs(f.val, sec+".addresses")
		if !ok {
			return nil
		}
		for i, a := range addrs {
			switch _, port, err := net.SplitHostPort(a); {
			case strings.ContainsAny(a, "@/"):
				// A URL, perhaps with a password: never quoted.
				b.errorf(nodes[i], "%s.addresses: an address holds a URL or credentials (not quoted here): want host:port (a URL goes in url)", sec)
				ok = false
			case err != nil || !validPort(port):
				b.errorf(nodes[i], "%s.addresses: %q: want host:port", sec, clip(a))
				ok = false
			}
		}
		if !ok {
			return nil
		}
		uo := &redis.UniversalOptions{Addrs: addrs, MaxRetries: -1, DialerRetries: 1, ReadTimeout: io, WriteTimeout: io}
		if m, ok := fs["master_name"]; ok {
			uo.MasterName, _ = b.str(m.val, sec+".master_name")
		}
		if p, ok := fs["password_env"]; ok {
			uo.Password, _ = b.env(p.val, sec+".password_env")
		}
		return redis.NewUniversalClient(uo)
	}
}

// redisURL makes a client from a URL given in the file or in the
// environment. The URL, which may hold a password, is never quoted in an
// error.
func (b *builder) redisURL(f field, sec string) redis.UniversalClient {
	var u string
	var ok bool
	if f.key.Value == "url" {
		u, ok = b.str(f.val, sec+".url")
	} else {
		u, ok = b.env(f.val, sec+".url_env")
	}
	if !ok {
		return nil
	}
	o, err := redis.ParseURL(u)
	if err != nil {
		b.errorf(f.val, "%s.%s: not a Redis URL (redis://[user:password@]host:port[/db], rediss://… or unix://…)", sec, f.key.Value)
		return nil
	}
	for _, d := range []time.Duration{o.DialTimeout, o.ReadTimeout, o.WriteTimeout} {
		if d > 0 && d < time.Millisecond {
			// Every round trip would fail: under fail-open, every request
			// admitted.
			b.errorf(f.val, "%s.%s: the URL's dial_timeout, read_timeout and write_timeout must be 1ms or more (or -1)", sec, f.key.Value)
			return nil
		}
	}
	o.MaxRetries, o.DialerRetries = -1, 1
	return redis.NewClient(o)
}

// env returns the value of the environment variable scalar n names.
func (b *builder) env(n *yaml.Node, what string) (string, bool) {
	name, ok := b.str(n, what)
	if !ok {
		return "", false
	}
	v := os.Getenv(name)
	switch {
	case v != "":
		return v, true
	case envName.MatchString(name):
		b.errorf(n, "%s: environment variable %s is not set", what, clip(name))
	default:
		// Not a name as environment variables are named: perhaps the
		// value (a URL, a password) written in its place, never quoted.
		b.errorf(n, "%s: the environment variable it names is not set (the name is not quoted: it is not of capitals, digits and _, and may be a secret written in its place)", what)
	}
	return "", false
}

// envName is how environment variables are named, by convention: the
// names an error quotes.
var envName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// validPort reports whether p is a port number, 1 to 65535.
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}
