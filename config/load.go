package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/isnil"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/redis/go-redis/v9"
	"go.yaml.in/yaml/v3"
)

// Options gives a configuration what a file cannot hold: the functions it
// names, the middleware's hooks and, in tests, a clock.
type Options struct {
	// Identities are the functions that find who a request comes from,
	// by the names the file gives them in "user" keys and in
	// "identified.by": each returns the identity (an account, a user)
	// that a request proves, verified, and false for requests that prove
	// none (see middleware.APIKeyOrIP).
	Identities map[string]func(*http.Request) (string, bool)
	// Tiers are the functions that name a request's tier (its tenant's
	// plan), by the names the file gives them in "tiers.by". An error
	// refuses the request.
	Tiers map[string]func(*http.Request) (string, error)
	// Middleware holds the middleware's hooks (OnError, OnDenied, Denied,
	// NoKey, Skip, Cost, CountIf, …). Key must be nil: the file gives the
	// keys. The file's dry_run and the Redis fail-open mode turn DryRun and
	// FailOpen on; its headers section may not be given with Headers.
	Middleware middleware.Options
	// Clock is the limiters' clock; nil means the system clock. With
	// store.redis it is used only with caller_clock; with store.localfirst
	// it is the sync rounds' clock too.
	Clock core.Clock
}

// Limiter is the middleware a configuration describes, with the store it
// decides in. Mount it with its Handler method, or give its Middleware to
// a router adapter. Close releases the Redis store and client (and stops
// the local-first store's sync rounds).
type Limiter struct {
	*middleware.Middleware
	redis  *redisstore.Store
	lf     *localfirst.Store
	client redis.UniversalClient
	// The local-first store's sync rounds (storelife.go).
	stopSync  context.CancelFunc
	synced    chan struct{}
	closeOnce sync.Once
	closeErr  error

	// For Reload (reload.go): what the file was parsed with, its store,
	// its limiters by policy name, and its top level, section by section.
	name     string
	opts     Options
	store    core.Store
	policies map[string]*core.Limiter
	top      map[string]*yaml.Node
	reloadMu sync.Mutex
}

// Load reads the configuration file at path and returns the Limiter it
// describes; see [Parse].
func Load(path string, opts Options) (*Limiter, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(path, data, opts)
}

// Parse returns the Limiter the configuration data describes, in YAML (or
// JSON, which is YAML); name is the file name its errors give. Every value
// is checked before anything serves: an unknown or misspelt field, an
// invalid rate, key, pattern or store setting, a name that refers to
// nothing is an [Error] at its line and column (several are joined). Parse
// makes the Redis client and store the file describes, without contacting
// Redis: see [Limiter.Check]. With store.localfirst it starts the store's
// sync rounds, which [Limiter.Close] stops.
func Parse(name string, data []byte, opts Options) (l *Limiter, err error) {
	if opts.Middleware.Key != nil {
		return nil, fmt.Errorf("config: Options.Middleware.Key is set, but the file gives the keys: %w", core.ErrInvalidConfig)
	}
	if opts.Clock != nil && isnil.Value(opts.Clock) {
		return nil, fmt.Errorf("config: Options.Clock is a nil %T: %w", opts.Clock, core.ErrInvalidConfig)
	}
	d := &decoder{file: name}
	root, ok := d.read(data)
	if !ok {
		return nil, d.err()
	}
	b := &builder{decoder: d, opts: opts}
	defer func() {
		if err != nil {
			b.closeStore()
		}
	}()
	sel, mopts := b.build(root)
	if len(d.errs) > 0 {
		return nil, d.err()
	}
	m, err := middleware.NewKeyed(sel, mopts)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	l = &Limiter{Middleware: m, redis: b.redis, lf: b.lf, client: b.client, name: name, opts: opts, store: b.store,
		policies: map[string]*core.Limiter{}, top: sections(root)}
	for name, def := range b.policies {
		l.policies[name] = def.lim
	}
	l.startSync()
	return l, nil
}

