//go:build ignore

// Task 3 with ulule/limiter v3.11.2: an echo login counting only failed
// attempts, 5 an hour per username, with Peek then Increment: not atomic,
// parallel guesses all pass the check; usernames are counted as typed; no
// per-network limit.
package main

import (
	"log"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/memory"
)

func main() {
	log.Fatal(newServer().Start("127.0.0.1:8080"))
}

func newServer() *echo.Echo {
	failures := limiter.New(memory.NewStore(), limiter.Rate{Period: time.Hour, Limit: 5})
	e := echo.New()
	e.POST("/login", func(c echo.Context) error {
		user := c.FormValue("username")
		if l, err := failures.Peek(c.Request().Context(), user); err != nil || l.Remaining == 0 {
			return echo.ErrTooManyRequests
		}
		if !checkPassword(user, c.FormValue("password")) {
			_, _ = failures.Increment(c.Request().Context(), user, 1)
			return echo.ErrUnauthorized
		}
		return c.String(http.StatusOK, "welcome\n")
	})
	return e
}

func checkPassword(user, password string) bool {
	return user == "alice" && password == "correct horse"
}
