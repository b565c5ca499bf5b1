package depcheck_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// routers are the modules the adapters exist for: none may enter the root
// module's graph. A new adapter's router is added here
// (TestAdaptersRequireOnlyKnownRouters fails until it is).
var routers = []string{
	"github.com/gin-gonic/gin",
	"github.com/go-chi/chi/v5",
	"github.com/labstack/echo/v4",
}

// exporterLibraries prefix the module paths of the metric and trace
// libraries the exporter modules (observe/promobserve, observe/otelobserve)
// exist for: none may enter the root module's graph, and only exporter
// modules may require them.
var exporterLibraries = []string{"github.com/prometheus/", "go.opentelemetry.io/"}

func exporterLibrary(path string) bool {
	return slices.ContainsFunc(exporterLibraries, func(p string) bool { return strings.HasPrefix(path, p) })
}

// outsideWorkspace are the modules go.work leaves out: the benchmarks
// require floodgate's peers, which must never decide the versions the
// library is tested with. benchmarks/go.work makes them a workspace of
// their own.
var outsideWorkspace = []string{"benchmarks"}

// repoModules returns the directories (slash-separated, relative to the
// root, "." for the root) of every go.mod in the repository.
func repoModules(t *testing.T) []string {
	t.Helper()
	root := repoRoot(t)
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && name == "go.mod" {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	sort.Strings(dirs)
	return dirs
}

// workspaceUses returns the directories go.work at dir uses, cleaned
// ("." for dir itself).
func workspaceUses(t *testing.T, dir string) []string {
	t.Helper()
	out := mustGo(t, dir, repo, "work", "edit", "-json", filepath.Join(dir, "go.work"))
	var w struct{ Use []struct{ DiskPath string } }
	require.NoError(t, json.Unmarshal([]byte(out), &w), out)
	var uses []string
	for _, u := range w.Use {
		uses = append(uses, filepath.ToSlash(filepath.Clean(u.DiskPath)))
	}
	sort.Strings(uses)
	return uses
}

// workspaceModules returns the directories go.work uses.
func workspaceModules(t *testing.T) []string {
	t.Helper()
	return workspaceUses(t, repoRoot(t))
}

// The single test command covers every module: go.work uses every module
// of the repository but the benchmarks, which have a workspace of their own
// (so that the go command works inside benchmarks/ without reaching the
// root's go.work).
func TestWorkspaceListsEveryModule(t *testing.T) {
	t.Parallel()
	var want []string
	for _, d := range repoModules(t) {
		if !slices.Contains(outsideWorkspace, d) {
			want = append(want, d)
		}
	}
	assert.Equal(t, want, workspaceModules(t), "go.work must use every module but %v", outsideWorkspace)
	for _, d := range outsideWorkspace {
		assert.Equal(t, []string{"."}, workspaceUses(t, filepath.Join(repoRoot(t), filepath.FromSlash(d))),
			"%s/go.work must use only its own module", d)
	}
}

// The workspace tests every module with the dependency versions its own
// users get: for each module, every dependency the module selects alone
// (GOWORK=off) that provides a package the module builds or tests is
// selected at the same version in the workspace. Otherwise another
// module's requirement raises a version for the tests only, and the
// module's users run a version it was never tested with. (Modules that are
// only in the graph, through another's go.mod, provide no code to run:
// a workspace module may raise them, as client_golang raises
// klauspost/compress past what gin's go.mod names.)
func TestWorkspaceVersionsMatchModules(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	ws := modules(t, root, workspace)
	uses := workspaceModules(t)
	ours := map[string]bool{}
	for _, d := range uses {
		ours[readModFile(t, filepath.Join(root, filepath.FromSlash(d))).Module.Path] = true
	}
	for _, d := range uses {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			compared := 0
			for path, v := range packageModules(t, filepath.Join(root, filepath.FromSlash(d))) {
				if ours[path] {
					continue
				}
				compared++
				assert.Equal(t, v, ws[path], "%s: the workspace tests %s at %s, the module's users get %s "+
					"(raise the module's requirement: go work sync, then go mod tidy in %s)", d, path, ws[path], v, d)
			}
			assert.NotZero(t, compared, "%s: no package from another module (every test uses testify)", d)
		})
	}
}

