package depcheck_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// rootPath is the root module's path.
const rootPath = "github.com/floodgate-go/floodgate"

// zeroVersion is the version a module required only through a replace
// directive is written with.
const zeroVersion = "v0.0.0-00010101000000-000000000000"

// fetchEnv, when "1", lets the throwaway modules download what the module
// cache lacks (through GOPROXY and GOSUMDB as configured) instead of
// working offline.
const fetchEnv = "FLOODGATE_DEPCHECK_FETCH"

// repoRoot returns the repository's root directory (two levels above this
// package), checking that it holds the root module.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	require.Contains(t, string(gomod), "module "+rootPath+"\n", "%s is not floodgate's root", dir)
	return dir
}

// goBinary returns the go command: the one `go test` put first on PATH.
func goBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("go")
	if err != nil {
		unavailable(t, "no go command on PATH: %v", err)
	}
	return bin
}

// unavailable skips the test when a tool or module it needs is missing,
// except under CI=true, where it fails: CI must never pass by skipping.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// mode says how the go command sees a module.
type mode int

const (
	// repo: a module of this repository, alone (GOWORK=off), read only
	// (-mod=readonly: a test never rewrites the repository).
	repo mode = iota
	// workspace: the repository's go.work.
	workspace
	// user: a throwaway module (GOWORK=off, -mod=mod), offline (GOPROXY=off,
	// GOSUMDB=off: the module cache as the other tests left it) unless
	// fetchEnv is set.
	user
)

// goRun runs the go command in dir and returns its standard output, which
// callers parse, and its standard error apart: the go command writes its
// progress there ("go: downloading ..." on a fresh module cache).
func goRun(t *testing.T, dir string, m mode, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	// A generous bound on one go command (a build of a throwaway module
	// on a loaded machine takes seconds): one stuck on a lock or the
	// network is killed and fails the test with its output.
	ctx, cancel := context.WithTimeout(t.Context(), goTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBinary(t), args...)
	cmd.WaitDelay = 10 * time.Second // its children holding the output open
	cmd.Dir = dir
	env := append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=-mod=readonly")
	switch m {
	case workspace:
		env = append(env, "GOWORK="+filepath.Join(repoRoot(t), "go.work"))
	case user:
		env = append(env, "GOFLAGS=-mod=mod")
		if os.Getenv(fetchEnv) != "1" {
			env = append(env, "GOPROXY=off", "GOSUMDB=off")
		}
	}
	cmd.Env = env // of duplicate keys, the last counts
	var outBuf, errBuf strings.Builder
	cmd.Stdout, cmd.Stderr = &outBuf, &errBuf
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatalf("go %s in %s did not end within %v: killed\n%s%s", strings.Join(args, " "), dir, goTimeout, &outBuf, &errBuf)
	}
	return outBuf.String(), errBuf.String(), err
}

// goTimeout bounds one go command.
const goTimeout = 5 * time.Minute

// mustGo is goRun failing the test on an error, or calling unavailable when
// the error is a module missing from an offline module cache.
func mustGo(t *testing.T, dir string, m mode, args ...string) string {
	t.Helper()
	out, stderr, err := goRunOnce(t, dir, m, args...)
	if err != nil && strings.Contains(stderr, "GOPROXY=off") {
		unavailable(t, "go %s: a module is missing from the module cache; run "+
			"%s=1 go test ./internal/depcheck once with network access (.ci/run does):\n%s",
			strings.Join(args, " "), fetchEnv, stderr)
	}
	require.NoError(t, err, "go %s in %s:\n%s%s", strings.Join(args, " "), dir, out, stderr)
	return out
}

// goRuns memoizes the go commands of the repo and workspace modes, keyed
// by their mode, directory and arguments: they read the repository, which
// no test changes, so that one answer serves every test asking (the same
// go.mod was read three times, go.work five, each module's graph twice:
// 71 go commands, 39 distinct).
var goRuns sync.Map // goKey → *goResult

// goKey is a go command of goRuns.
type goKey struct {
	m    mode
	dir  string
	args string
}

// goResult is one go command's answer, once it ran.
type goResult struct {
	once           sync.Once
	ran            bool // false when the test running it failed before it returned
	stdout, stderr string
	err            error
}

// goRunOnce is goRun, memoized in goRuns unless m is user: a throwaway
// module is written (-mod=mod) and is its test's alone. A test waiting
// for another's run of the same command fails if that run did not return
// (the other test failed within it).
func goRunOnce(t *testing.T, dir string, m mode, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	if m == user {
		return goRun(t, dir, m, args...)
	}
	v, _ := goRuns.LoadOrStore(goKey{m, dir, strings.Join(args, "\x00")}, &goResult{})
	r := v.(*goResult)
	r.once.Do(func() {
		r.stdout, r.stderr, r.err = goRun(t, dir, m, args...)
		r.ran = true
	})
	if !r.ran {
		t.Fatalf("go %s in %s: the test running it failed before it ended", strings.Join(args, " "), dir)
	}
	return r.stdout, r.stderr, r.err
}

// userModule writes a throwaway module in a temporary directory: a go.mod
// requiring reqs (path → version) and replacing each path in replaces with
// its directory in this repository (relative to the root), and main.go.
func userModule(t *testing.T, reqs map[string]string, replaces []string, main string) string {
	t.Helper()
	root := repoRoot(t)
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("module example.com/app\n\ngo 1.26.0\n\n")
	for p, v := range reqs {
		b.WriteString("require " + p + " " + v + "\n")
	}
	for _, p := range replaces {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, rootPath), "/")
		b.WriteString("replace " + p + " => " + filepath.Join(root, filepath.FromSlash(rel)) + "\n")
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(b.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644))
	return dir
}

// modules returns the `go list -m all` of the module in dir: path →
// version ("" for a workspace module). The list is the module graph, built
// from go.mod files alone; -e keeps a module whose .info the offline cache
// lacks (its time is unknown, its version is not) instead of failing.
func modules(t *testing.T, dir string, m mode) map[string]string {
	t.Helper()
	out := mustGo(t, dir, m, "list", "-m", "-e", "-json", "all")
	got := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var mod struct{ Path, Version string }
		require.NoError(t, dec.Decode(&mod), out)
		got[mod.Path] = mod.Version
	}
	return got
}

// moduleFile is what `go mod edit -json` says of a go.mod.
type moduleFile struct {
	Module  struct{ Path string }
	Require []struct {
		Path     string
		Version  string
		Indirect bool
	}
}

// readModFile parses dir's go.mod.
func readModFile(t *testing.T, dir string) moduleFile {
	t.Helper()
	var f moduleFile
	out := mustGo(t, dir, repo, "mod", "edit", "-json")
	require.NoError(t, json.Unmarshal([]byte(out), &f), out)
	return f
}
