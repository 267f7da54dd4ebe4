// Package fuzzseed loads a fuzz target's packed seed corpus, so that the
// repository holds one file per target instead of hundreds of loose ones
// (klauspost/compress packs its corpora the same way).
//
// A packed corpus is testdata/fuzz/<Target>.zip beside the loose
// directory testdata/fuzz/<Target>/ that go test reads: one zip entry per
// seed, each a corpus file in go test's own encoding ("go test fuzz v1"
// and one Go literal per argument), named as the loose file was. Add
// decodes every entry and passes it to f.Add, so a plain `go test` runs
// every packed seed, as it runs the loose files; go test still reads the
// loose directory too, which is where `go test -fuzz` writes the crashers
// it finds.
//
// To pack a target's loose files (new crashers, once fixed) into its zip:
//
//	go run ./internal/fuzzseed/pack <package>/testdata/fuzz/<Target>
//
// which adds them to <Target>.zip (entries in name order, no timestamps:
// the same seeds give the same bytes) and removes them.
//
// A packed seed that fails is reported as <Target>/seed#N: the N-th call
// of f.Add in the target, the explicit ones first (call Add after them);
// entry N-k of the zip in name order, for k explicit seeds.
package fuzzseed

import (
	"archive/zip"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Add adds every seed of f's packed corpus, testdata/fuzz/<f.Name()>.zip
// (relative to the package directory go test runs in), with f.Add. A
// missing or undecodable corpus fails the test.
func Add(f *testing.F) {
	f.Helper()
	seeds, err := Read(filepath.Join("testdata", "fuzz", f.Name()+".zip"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		f.Add(s...)
	}
}

// Read returns the seeds of a packed corpus, in its entries' order (name
// order, as pack writes them).
func Read(path string) ([][]any, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("fuzzseed: %w", err)
	}
	defer zr.Close()
	seeds := make([][]any, 0, len(zr.File))
	for _, zf := range zr.File {
		r, err := zf.Open()
		if err != nil {
			return nil, fmt.Errorf("fuzzseed: %s: entry %s: %w", path, zf.Name, err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("fuzzseed: %s: entry %s: %w", path, zf.Name, err)
		}
		seed, err := Decode(data)
		if err != nil {
			return nil, fmt.Errorf("fuzzseed: %s: entry %s: %w", path, zf.Name, err)
		}
		seeds = append(seeds, seed)
	}
	return seeds, nil
}

// header opens every corpus file in go test's encoding.
const header = "go test fuzz v1"

// Decode decodes one corpus file in go test's encoding: the header line,
// then one line per argument, a conversion of a literal to the argument's
// type ([]byte("..."), string, bool, byte, rune, the integer and float
// types; a float may be given by its bits, math.Float64frombits(0x...)).
func Decode(data []byte) ([]any, error) {
	lines := strings.Split(string(data), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != header {
		return nil, fmt.Errorf("first line %q, want %q", firstLine(lines), header)
	}
	var vals []any
	for i, line := range lines[1:] {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		v, err := decodeValue(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+2, err)
		}
		vals = append(vals, v)
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("no values after the header")
	}
	return vals, nil
}

func firstLine(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}

// decodeValue decodes one argument line: T(literal).
func decodeValue(line string) (any, error) {
	expr, err := parser.ParseExpr(line)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", line, err)
	}
	call, ok := expr.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, fmt.Errorf("%q: want a conversion T(literal)", line)
	}
	arg := call.Args[0]
	switch fn := call.Fun.(type) {
	case *ast.ArrayType:
		if id, ok := fn.Elt.(*ast.Ident); ok && fn.Len == nil && (id.Name == "byte" || id.Name == "uint8") {
			s, err := stringLit(arg)
			return []byte(s), err
		}
	case *ast.SelectorExpr:
		return floatFromBits(fn, arg)
	case *ast.Ident:
		return decodeScalar(fn.Name, arg)
	}
	return nil, fmt.Errorf("%q: unsupported type", line)
}

