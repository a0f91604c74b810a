package toolexec

import (
	"sync/atomic"
	"time"
)

// pipelineConfig holds the settings of the built-in interceptors and what
// New builds from them once, so that a call only reads it. It is embedded in
// Executor.
type pipelineConfig struct {
	timeout time.Duration // WithTimeout; <= 0 is none

	limit        ConcurrencyLimit // WithConcurrencyLimit
	limiter      *limiter         // built from limit; nil when unlimited
	toolLimiters limiterSet       // for ToolOptions.ConcurrencyLimit (limit_set.go)
	rateLimit    RateLimit        // WithRateLimit
	ipv6Bits     int              // WithIPv6CallerPrefix; 0 is caller.DefaultIPv6PrefixBits

	// store is WithStore's; nil counts limits in the process and keeps
	// what surfaces share in local.
	store    Store
	local    *MemoryStore  // the process's own store: local rates, and Store() without WithStore
	leaseTTL time.Duration // WithLeaseTTL; <= 0 is DefaultLeaseTTL
	// cacheIsStore: the cache is the shared store, so the limit stage can
	// look a call up in its own round trip (AdmitRequest.Read).
	cacheIsStore bool

	taskSettings TaskSettings // WithTasks
	tasks        *taskStore   // where tasks live: built from store (or local) and taskSettings
	// storeDown: the last store operation failed (noteStore logs changes);
	// cacheDown, likewise, for the cache (noteCache).
	storeDown, cacheDown atomic.Bool

	inputTransforms  []InputTransform  // WithInputTransforms
	outputTransforms []OutputTransform // WithOutputTransforms

	cache    Cache         // WithCache; a MemoryCache when none is given
	cacheTTL time.Duration // WithCacheTTL; <= 0 is DefaultCacheTTL

	observer Observer // WithObserver; a nopObserver when none is given
	// observesArguments: the observer records the decoded arguments
	// (ArgumentsObserver), so every call decodes them.
	observesArguments bool

	run CallFunc // the interceptor chain around the handler, built once
	// runValidated is run without the built-ins that pass a call on
	// untouched when nothing configures them: the chain of a call for
	// which onlyValidates holds.
	runValidated CallFunc
}

// toolKey names one version of one tool.
type toolKey struct{ name, version string }

// buildPipeline turns the options into what calls use: the observer, the default cache, the global limiter and the interceptor
// chain. New calls it once, after the options.
func (x *Executor) buildPipeline() {
	if ao, ok := x.observer.(ArgumentsObserver); ok {
		x.observesArguments = ao.ObservesArguments()
	}
	if x.observer == nil {
		x.observer = nopObserver{}
	}
	x.local = NewMemoryStore()
	if x.cache == nil && x.store != nil {
		x.cache, x.cacheIsStore = x.store, true
	}
	if x.cache == nil {
		x.cache = NewMemoryCache(0)
	}
	if x.leaseTTL <= 0 {
		x.leaseTTL = DefaultLeaseTTL
	}
	if x.cacheTTL <= 0 {
		x.cacheTTL = DefaultCacheTTL
	}
	x.tasks = x.newTaskStore()
	x.limiter = newLimiter(x.limit)
	x.schemas.Live = x.schemaIDs
	x.run = chain(x.runTool, x.builtinInterceptors(), x.interceptors)
	x.runValidated = chain(x.runTool, []Interceptor{x.validationInterceptor}, x.interceptors)
}
