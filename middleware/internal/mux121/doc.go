// Package mux121 holds only tests: the middleware in front of a ServeMux
// in its Go 1.21 mode (GODEBUG httpmuxgo121=1).
package mux121
