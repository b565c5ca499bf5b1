package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// loadConfig configures the load generator.
type loadConfig struct {
	// Target is the API's base URL ("http://127.0.0.1:8080").
	Target string
	// Requests is how many requests to send; 0 means until the context
	// is done.
	Requests int
	// Clients is how many polite client addresses the traffic comes from
	// (at most maxClients).
	Clients int
	// Workers is how many requests are in flight at once.
	Workers int
	// RPS paces the requests; 0 sends them as fast as the workers go.
	RPS int
}

// maxClients bounds loadConfig.Clients: the polite addresses are
// 10.0.0.0 … 10.15.255.255.
const maxClients = 1 << 20

// validate reports a configuration the generator cannot run.
func (c loadConfig) validate() error {
	switch {
	case c.Target == "":
		return errors.New("load: no target")
	case c.Requests < 0:
		return fmt.Errorf("load: requests %d < 0", c.Requests)
	case c.Clients < 1 || c.Clients > maxClients:
		return fmt.Errorf("load: clients %d not in [1, %d]", c.Clients, maxClients)
	case c.Workers < 1:
		return fmt.Errorf("load: workers %d < 1", c.Workers)
	case c.RPS < 0:
		return fmt.Errorf("load: rps %d < 0", c.RPS)
	}
	return nil
}

// The kinds of planned requests.
const (
	kindItems       = "items"        // a polite client's GET /api/items
	kindGreedyItems = "greedy-items" // one of few clients hammering GET /api/items
	kindSearch      = "search"       // a polite client's GET /api/search
	kindLogin       = "login"        // a polite client logging in with the right password
	kindGuess       = "guess"        // one of few attackers guessing passwords
)

// Few addresses send the greedy and guessing traffic.
const (
	greedyClients   = 4
	attackerClients = 3
)

// plannedRequest is the i-th request of the load.
type plannedRequest struct {
	kind   string
	method string
	path   string
	addr   string // the client address, sent as X-Forwarded-For
	form   url.Values
}

// plan returns the i-th request of a load from clients polite addresses:
// of every 20 requests, 12 are polite GET /api/items, 4 greedy ones, 2
// polite searches, 1 a login with the right password and 1 a password
// guess. The polite addresses are spread over the load (each sends a few
// requests, within the limits); the greedy and guessing ones are few and
// go over theirs.
func plan(i, clients int) plannedRequest {
	polite := func() string {
		j := int(mix(uint64(i)) % uint64(clients))
		return fmt.Sprintf("10.%d.%d.%d", j>>16, j>>8&0xff, j&0xff)
	}
	switch s := i % 20; {
	case s < 12:
		return plannedRequest{kind: kindItems, method: http.MethodGet, path: "/api/items", addr: polite()}
	case s < 16:
		return plannedRequest{kind: kindGreedyItems, method: http.MethodGet, path: "/api/items",
			addr: fmt.Sprintf("10.200.0.%d", 1+i%greedyClients)}
	case s < 18:
		return plannedRequest{kind: kindSearch, method: http.MethodGet, path: "/api/search?q=" + []string{"a", "ch", "h"}[i%3], addr: polite()}
	case s == 18:
		return plannedRequest{kind: kindLogin, method: http.MethodPost, path: "/login", addr: polite(),
			form: url.Values{"username": {"alice"}, "password": {demoPassword}}}
	default:
		return plannedRequest{kind: kindGuess, method: http.MethodPost, path: "/login",
			addr: fmt.Sprintf("10.201.0.%d", 1+i/20%attackerClients),
			form: url.Values{"username": {"alice"}, "password": {fmt.Sprint("guess-", i)}}}
	}
}

// mix is SplitMix64's finaliser: it spreads consecutive indexes over the
// polite addresses.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// outcome is a kind of request and the status it got (0: no answer).
type outcome struct {
	kind   string
	status int
}

// tally counts the outcomes of a load.
type tally map[outcome]int

// String lists the outcomes, sorted: "items 200: 120, …".
func (t tally) String() string {
	var parts []string
	for o, n := range t {
		parts = append(parts, fmt.Sprintf("%s %d: %d", o.kind, o.status, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// generate sends the planned requests to cfg.Target until cfg.Requests
// are answered or ctx is done, and counts what they got. A request that
// gets no answer is counted with status 0; the first such error is
// returned with the tally.
func generate(ctx context.Context, client *http.Client, cfg loadConfig) (tally, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	next := make(chan int)
	go func() {
		defer close(next)
		var tick <-chan time.Time
		if cfg.RPS > 0 {
			t := time.NewTicker(time.Second / time.Duration(cfg.RPS))
			defer t.Stop()
			tick = t.C
		}
		for i := 0; cfg.Requests == 0 || i < cfg.Requests; i++ {
			if tick != nil {
				select {
				case <-tick:
				case <-ctx.Done():
					return
				}
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var (
		mu    sync.Mutex
		total = tally{}
		first error
		wg    sync.WaitGroup
	)
	for range cfg.Workers {
		wg.Go(func() {
			own := tally{}
			var err error
			for i := range next {
				p := plan(i, cfg.Clients)
				status, e := send(ctx, client, cfg.Target, p)
				own[outcome{p.kind, status}]++
				if e != nil && err == nil {
					err = e
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for o, n := range own {
				total[o] += n
			}
			if err != nil && first == nil {
				first = err
			}
		})
	}
	wg.Wait()
	return total, first
}

// send sends p and returns the answer's status.
func send(ctx context.Context, client *http.Client, target string, p plannedRequest) (int, error) {
	var body io.Reader
	if p.form != nil {
		body = strings.NewReader(p.form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, p.method, target+p.path, body)
	if err != nil {
		return 0, err
	}
	if p.form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("X-Forwarded-For", p.addr)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Body.Close()
}
