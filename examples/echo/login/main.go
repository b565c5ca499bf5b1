// Command login throttles password guessing on an echo server: only failed
// logins count, per account (5 free failures an hour, then lockouts from
// 1 s doubling up to an hour) and per client network (100), the defaults
// of package login.
//
//	go run ./login   (in examples/echo)
//	curl -i -d username=alice -d password=guess 127.0.0.1:8080/login
package main

import (
	"log"
	"net/http"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/labstack/echo/v4"
)

func main() {
	log.Fatal(newServer(login.Options{}).Start("127.0.0.1:8080"))
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
