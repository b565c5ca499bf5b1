// Package apicount counts the exported identifiers of the packages of a
// source tree: the measure of floodgate's public surface quoted in issues
// and in the CHANGELOG. It reads the source (go/parser), so it also counts
// an old checkout of the repository without building it.
//
// What counts, per package: each exported top-level name (func, type, var,
// const: every name of a spec), each exported method whose receiver is an
// exported type, each exported method of an exported interface type, and
// each exported field (embedded ones by their type's name) of an exported
// struct type, nested struct types included. Packages that do not count:
// main packages, packages under an internal/ or testdata/ directory, and
// _test.go files. Build constraints are ignored: every non-test .go file of
// a directory is read.
package apicount

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Count is one package's exported identifiers.
type Count struct {
	Dir     string // relative to the tree's root, "." for the root
	Package string
	Names   int // top-level names
	Methods int // methods of exported types, interface methods included
	Fields  int // fields of exported struct types
}

// Total is the package's count.
func (c Count) Total() int { return c.Names + c.Methods + c.Fields }

// Tree counts every package of the tree rooted at root, sorted by
// directory. Nested modules are packages of the tree like any other.
func Tree(root string) ([]Count, error) {
	var out []Count
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "internal" || name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		c, ok, err := dir(path)
		if err != nil || !ok {
			return err
		}
		c.Dir, _ = filepath.Rel(root, path)
		out = append(out, c)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, err
}

// dir counts the package in path; ok is false when there is none to count.
func dir(path string) (c Count, ok bool, err error) {
	ents, err := os.ReadDir(path)
	if err != nil {
		return c, false, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(path, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return c, false, err
		}
		files = append(files, f)
	}
	if len(files) == 0 || files[0].Name.Name == "main" {
		return c, false, nil
	}
	c.Package = files[0].Name.Name
	exportedTypes := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					if ts := s.(*ast.TypeSpec); ts.Name.IsExported() {
						exportedTypes[ts.Name.Name] = true
					}
				}
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					c.Names++
				} else if exportedTypes[recvType(d.Recv.List[0].Type)] {
					c.Methods++
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								c.Names++
							}
						}
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							c.Names++
							c.members(s.Type)
						}
					}
				}
			}
		}
	}
	return c, true, nil
}

// members counts the exported fields and interface methods of an exported
// type's definition.
func (c *Count) members(t ast.Expr) {
	switch t := t.(type) {
	case *ast.StructType:
		for _, f := range t.Fields.List {
			if len(f.Names) == 0 {
				if ast.IsExported(recvType(f.Type)) {
					c.Fields++
				}
			}
			for _, n := range f.Names {
				if n.IsExported() {
					c.Fields++
				}
			}
			c.members(f.Type)
		}
	case *ast.InterfaceType:
		for _, m := range t.Methods.List {
			for _, n := range m.Names {
				if n.IsExported() {
					c.Methods++
				}
			}
		}
	}
}

// recvType returns the name of a receiver's or embedded field's type.
func recvType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.SelectorExpr:
			return t.Sel.Name
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}
