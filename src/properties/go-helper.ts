// The Go program behind go-syntax.ts, built with the project's own go: Go's
// parser is the one that knows the project's syntax. For pairs of sources it
// prints whether they parse to the same tree, positions, comments and
// formatting dropped and directive comments kept where they sit; for single
// sources, the package name and every top-level name.
export const GO_HELPER = String.raw`
// Prints, for pairs of Go sources, whether they parse to the same tree
// (positions, comments and formatting dropped, directive comments kept
// where they sit), and for single sources their top-level names.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
)

var (
	posType     = reflect.TypeOf(token.NoPos)
	groupType   = reflect.TypeOf((*ast.CommentGroup)(nil))
	groupsType  = reflect.TypeOf([]*ast.CommentGroup(nil))
	scopeType   = reflect.TypeOf((*ast.Scope)(nil))
	objectType  = reflect.TypeOf((*ast.Object)(nil))
	basicLitPtr = reflect.TypeOf((*ast.BasicLit)(nil))
)

func parse(src []byte) (*token.FileSet, *ast.File, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "source.go", src, parser.ParseComments|parser.SkipObjectResolution)
	return fset, f, err
}

// A literal by its value: 0x10 and 16, a quoted and a raw string are one value.
func literal(l *ast.BasicLit) string {
	switch l.Kind {
	case token.STRING, token.CHAR:
		if s, err := strconv.Unquote(l.Value); err == nil {
			return l.Kind.String() + ":" + strconv.Quote(s)
		}
	case token.INT, token.FLOAT, token.IMAG:
		if v := constant.MakeFromLiteral(l.Value, l.Kind, 0); v.Kind() != constant.Unknown {
			return l.Kind.String() + ":" + v.ExactString()
		}
	}
	return l.Kind.String() + ":" + l.Value
}

// flat writes the tree without positions, comments and resolved objects.
// File.Imports and File.Unresolved repeat what the declarations hold.
func flat(v reflect.Value, w *bytes.Buffer) {
	switch v.Kind() {
	case reflect.Ptr, reflect.Interface:
		if v.IsNil() {
			w.WriteString("nil;")
			return
		}
		if v.Type() == basicLitPtr {
			w.WriteString(literal(v.Interface().(*ast.BasicLit)) + ";")
			return
		}
		flat(v.Elem(), w)
	case reflect.Struct:
		t := v.Type()
		w.WriteString(t.Name() + "{")
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			switch {
			case f.Type == posType, f.Type == groupType, f.Type == groupsType, f.Type == scopeType, f.Type == objectType:
				continue
			case t == reflect.TypeOf(ast.File{}) && (f.Name == "Imports" || f.Name == "Unresolved"):
				continue
			}
			w.WriteString(f.Name + ":")
			flat(v.Field(i), w)
		}
		w.WriteString("}")
	case reflect.Slice:
		fmt.Fprintf(w, "[%d:", v.Len())
		for i := 0; i < v.Len(); i++ {
			flat(v.Index(i), w)
		}
		w.WriteString("]")
	default:
		fmt.Fprintf(w, "%v;", v.Interface())
	}
}

// Comments the go tool, the compiler or cgo act on.
func directive(text string) bool {
	for _, p := range []string{"//go:", "//line ", "/*line ", "//export ", "//extern ", "//sys "} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(text, "//")), "+build")
}

// Each directive, and the cgo preamble, with the number of nodes that start
// before it: the same place on both sides whatever the layout.
func directives(f *ast.File) []string {
	var starts []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		if n != nil {
			starts = append(starts, n.Pos())
		}
		return true
	})
	at := func(p token.Pos) int {
		n := 0
		for _, s := range starts {
			if s < p {
				n++
			}
		}
		return n
	}
	var out []string
	for _, g := range f.Comments {
		for _, c := range g.List {
			if directive(c.Text) {
				out = append(out, fmt.Sprintf("%s @%d", strings.TrimSpace(c.Text), at(c.Pos())))
			}
		}
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		for _, s := range g.Specs {
			spec := s.(*ast.ImportSpec)
			if spec.Path.Value != "\"C\"" {
				continue
			}
			doc := spec.Doc
			if doc == nil && len(g.Specs) == 1 {
				doc = g.Doc
			}
			if doc != nil {
				out = append(out, "cgo preamble: "+strings.Join(strings.Fields(doc.Text()), " "))
			}
		}
	}
	return out
}

func compare(old, new []byte) string {
	_, a, err := parse(old)
	if err != nil {
		return "the base side does not parse: " + err.Error()
	}
	_, b, err := parse(new)
	if err != nil {
		return "does not parse: " + err.Error()
	}
	var x, y bytes.Buffer
	flat(reflect.ValueOf(a), &x)
	flat(reflect.ValueOf(b), &y)
	if !bytes.Equal(x.Bytes(), y.Bytes()) {
		return "the syntax tree differs"
	}
	da, db := directives(a), directives(b)
	for i := 0; i < len(da) || i < len(db); i++ {
		if i >= len(da) || i >= len(db) || da[i] != db[i] {
			d := ""
			if i < len(da) {
				d = da[i]
			} else {
				d = db[i]
			}
			if i < len(db) && i < len(da) && strings.HasPrefix(da[i], "cgo preamble") {
				d = "the cgo preamble above import \"C\""
			} else if j := strings.LastIndex(d, " @"); j > 0 {
				d = d[:j]
			}
			return "a comment the go tool acts on is added, removed, changed or moved: " + d
		}
	}
	return "="
}

// The package's name, then every top-level name: funcs, types, vars, consts, and methods as Type.Method.
func names(src []byte) string {
	_, f, err := parse(src)
	if err != nil {
		return "!" + err.Error()
	}
	out := []string{f.Name.Name}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) == 1 {
				out = append(out, receiver(d.Recv.List[0].Type)+"."+d.Name.Name)
			} else {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out = append(out, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return strings.Join(out, " ")
}

func receiver(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiver(e.X)
	case *ast.IndexExpr:
		return receiver(e.X)
	case *ast.IndexListExpr:
		return receiver(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}

// Input: a header line (compare or names, then each source's length),
// then the sources back to back. Output: one line per pair or source.
func main() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		os.Exit(2)
	}
	cut := bytes.IndexByte(data, '\n')
	if cut < 0 {
		os.Exit(2)
	}
	head := strings.Fields(string(data[:cut]))
	var srcs [][]byte
	at := cut + 1
	for _, h := range head[1:] {
		n, err := strconv.Atoi(h)
		if err != nil || at+n > len(data) {
			os.Exit(2)
		}
		srcs = append(srcs, data[at:at+n])
		at += n
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	line := func(s string) { w.WriteString(strings.Join(strings.Fields(s), " ") + "\n") }
	switch head[0] {
	case "compare":
		for i := 0; i+1 < len(srcs); i += 2 {
			line(compare(srcs[i], srcs[i+1]))
		}
	case "names":
		for _, s := range srcs {
			line(names(s))
		}
	default:
		os.Exit(2)
	}
}
`;
