package keyfunc_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/floodgate-go/floodgate/keyfunc"
)

func request(remote string, hdr ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = remote
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Add(hdr[i], hdr[i+1])
	}
	return r
}

func ExampleClientIP() {
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{})
	if err != nil {
		panic(err)
	}
	for _, remote := range []string{"198.51.100.7:52000", "[2001:db8:1:2::7]:443", "[::ffff:198.51.100.7]:80"} {
		// No proxy is trusted: X-Forwarded-For is ignored.
		key, _ := ip(request(remote, "X-Forwarded-For", "203.0.113.1"))
		fmt.Println(key)
	}
	_, err = ip(request("not an address"))
	fmt.Println(errors.Is(err, keyfunc.ErrNoKey))
	// Output:
	// 198.51.100.7/32
	// 2001:db8:1:2::/64
	// 198.51.100.7/32
	// true
}

// AppendClientIP appends the key of ClientIP's zero options to a buffer:
// for a caller that hashes keys, a buffer on the stack spares the string.
func ExampleAppendClientIP() {
	var buf [64]byte
	for _, remote := range []string{"198.51.100.7:4321", "[2001:db8:1:2::9]:443", "garbage"} {
		key, err := keyfunc.AppendClientIP(buf[:0], request(remote))
		fmt.Printf("%s %v\n", key, err != nil)
	}
	// Output:
	// 198.51.100.7/32 false
	// 2001:db8:1:2::/64 false
	//  true
}

func ExampleClientIP_trustedProxies() {
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{
		TrustedProxyCIDRs: []string{"10.0.0.0/8"},
	})
	if err != nil {
		panic(err)
	}
	// From a trusted proxy, X-Forwarded-For is walked from the right past
	// trusted entries; what the client wrote on the left is never read.
	key, _ := ip(request("10.0.0.1:443", "X-Forwarded-For", "6.6.6.6, 198.51.100.7, 10.0.0.2"))
	fmt.Println(key)
	// From anyone else, it is ignored.
	key, _ = ip(request("192.0.2.1:443", "X-Forwarded-For", "198.51.100.7"))
	fmt.Println(key)
	// An unusable entry fails closed: the header is not used.
	key, _ = ip(request("10.0.0.1:443", "X-Forwarded-For", "198.51.100.7, garbage"))
	fmt.Println(key)
	// Output:
	// 198.51.100.7/32
	// 192.0.2.1/32
	// 10.0.0.1/32
}

func ExampleClientIP_hops() {
	// Two proxies in front of the application, addresses unknown.
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{TrustedHops: 2})
	if err != nil {
		panic(err)
	}
	key, _ := ip(request("192.0.2.2:443", "X-Forwarded-For", "6.6.6.6, 198.51.100.7, 192.0.2.1"))
	fmt.Println(key)
	// A chain shorter than the hop count is not used.
	key, _ = ip(request("192.0.2.2:443", "X-Forwarded-For", "198.51.100.7"))
	fmt.Println(key)
	// Output:
	// 198.51.100.7/32
	// 192.0.2.2/32
}

func ExampleClientIP_forwarded() {
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{
		TrustedProxyCIDRs: []string{"10.0.0.0/8"},
		Source:            keyfunc.SourceForwarded,
		IPv6Prefix:        48,
	})
	if err != nil {
		panic(err)
	}
	key, _ := ip(request("10.0.0.1:443", "Forwarded", `for="[2001:db8:cafe::17]:4711";proto=https, for=10.0.0.2`))
	fmt.Println(key)
	key, _ = ip(request("10.0.0.1:443", "Forwarded", "for=unknown"))
	fmt.Println(key)
	// Output:
	// 2001:db8:cafe::/48
	// 10.0.0.1/32
}

