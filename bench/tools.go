package bench

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The tools every contender serves.
const (
	// ToolAdd adds two integers: AddIn -> SumOut.
	ToolAdd = "add"
	// ToolSum adds a list of integers: SumIn -> SumOut. It is the tool of
	// the large-arguments scenario.
	ToolSum = "sum"
	// ToolWait blocks until its Gate opens: WaitIn -> SumOut{0}. It is the
	// tool of the in-flight memory scenario.
	ToolWait = "wait"
)

// AddIn is the input of ToolAdd.
type AddIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

// SumIn is the input of ToolSum.
type SumIn struct {
	Values []int `json:"values"`
}

// WaitIn is the input of ToolWait: no arguments.
type WaitIn struct{}

// SumOut is the output of every tool: {"sum": N}.
type SumOut struct {
	Sum int `json:"sum"`
}

// add, sum and wait are the tool bodies every contender calls, so the work
// inside the tool is the same for all of them.
func add(in AddIn) SumOut { return SumOut{Sum: in.A + in.B} }

func sum(in SumIn) SumOut {
	s := 0
	for _, v := range in.Values {
		s += v
	}
	return SumOut{Sum: s}
}

// Gate holds ToolWait calls until Open, and counts the ToolAdd and ToolSum
// calls that reached the tool (nil counts nothing). The zero value is not
// usable; use NewGate.
type Gate struct {
	ran     atomic.Int64
	entered atomic.Int64
	open    chan struct{}
	once    sync.Once
}

// NewGate returns a closed gate.
func NewGate() *Gate { return &Gate{open: make(chan struct{})} }

// wait counts the caller in and blocks until the gate opens or ctx ends.
func (g *Gate) wait(ctx context.Context) error {
	g.entered.Add(1)
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// add and sum run the tool bodies, counted.
func (g *Gate) add(in AddIn) SumOut {
	if g != nil {
		g.ran.Add(1)
	}
	return add(in)
}

func (g *Gate) sum(in SumIn) SumOut {
	if g != nil {
		g.ran.Add(1)
	}
	return sum(in)
}

// Ran reports how many ToolAdd and ToolSum calls reached the tool.
func (g *Gate) Ran() int64 { return g.ran.Load() }

// Entered reports how many ToolWait calls have reached the tool.
func (g *Gate) Entered() int64 { return g.entered.Load() }

// Open releases every waiting call, and every later one at once.
func (g *Gate) Open() { g.once.Do(func() { close(g.open) }) }

// ListToolName is the name of the i-th tool of a discovery scenario.
func ListToolName(i int) string { return "tool_" + strconv.Itoa(i) }

// ListToolDescription is the description every discovery tool carries: a
// sentence of realistic length.
const ListToolDescription = "Adds two integers a and b and returns their sum as {\"sum\": n}."

// LargeSumArgs returns the JSON arguments of ToolSum with integers filling
// about size bytes, and their sum.
func LargeSumArgs(size int) ([]byte, int) {
	var b strings.Builder
	b.Grow(size + 32)
	b.WriteString(`{"values":[`)
	total := 0
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		v := (i*7919)%100000 - 50000
		total += v
		b.WriteString(strconv.Itoa(v))
	}
	b.WriteString(`]}`)
	return []byte(b.String()), total
}
