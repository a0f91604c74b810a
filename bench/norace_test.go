//go:build !race

package bench

// Without the race detector, the correctness checks run on the benchmarks'
// full inputs.
const (
	listSizesMax  = 1000
	largeArgsSize = 100 << 10
)
