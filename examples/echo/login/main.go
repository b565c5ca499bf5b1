// Command login throttles password guessing on an echo server: only failed
// logins count, per account (5 free failures an hour, then lockouts from
// 1 s doubling up to an hour) and per client network (100), the defaults
// of package login; a successful login sets a device cookie, on which the
// account's owner still gets in while an attacker keeps it locked.
//
//	go run ./login   (in examples/echo)
//	curl -i -d username=alice -d password=guess 127.0.0.1:8080/login
//	go run ./login -trusted-proxies 10.0.0.5/32   (behind load balancers there)
package main

import (
	"crypto/rand"
	"flag"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/labstack/echo/v4"
)

func main() {
	proxies := flag.String("trusted-proxies", "", "comma-separated networks of the proxies in front (load balancers: \"10.0.0.5/32\"), whose X-Forwarded-For is believed; empty: clients connect directly")
	flag.Parse()
	log.Fatal(newServer(options(splitList(*proxies))).Start("127.0.0.1:8080"))
}

// options are the guard's options as deployed: device cookies on, so
// that an attacker who locks alice's account does not lock her out of
// the devices she logged in from. The zero login.Options issue none:
// anyone may then keep any account locked for everyone. The cookies'
// HMAC secret comes from FLOODGATE_DEVICE_SECRET (at least 32 bytes, the
// same on every instance), else a random one, which forgets the devices
// on restart. The cookies are Secure: serve the login over TLS (browsers
// and curl send them back to http://localhost too). The client network is
// found behind the proxies in the networks trustedProxies: behind a proxy
// left out of them every user is counted on the proxy's network, and one
// guesser's 100 failures an hour lock everyone without a device cookie
// out of the login.
func options(trustedProxies []string) login.Options {
	secret := []byte(os.Getenv("FLOODGATE_DEVICE_SECRET"))
	if len(secret) == 0 {
		secret = make([]byte, login.MinDeviceSecret)
		_, _ = rand.Read(secret) // crypto/rand.Read never fails
	}
	return login.Options{
		Devices: &login.DeviceOptions{Secret: secret},
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

// newServer is the application; opts are the guard's (tests pass a clock).
func newServer(opts login.Options) *echo.Echo {
	g, err := login.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	e := echo.New()
	e.POST("/login", func(c echo.Context) error {
		if !checkPassword(c.FormValue("username"), c.FormValue("password")) {
			return echo.ErrUnauthorized
		}
		return c.String(http.StatusOK, "welcome\n")
	}, echolimit.Login(g))
	return e
}

// checkPassword stands for the application's credential check.
func checkPassword(user, password string) bool {
	return user == "alice" && password == "correct horse"
}
