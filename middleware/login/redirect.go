package login

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/floodgate-go/floodgate/internal/routepath"
)

// ErrRedirectNotJudged is reported to Options.OnError when a login handler
// answered with a redirect (3xx) that the default Options.Succeeded cannot
// judge because Options.SuccessRedirect is nil: the attempt counts as
// failed. A redirect's status says nothing of the outcome (a wrong password
// is as often redirected to "/login/failed" or "/?error=bad" as a right one
// to "/home"), and the guard never guesses a success: give
// Options.SuccessRedirect, which tells the successes by their Location.
var ErrRedirectNotJudged = errors.New("login: the handler answered with a redirect and Options.SuccessRedirect is nil; the attempt counts as failed")

// ErrRedirectBackToLogin is reported to Options.OnError when
// Options.SuccessRedirect accepted a redirect back to the login page: the
// attempt counts as failed all the same, for such a redirect is how a
// wrong password is answered ("/login?error=1", or "/login" with a
// message in the session). A login whose successes land on its own page
// ("/" posted to "/", or a page that shows the account once logged in)
// has every success counted as a failure (lockouts after 5 logins an hour
// by default): redirect the successes elsewhere, or report the outcomes
// with [Attempt.Succeeded] and [Attempt.Failed].
var ErrRedirectBackToLogin = errors.New("login: Options.SuccessRedirect accepted a redirect back to the login page, which is never a success; the attempt counts as failed")

// redirectSucceeded reports whether a response of status with headers h,
// which Options.Succeeded (or the default) took for a success, is one: any
// response but a redirect is. With the default Options.Succeeded, a
// redirect is a success only when Options.SuccessRedirect says so of its
// Location, and never one without a usable Location, one back to the
// login page (a's path as the handler saw it, or as the client sent it),
// or one answering a request whose path does not read back as itself from
// a Location (see readsBack): one back to the login page that
// SuccessRedirect accepts is reported with [ErrRedirectBackToLogin].
// Without SuccessRedirect it is a failure, and one that may have been a
// success (not back to the login page) is reported with
// [ErrRedirectNotJudged]. A custom Options.Succeeded judges redirects by
// their status alone, unless SuccessRedirect is given too.
func (a *Attempt) redirectSucceeded(h http.Header, status int) bool {
	o := &a.g.opts
	if status < 300 || status > 399 || (o.SuccessRedirect == nil && o.Succeeded != nil) {
		return true
	}
	to, ok := location(h, a.path)
	switch {
	case !readsBack(a.path):
		return false // a Location naming it cannot be read
	case !ok:
		return false // a failure for sure, judged or not
	case back(to, a.path) || a.sent != "" && back(to, a.sent):
		// A failure for sure, judged or not; a judge taking it for a
		// success would otherwise never learn why its successes fail.
		if o.SuccessRedirect != nil && o.SuccessRedirect(to) {
			a.g.report(a.r, ErrRedirectBackToLogin)
		}
		return false
	case o.SuccessRedirect == nil:
		a.g.report(a.r, ErrRedirectNotJudged)
		return false
	}
	return o.SuccessRedirect(to)
}

// location returns h's Location resolved against path, the login
// request's own; false when there is none or it does not parse.
func location(h http.Header, path string) (*url.URL, bool) {
	loc := h.Get("Location")
	if loc == "" {
		return nil, false
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil, false
	}
	return (&url.URL{Path: path}).ResolveReference(u), true
}

// readsBack reports whether path, a request's decoded path, reads back as
// itself from a Location it is written into as it is, as handlers write
// r.URL.Path back (http.Redirect(w, r, r.URL.Path+"?error=1", 303)):
// whether url.Parse gives it as a path alone, the same. A '#' or a '?' in
// it ("/home#/login", from a "home%23" in a "/{tenant}/login" route)
// starts a fragment or a query there, a leading "//" a host, a '%' an
// escape: the redirect back to such a login page reads as one to "/home",
// which SuccessRedirect may take for a success. "" (unknown) reads back.
func readsBack(path string) bool {
	u, err := url.Parse(path)
	return err == nil && u.Scheme == "" && u.Opaque == "" && u.User == nil && u.Host == "" &&
		!u.ForceQuery && u.RawQuery == "" && u.Fragment == "" && u.Path == path
}

// back reports whether to leads back to path, the login request's own (in
// any case, cleaned, with or without a trailing slash, whatever its query);
// path "" (unknown) matches nothing.
func back(to *url.URL, path string) bool {
	if path == "" {
		return false
	}
	return strings.EqualFold(trimSlash(routepath.Clean(to.Path)), trimSlash(routepath.Clean(path)))
}

func trimSlash(p string) string {
	if len(p) > 1 {
		return strings.TrimSuffix(p, "/")
	}
	return p
}
