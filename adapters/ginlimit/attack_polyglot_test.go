package ginlimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
)

// TestAttackShouldBindJSONPolyglot: the standard gin JSON login (c.ShouldBindJSON, which ignores
// Content-Type) behind ginlimit.Login: a form/JSON polyglot sent as a form
// is counted on a decoy's account while gin checks alice's password.
// Account limit Free: 2 (guard helper), so at most 3 checks of alice;
// 20 of 20 reached the check before the guard refused such a body.
func TestAttackShouldBindJSONPolyglot(t *testing.T) {
	gin.SetMode(gin.TestMode)
	g, _ := guard(t, false)
	e := gin.New()
	checks := 0
	e.POST("/login", ginlimit.Login(g), func(c *gin.Context) {
		var req struct {
			Username string `json:"username" binding:"required"`
			Password string `json:"password" binding:"required"`
		}
		if err := c.ShouldBindJSON(&req); err != nil {
			c.AbortWithStatus(http.StatusBadRequest)
			return
		}
		if req.Username == "alice" {
			checks++
			if req.Password == "secret" {
				c.Status(http.StatusOK)
				return
			}
		}
		c.AbortWithStatus(http.StatusUnauthorized)
	})
	for i := range 20 {
		body := fmt.Sprintf(`{"username":"alice","password":"guess%d","x":"&username=decoy%d"}`, i, i)
		r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.RemoteAddr = fmt.Sprintf("198.51.100.%d:1", i+1)
		e.ServeHTTP(httptest.NewRecorder(), r)
	}
	assert.LessOrEqual(t, checks, 3, "guesses at alice that reached the credential check")
}
