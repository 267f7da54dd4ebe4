// Command pack packs fuzz corpus directories into their zips (see package
// internal/fuzzseed):
//
//	go run ./internal/fuzzseed/pack <package>/testdata/fuzz/<Target>...
package main

import (
	"fmt"
	"os"

	"github.com/authppr/authppr/internal/fuzzseed"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/fuzzseed/pack <package>/testdata/fuzz/<Target>...")
		os.Exit(2)
	}
	for _, dir := range os.Args[1:] {
		n, err := fuzzseed.Pack(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%s: packed %d files into %s.zip\n", dir, n, dir)
	}
}
