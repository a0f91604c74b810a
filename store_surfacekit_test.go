package toolexec_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec"
)

// TestSurfaceKitTellsWhetherTheStoreIsShared: a surface learns whether
// the store it keeps state in is one given with WithStore, and the lease
// TTL of the slots it holds there.
func TestSurfaceKitTellsWhetherTheStoreIsShared(t *testing.T) {
	reg := toolexec.NewRegistry()
	own := toolexec.New(reg, reg).SurfaceKit()
	assert.False(t, own.StoreShared())
	assert.NotNil(t, own.Store(), "the Executor's own store")
	assert.Equal(t, toolexec.DefaultLeaseTTL, own.LeaseTTL())

	store := toolexec.NewMemoryStore()
	shared := toolexec.New(reg, reg, toolexec.WithStore(store), toolexec.WithLeaseTTL(3*time.Second)).SurfaceKit()
	assert.True(t, shared.StoreShared())
	assert.Same(t, store, shared.Store())
	assert.Equal(t, 3*time.Second, shared.LeaseTTL())
}