// packageModules returns the modules providing the packages the module in
// dir builds or tests, alone (GOWORK=off), with the version each is
// selected at: one go command.
func packageModules(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := mustGo(t, dir, repo, "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}} {{.Version}}{{end}}", "./...")
	used := map[string]string{}
	for line := range strings.Lines(out) {
		if path, version, _ := strings.Cut(strings.TrimSpace(line), " "); path != "" {
			used[path] = version
		}
	}
	return used
}

// The root module's graph holds no router and no exporter library: not
// required, not reachable.
func TestRootRequiresNoRouter(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	got := modules(t, root, repo)
	for _, r := range routers {
		if v, ok := got[r]; ok {
			t.Errorf("the root module's graph holds %s %s", r, v)
		}
	}
	for path, v := range got {
		if exporterLibrary(path) {
			t.Errorf("the root module's graph holds the exporter library %s %s", path, v)
		}
	}
	for _, r := range readModFile(t, root).Require {
		if slices.Contains(routers, r.Path) || exporterLibrary(r.Path) {
			t.Errorf("the root go.mod requires %s %s", r.Path, r.Version)
		}
	}
}

// Every adapter or router example module requires only floodgate's
// modules, what the root module requires and the routers listed in
// routers (an exporter module under observe/, and the exporters' example
// examples/observe, also the exporter libraries), so that the list the
// leak tests check stays complete.
func TestAdaptersRequireOnlyKnownRouters(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	allowed := map[string]bool{}
	for _, r := range readModFile(t, root).Require {
		allowed[r.Path] = true
	}
	for _, r := range routers {
		allowed[r] = true
	}
	for _, d := range workspaceModules(t) {
		if d == "." {
			continue
		}
		f := readModFile(t, filepath.Join(root, filepath.FromSlash(d)))
		for _, r := range f.Require {
			if r.Indirect || r.Path == rootPath || strings.HasPrefix(r.Path, rootPath+"/") {
				continue
			}
			if (strings.HasPrefix(d, "observe/") || d == "examples/observe") && exporterLibrary(r.Path) {
				continue
			}
			assert.True(t, allowed[r.Path], "%s requires %s: add it to routers if it is a router", d, r.Path)
		}
	}
}

// A nested module's replace directives point at this repository, so that
// it builds from a checkout; consumers ignore them. Each module requiring a
// floodgate module replaces it, or it would be fetched from the proxy.
func TestNestedModulesReplaceFloodgate(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, d := range repoModules(t) {
		if d == "." {
			continue
		}
		dir := filepath.Join(root, filepath.FromSlash(d))
		out := mustGo(t, dir, repo, "mod", "edit", "-json")
		var f struct {
			Require []struct{ Path, Version string }
			Replace []struct {
				Old struct{ Path string }
				New struct{ Path, Version string }
			}
		}
		require.NoError(t, json.Unmarshal([]byte(out), &f), out)
		replaced := map[string]string{}
		for _, r := range f.Replace {
			replaced[r.Old.Path] = r.New.Path
		}
		for _, r := range f.Require {
			if r.Path != rootPath && !strings.HasPrefix(r.Path, rootPath+"/") {
				continue
			}
			to, ok := replaced[r.Path]
			if !assert.True(t, ok, "%s requires %s without replacing it", d, r.Path) {
				continue
			}
			target := filepath.Join(dir, filepath.FromSlash(to))
			rel := strings.TrimPrefix(strings.TrimPrefix(r.Path, rootPath), "/")
			assert.Equal(t, filepath.Join(root, filepath.FromSlash(rel)), target, "%s: %s replaced by %s", d, r.Path, to)
			_, err := os.Stat(filepath.Join(target, "go.mod"))
			assert.NoError(t, err, "%s: %s replaced by %s", d, r.Path, to)
		}
	}
}
