package echolimit

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// withValues makes one allocation, the request copy and its context
// together, as Limit's documentation says: it depends on WithContext being
// inlined, which a change of the compiler or of withValues can undo.
func TestWithValuesAllocatesOnce(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	c := echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/", nil), httptest.NewRecorder())
	c.Set("user", "alice")
	var r *http.Request
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { r = withValues(c) }))
	assert.Equal(t, "alice", r.Context().Value("user"))
}
