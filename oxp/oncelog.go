package oxp

import "sync"

// maxLogged bounds how many distinct problems a handler remembers having
// logged. Past it, further problems are logged at debug level only.
const maxLogged = 1024

// onceLog remembers which problems a handler has logged, so an endpoint
// anyone may call (GET /tools) warns about each problem once rather than on
// every request. Its zero value is ready to use; it is safe for concurrent
// use.
type onceLog struct {
	mu   sync.Mutex
	seen map[string]struct{}
}

// first reports whether key is new: true the first time, false after, and
// false once maxLogged keys are remembered.
func (o *onceLog) first(key string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.seen[key]; ok || len(o.seen) >= maxLogged {
		return false
	}
	if o.seen == nil {
		o.seen = make(map[string]struct{})
	}
	o.seen[key] = struct{}{}
	return true
}
