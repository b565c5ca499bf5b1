// Package keyrequest helps the router adapters that give key functions a
// router's per-request values (gin's and echo's c.Set) through a shallow
// copy of the request whose context holds them: nothing a key function
// parses from the copy is lost to the handler.
package keyrequest

import "net/http"

// Done keeps on r what a key function parsed on seen, a copy of r made by
// r.WithContext for one decision (Form, PostForm, MultipartForm): the copy
// shares r's body, consumed for both, so the handler then finds the form on
// r as if the key function had parsed r itself. It does nothing when seen
// is r.
func Done(r, seen *http.Request) {
	if seen == r {
		return
	}
	if r.Form == nil {
		r.Form = seen.Form
	}
	if r.PostForm == nil {
		r.PostForm = seen.PostForm
	}
	if r.MultipartForm == nil {
		r.MultipartForm = seen.MultipartForm
	}
}
