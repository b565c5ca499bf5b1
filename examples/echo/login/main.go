// Command login throttles password guessing on an echo server: only failed
// logins count, per account (5 free failures an hour, then lockouts from
// 1 s doubling up to an hour) and per client network (100), the defaults
// of package login; a successful login sets a device cookie, on which the
// account's owner still gets in while an attacker keeps it locked. The
// cookies' HMAC secret is FLOODGATE_DEVICE_SECRET: at least 32 random
// bytes, the same on every instance (the server refuses to start without).
// The cookies are Secure: serve the login over TLS (browsers and curl send
// them back to http://localhost too). Behind a proxy, give login.Options
// its IP (README, "Behind a load balancer or a proxy").
//
//	FLOODGATE_DEVICE_SECRET=$(head -c 32 /dev/urandom | base64) go run ./login   (in examples/echo)
//	curl -i -d username=alice -d password=guess 127.0.0.1:8080/login
package main

import (
	"log"
	"net/http"
	"os"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/labstack/echo/v4"
)

func main() {
	log.Fatal(newServer([]byte(os.Getenv("FLOODGATE_DEVICE_SECRET")), login.Options{}).Start("127.0.0.1:8080"))
}

// newServer is the application; secret signs the device cookies, and opts
// are the guard's other options (tests pass a clock). With the zero
// login.Options the guard issues no device cookies, and anyone may keep
// any account locked for everyone.
func newServer(secret []byte, opts login.Options) *echo.Echo {
	opts.Devices = &login.DeviceOptions{Secret: secret}
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
