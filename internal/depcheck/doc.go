// Package depcheck has no API. Its tests check the repository's module
// layout as a user of floodgate meets it:
//
//   - a program that imports only net/http-level packages (core, keyfunc,
//     headers, middleware; middleware/login and core/redisstore) gets no
//     router (gin, echo, chi) and nothing only a router brings in its module
//     graph, and a router version it pins is not raised;
//   - an adapter builds from a user's module without the repository's
//     go.work;
//   - go.work lists every module of the repository but the benchmarks, and
//     the versions the workspace tests with are the versions each module
//     declares.
//
// The user programs are throwaway modules in temporary directories pointed
// at this repository with replace directives, built with GOWORK=off and
// GOPROXY=off from the module cache the rest of the tests filled. One of
// them pins an echo release nothing else in the repository uses: run
// FLOODGATE_DEPCHECK_FETCH=1 go test -run TestRouterPinKept ./internal/depcheck
// once with network access (.ci/run does) to put it in the module cache.
// Under CI=true a module missing from the cache is a failure, never a skip.
package depcheck