// decodeScalar decodes name(arg) for a scalar type name.
func decodeScalar(name string, arg ast.Expr) (any, error) {
	switch name {
	case "string":
		return stringLit(arg)
	case "bool":
		id, ok := arg.(*ast.Ident)
		if !ok || (id.Name != "true" && id.Name != "false") {
			return nil, fmt.Errorf("bool: want true or false")
		}
		return id.Name == "true", nil
	case "float32", "float64":
		lit, neg, err := basicLit(arg)
		if err != nil {
			return nil, err
		}
		v, err := strconv.ParseFloat(lit.Value, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if neg {
			v = -v
		}
		if name == "float32" {
			return float32(v), nil
		}
		return v, nil
	}
	kind, ok := integers[name]
	if !ok {
		return nil, fmt.Errorf("unsupported type %s", name)
	}
	v, err := integerLit(arg, kind.signed)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	x, err := kind.make(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return x, nil
}

// integers are the integer types a corpus file may hold: whether signed,
// and the conversion from the literal's value (its 64 bits), which checks
// the range.
var integers = map[string]struct {
	signed bool
	make   func(v uint64) (any, error)
}{
	"int":    {true, func(v uint64) (any, error) { return int(int64(v)), nil }},
	"int8":   {true, func(v uint64) (any, error) { return fitS(v, 8, func(x int64) any { return int8(x) }) }},
	"int16":  {true, func(v uint64) (any, error) { return fitS(v, 16, func(x int64) any { return int16(x) }) }},
	"int32":  {true, func(v uint64) (any, error) { return fitS(v, 32, func(x int64) any { return int32(x) }) }},
	"rune":   {true, func(v uint64) (any, error) { return fitS(v, 32, func(x int64) any { return rune(x) }) }},
	"int64":  {true, func(v uint64) (any, error) { return int64(v), nil }},
	"uint":   {false, func(v uint64) (any, error) { return uint(v), nil }},
	"uint8":  {false, func(v uint64) (any, error) { return fitU(v, 8, func(x uint64) any { return uint8(x) }) }},
	"byte":   {false, func(v uint64) (any, error) { return fitU(v, 8, func(x uint64) any { return byte(x) }) }},
	"uint16": {false, func(v uint64) (any, error) { return fitU(v, 16, func(x uint64) any { return uint16(x) }) }},
	"uint32": {false, func(v uint64) (any, error) { return fitU(v, 32, func(x uint64) any { return uint32(x) }) }},
	"uint64": {false, func(v uint64) (any, error) { return v, nil }},
}

func fitS(v uint64, bits int, conv func(int64) any) (any, error) {
	x := int64(v)
	if lim := int64(1) << (bits - 1); x < -lim || x >= lim {
		return nil, fmt.Errorf("%d out of range", x)
	}
	return conv(x), nil
}

func fitU(v uint64, bits int, conv func(uint64) any) (any, error) {
	if v >= uint64(1)<<bits {
		return nil, fmt.Errorf("%d out of range", v)
	}
	return conv(v), nil
}

// integerLit returns the value of an integer or character literal,
// possibly negated (two's complement bits for signed types).
func integerLit(arg ast.Expr, signed bool) (uint64, error) {
	lit, neg, err := basicLit(arg)
	if err != nil {
		return 0, err
	}
	var v uint64
	switch lit.Kind {
	case token.CHAR:
		r, _, tail, err := strconv.UnquoteChar(lit.Value[1:len(lit.Value)-1], '\'')
		if err != nil || tail != "" {
			return 0, fmt.Errorf("character literal %s", lit.Value)
		}
		v = uint64(r)
	case token.INT:
		if v, err = strconv.ParseUint(lit.Value, 0, 64); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("literal %s is not an integer", lit.Value)
	}
	if neg {
		if !signed || v > 1<<63 {
			return 0, fmt.Errorf("-%d out of range", v)
		}
		v = -v
	}
	return v, nil
}

// basicLit returns a literal and whether it is negated (-lit).
func basicLit(arg ast.Expr) (*ast.BasicLit, bool, error) {
	neg := false
	if u, ok := arg.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		neg, arg = true, u.X
	}
	lit, ok := arg.(*ast.BasicLit)
	if !ok {
		return nil, false, fmt.Errorf("want a literal")
	}
	return lit, neg, nil
}

// stringLit returns the value of a string literal.
func stringLit(arg ast.Expr) (string, error) {
	lit, ok := arg.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", fmt.Errorf("want a string literal")
	}
	return strconv.Unquote(lit.Value)
}

// floatFromBits decodes math.Float64frombits(bits) or
// math.Float32frombits(bits), which go test writes for NaNs.
func floatFromBits(fn *ast.SelectorExpr, arg ast.Expr) (any, error) {
	pkg, ok := fn.X.(*ast.Ident)
	if !ok || pkg.Name != "math" {
		return nil, fmt.Errorf("unsupported call")
	}
	v, err := integerLit(arg, false)
	if err != nil {
		return nil, err
	}
	switch fn.Sel.Name {
	case "Float64frombits":
		return math.Float64frombits(v), nil
	case "Float32frombits":
		if v > math.MaxUint32 {
			return nil, fmt.Errorf("float32 bits %#x out of range", v)
		}
		return math.Float32frombits(uint32(v)), nil
	}
	return nil, fmt.Errorf("unsupported call math.%s", fn.Sel.Name)
}
