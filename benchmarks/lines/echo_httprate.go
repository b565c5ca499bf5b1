//go:build ignore

// Task 3 with go-chi/httprate v0.16.1: an echo login counting only failed
// attempts, 5 an hour per username. httprate counts before it checks, so
// the program checks (Status), then counts a failure (OnLimit): not
// atomic, parallel guesses all pass the check; usernames are counted as
// typed ("Alice" and "alice" apart); no per-network limit.
package main

import (
	"log"
	"net/http"
	"time"

	"github.com/go-chi/httprate"
	"github.com/labstack/echo/v4"
)

func main() {
	log.Fatal(newServer().Start("127.0.0.1:8080"))
}

func newServer() *echo.Echo {
	failures := httprate.NewRateLimiter(5, time.Hour)
	e := echo.New()
	e.POST("/login", func(c echo.Context) error {
		user := c.FormValue("username")
		if _, n, err := failures.Status(user); err != nil || n >= 5 {
			return echo.ErrTooManyRequests
		}
		if !checkPassword(user, c.FormValue("password")) {
			failures.OnLimit(c.Response(), c.Request(), user)
			return echo.ErrUnauthorized
		}
		return c.String(http.StatusOK, "welcome\n")
	})
	return e
}

func checkPassword(user, password string) bool {
	return user == "alice" && password == "correct horse"
}