// read parses data into the root node of its one YAML document.
func (d *decoder) read(data []byte) (root *yaml.Node, ok bool) {
	if line, col, bad := badChar(data); bad {
		d.failAt(line, col, errors.New("not UTF-8 text: a configuration is UTF-8 without control characters other than tab and line breaks"))
		return nil, false
	}
	d.lines = splitLines(string(data))
	defer func() {
		if v := recover(); v != nil { // the YAML library's own bug: an error, never a panic
			d.failAt(1, 1, fmt.Errorf("yaml: %v", v))
			root, ok = nil, false
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.failAt(1, 1, errors.New("empty configuration: want at least a default limit or a route"))
		} else {
			d.syntax(err)
		}
		return nil, false
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		d.failAt(next.Line, next.Column, errors.New("a second YAML document: a configuration is one document"))
		return nil, false
	} else if !errors.Is(err, io.EOF) {
		d.syntax(err)
		return nil, false
	}
	if len(doc.Content) != 1 || isNull(doc.Content[0]) {
		d.failAt(1, 1, errors.New("empty configuration: want at least a default limit or a route"))
		return nil, false
	}
	if n := expanded(doc.Content[0], map[*yaml.Node]int{}); n > maxExpanded {
		d.failAt(1, 1, fmt.Errorf("the file's aliases expand it to more than %d nodes: a configuration is read with its aliases followed", maxExpanded))
		return nil, false
	}
	return doc.Content[0], true
}

// maxExpanded bounds a configuration's nodes counted with its aliases
// followed (a real one has hundreds): past it, aliases of aliases would
// make reading the file, and reloading it, take seconds and gigabytes
// (155 KB of aliased key definitions took 5.7 s and 1.26 GB to parse).
const maxExpanded = 100_000

// expanded returns how many nodes n holds with its aliases followed, at
// most maxExpanded + 1, each node's count computed once (seen). An alias
// of a node being counted (a cycle) counts as too many.
func expanded(n *yaml.Node, seen map[*yaml.Node]int) int {
	if n == nil {
		return 0
	}
	if n.Kind == yaml.AliasNode {
		return 1 + expanded(n.Alias, seen)
	}
	if c, ok := seen[n]; ok {
		if c < 0 {
			return maxExpanded + 1 // a cycle
		}
		return c
	}
	seen[n] = -1
	total := 1
	for _, c := range n.Content {
		total = min(total+expanded(c, seen), maxExpanded+1)
	}
	seen[n] = total
	return total
}

// yamlLine finds the line in the YAML parser's messages.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntax records a YAML syntax error at the line its message names, the
// first line when it names none.
func (d *decoder) syntax(err error) {
	line, msg := 1, err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			line, msg = n, "yaml: "+msg[len(m[0]):]
		}
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Err: errors.New(msg)})
}

// splitLines splits s into lines as YAML does: at CR LF, CR, LF, NEL,
// LS and PS.
func splitLines(s string) []string {
	var out []string
	for {
		i := strings.IndexAny(s, "\r\n\u0085\u2028\u2029")
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		_, size := utf8.DecodeRuneInString(s[i:])
		if strings.HasPrefix(s[i:], "\r\n") {
			size = 2
		}
		s = s[i+size:]
	}
}

// badChar returns the position of the first byte that is not UTF-8 or is a
// character YAML refuses (C0 controls but tab, CR and LF; DEL; C1 controls
// but NEL; surrogates; U+FFFE, U+FFFF).
func badChar(data []byte) (line, col int, bad bool) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1,
			r < 0x20 && r != '\t' && r != '\n' && r != '\r',
			r >= 0x7f && r < 0xa0 && r != 0x85,
			r == 0xfffe || r == 0xffff:
			return line, col, true
		}
		switch {
		case r == '\r' && i+1 < len(data) && data[i+1] == '\n':
			// one break, counted at the LF
		case r == '\r' || r == '\n' || r == 0x85 || r == 0x2028 || r == 0x2029:
			line, col = line+1, 1
		default:
			col++
		}
		i += size
	}
	return 0, 0, false
}