func ExampleClientIP_headers() {
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{
		TrustedProxyCIDRs: []string{"10.0.0.0/8"},
		Headers:           []string{"X-Real-IP"},
		IPv4Prefix:        24,
	})
	if err != nil {
		panic(err)
	}
	key, _ := ip(request("10.0.0.1:443", "X-Real-IP", "198.51.100.7"))
	fmt.Println(key)
	// Output:
	// 198.51.100.0/24
}

func ExampleHeader() {
	apiKey := keyfunc.Header("X-API-Key")
	key, _ := apiKey(request("192.0.2.1:1", "X-API-Key", "secret-key-1"))
	fmt.Println(key)
	_, err := apiKey(request("192.0.2.1:1"))
	fmt.Println(errors.Is(err, keyfunc.ErrNoKey))
	// Output:
	// header:022c88f3e0f75d6f31caa5a609a69017
	// true
}

func ExampleUser() {
	user := keyfunc.User(func(r *http.Request) (string, bool) {
		name, _, ok := r.BasicAuth()
		return name, ok
	})
	r := request("192.0.2.1:1")
	r.SetBasicAuth("alice", "password")
	key, _ := user(r)
	fmt.Println(key)
	// Output:
	// user:58e73b3122fbee0d4ebd91e43a4f47aa
}

type userKey struct{}

func ExampleUserFromContext() {
	user := keyfunc.UserFromContext(userKey{})
	r := request("192.0.2.1:1")
	r = r.WithContext(context.WithValue(r.Context(), userKey{}, "alice"))
	key, _ := user(r)
	fmt.Println(key)
	// Output:
	// user:58e73b3122fbee0d4ebd91e43a4f47aa
}

func ExampleRoute() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		key, _ := keyfunc.Route(r)
		fmt.Println(key)
	})
	mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/items/42", nil))
	// Output:
	// GET /items/{id}
}

func ExampleMethod() {
	key, _ := keyfunc.Method(httptest.NewRequest(http.MethodPost, "/", nil))
	fmt.Println(key)
	// Output:
	// POST
}

func ExampleConst() {
	global := keyfunc.Const("global")
	key, _ := global(request("192.0.2.1:1"))
	fmt.Println(key)
	// Output:
	// global
}

func ExampleJoin() {
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{})
	if err != nil {
		panic(err)
	}
	key, _ := keyfunc.Join(keyfunc.Const("login"), keyfunc.Method, ip)(request("198.51.100.7:1"))
	fmt.Println(key)
	a, _ := keyfunc.Join(keyfunc.Const("a|b"), keyfunc.Const("c"))(request("198.51.100.7:1"))
	b, _ := keyfunc.Join(keyfunc.Const("a"), keyfunc.Const("b|c"))(request("198.51.100.7:1"))
	fmt.Println(a, b)
	// Output:
	// 5:login3:GET15:198.51.100.7/32
	// 3:a|b1:c 1:a3:b|c
}

func ExampleFirst() {
	ip, err := keyfunc.ClientIP(keyfunc.IPOptions{})
	if err != nil {
		panic(err)
	}
	// Limit by account when the request carries an API key the service
	// issued, by client address otherwise (middleware.APIKeyOrIP does this
	// with a limiter for each). The key is looked up: keyed by the header
	// itself (keyfunc.Header), every made-up key would be a new budget.
	issued := map[string]string{"secret-key-1": "acme"}
	account := keyfunc.User(func(r *http.Request) (string, bool) {
		a, ok := issued[r.Header.Get("X-API-Key")]
		return a, ok
	})
	key := keyfunc.First(account, ip)
	for _, apiKey := range []string{"", "secret-key-1", "made-up"} {
		k, _ := key(request("198.51.100.7:1", "X-API-Key", apiKey))
		fmt.Println(k)
	}
	// Output:
	// 198.51.100.7/32
	// user:ae153dd0a98ad246531afd7a4f976239
	// 198.51.100.7/32
}

func ExampleSource_String() {
	fmt.Println(keyfunc.SourceXForwardedFor, keyfunc.SourceForwarded)
	// Output:
	// X-Forwarded-For Forwarded
}
