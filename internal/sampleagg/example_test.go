package sampleagg_test

import (
	"fmt"

	"github.com/authppr/authppr/internal/sampleagg"
)

// Five retrieved passages, best first, with their extracted answers: 9
// samples of 2 passages, weights 0.8^(i-1), each sample answering with its
// best passage's answer.
func Example() {
	answers := []string{"Paris", "Paris", "Lyon", "Paris", "Lyon"}
	w, _ := sampleagg.GeometricWeights(len(answers), 0.8)
	agg, err := sampleagg.SampleAggregate(sampleagg.SampleOptions{Weights: w, T: 9, M: 2, Seed: 1},
		func(sample []int) (string, error) { return answers[sample[0]], nil })
	if err != nil {
		panic(err)
	}
	fmt.Println("aggregate answer:", agg.Answer)
	// Output:
	// aggregate answer: Paris
}
