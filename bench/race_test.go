//go:build race

package bench

// Under the race detector, the heaviest correctness checks run on smaller
// inputs; cmd/benchtable checks every contender on the full ones before
// measuring it.
const (
	listSizesMax  = 100
	largeArgsSize = 20 << 10
)
