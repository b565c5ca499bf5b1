// Package stacks has no API. Its test runs floodgate's behaviour table
// through net/http, chi, gin and echo and requires identical answers from
// every router. It is a module of its own, like each adapter, so that the
// routers never enter the root module's go.mod.
package stacks
