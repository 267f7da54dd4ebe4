package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSolveRefusesWeightsOutOfRange is issue 16's reproduction: finite
// weights whose sum overflows (the solve answered 0.15 with a bound of 0)
// and a subnormal weight (the solve failed with an infinite bound) are
// refused at the line that holds them, naming the edge and the range.
func TestSolveRefusesWeightsOutOfRange(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"a b 1e308\na c 1e308\n", []string{"g.txt:1: edge 0 (a -> b): weight 1e+308 above", "2^988"}},
		{"a b 1e-320\nb a 1\n", []string{"g.txt:1: edge 0 (a -> b): weight 1e-320 below", "2^-1022"}},
	} {
		graph := writeFile(t, "g.txt", c.text)
		for _, extra := range [][]string{nil, {"--undirected"}, {"--certify"}} {
			args := append([]string{"solve", "--graph", graph, "--seeds", "a"}, extra...)
			code, out, errOut := runCLI(args...)
			require.Equal(t, 1, code, "%v: %s", args, out)
			for _, w := range c.want {
				require.Contains(t, errOut, w, "%v", args)
			}
		}
	}
}
