package keyrequest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/internal/keyrequest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type key struct{}

// A form a key function parses on the copy is the handler's too: the body
// is read once, for both.
func TestDoneKeepsTheParsedForm(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/login?next=/home", strings.NewReader("user=alice"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	seen := r.WithContext(context.WithValue(r.Context(), key{}, "v"))
	require.NotSame(t, r, seen)
	assert.Equal(t, "v", seen.Context().Value(key{}))
	assert.Nil(t, r.Context().Value(key{}))
	assert.Equal(t, "alice", seen.FormValue("user"))
	keyrequest.Done(r, seen)
	assert.Equal(t, "alice", r.FormValue("user"))
	assert.Equal(t, "alice", r.PostFormValue("user"))
	assert.Equal(t, "/home", r.FormValue("next"))
}

// A form the handler's request already has is kept; Done of the request
// itself changes nothing.
func TestDoneKeepsTheRequestsOwnForm(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/?a=1", nil)
	require.NoError(t, r.ParseForm())
	seen := r.WithContext(context.Background())
	seen.Form = map[string][]string{"a": {"2"}}
	keyrequest.Done(r, seen)
	assert.Equal(t, "1", r.FormValue("a"))
	keyrequest.Done(r, r)
	assert.Equal(t, "1", r.FormValue("a"))
}
