// Command login is a login endpoint throttled by package middleware/login.
//
//	go run ./examples/login -addr 127.0.0.1:8081
//
// POST /login takes a form or a JSON object with "username" and "password";
// the demo account is alice / correct horse battery staple. It answers 200
// on success, 401 on wrong credentials (the same for unknown usernames), and
// 429 with Retry-After when the account or the client network is throttled.
// POST /reset-password is outside the guard, so it stays reachable for a
// locked account. Usernames are counted normalized ("ALICE", " alice ",
// fullwidth "ａｌｉｃｅ" share one counter). A successful login sets a
// device cookie: with it, alice still gets in while an attacker keeps her
// account locked for everyone else. The cookie's HMAC secret comes from
// FLOODGATE_DEVICE_SECRET (at least 32 bytes), else a random one, which
// forgets the devices on restart. Behind a load balancer or a reverse
// proxy, name its networks (and no wider) with -trusted-proxies
// 10.0.0.5/32. The server prints "listening on ADDR" once it accepts
// connections and shuts down on SIGINT or SIGTERM.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware/login"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "address to listen on")
	proxies := flag.String("trusted-proxies", "", "comma-separated networks of the proxies in front (load balancers: \"10.0.0.5/32\"), whose X-Forwarded-For is believed; empty: clients connect directly")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	secret := []byte(os.Getenv("FLOODGATE_DEVICE_SECRET"))
	if len(secret) == 0 {
		secret = make([]byte, login.MinDeviceSecret)
		_, _ = rand.Read(secret) // crypto/rand.Read never fails
	}
	if err := run(ctx, *addr, os.Stdout, options(secret, splitList(*proxies))); err != nil {
		log.Fatal(err)
	}
}

// options are the guard's: device cookies signed with secret, and the
// client network found behind the proxies in the networks trustedProxies.
// Behind a proxy left out of them every user is counted on the proxy's
// network, and one guesser's 100 failures an hour lock everyone without
// a device cookie out of the login.
func options(secret []byte, trustedProxies []string) login.Options {
	// The demo serves plain HTTP, so its cookie is not marked Secure;
	// behind TLS, leave Insecure false.
	return login.Options{
		Devices: &login.DeviceOptions{Secret: secret, Insecure: true},
		IP:      keyfunc.IPOptions{TrustedProxyCIDRs: trustedProxies},
	}
}

// splitList splits a comma-separated list, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// run serves until ctx is done, printing "listening on ADDR" to out once
// the listener accepts connections.
func run(ctx context.Context, addr string, out io.Writer, opts login.Options) error {
	h, err := newHandler(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	fmt.Fprintf(out, "listening on %s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newHandler returns the demo's routes.
func newHandler(opts login.Options) (http.Handler, error) {
	if opts.OnLockout == nil {
		opts.OnLockout = func(kind string, retry time.Duration) { log.Printf("lockout: %s key for %v", kind, retry) }
	}
	g, err := login.New(opts)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /login", g.Handler(http.HandlerFunc(checkLogin)))
	mux.HandleFunc("POST /reset-password", func(w http.ResponseWriter, r *http.Request) {
		// A real service would mail a reset link; it answers the same for
		// every username.
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintln(w, "if the account exists, a reset link is on its way")
	})
	return mux, nil
}

// The demo account. A real service keeps a slow, salted password hash
// (bcrypt, scrypt, argon2id); SHA-256 keeps the demo short.
var (
	demoUser = "alice"
	demoHash = sha256.Sum256([]byte("correct horse battery staple"))
)

// checkLogin checks the credentials of a form or JSON body. Unknown
// usernames cost the same comparison as known ones.
func checkLogin(w http.ResponseWriter, r *http.Request) {
	user, pass, ok := credentials(r)
	if !ok {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	got := sha256.Sum256([]byte(pass))
	match := subtle.ConstantTimeCompare(got[:], demoHash[:]) == 1
	if user != demoUser || !match {
		http.Error(w, "invalid username or password", http.StatusUnauthorized)
		return
	}
	fmt.Fprintln(w, "welcome, "+user)
}

func credentials(r *http.Request) (user, pass string, ok bool) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" {
		var c struct{ Username, Password string }
		b, err := io.ReadAll(r.Body)
		if err != nil || json.NewDecoder(bytes.NewReader(b)).Decode(&c) != nil {
			return "", "", false
		}
		return c.Username, c.Password, true
	}
	if err := r.ParseForm(); err != nil {
		return "", "", false
	}
	return r.PostForm.Get("username"), r.PostForm.Get("password"), true
}
