package toolexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/toolexec/toolexec/internal/caller"
	"github.com/toolexec/toolexec/internal/gcra"
)

// RateLimit bounds how often one caller may call: Rate calls per Per on
// average, with bursts of up to Burst calls at once after a quiet spell
// (the generic cell rate algorithm: one call is allowed every Per/Rate,
// and up to Burst may be taken ahead of time).
//
// A caller is the identity the auth hook established (ContextWithIdentity); a
// call without one is counted by the address it came from (the host part
// of its request's RemoteAddr: behind a balancer that is the balancer's
// unless middleware in front of the surfaces restores the client's; an
// IPv6 address by its /64, see WithIPv6CallerPrefix), and
// in-process calls without either share one count. A call over the rate is
// refused at once, before it takes a concurrency slot, as an *Error with
// StageLimit and CodeRateLimited whose RetryAfter says when a call would
// be allowed: REST and OXP answer 429 with a Retry-After header, MCP an
// isError result (with Retry-After on the HTTP response), as it answers a
// concurrency limit's refusal.
type RateLimit struct {
	// Rate is how many calls a caller may make per Per on average; 0 or
	// less means no limit.
	Rate int
	// Per is the period Rate counts over; 0 or less means one second.
	Per time.Duration
	// Burst is how many calls a caller may make at once after being quiet;
	// 0 or less means Rate.
	Burst int
}

// WithRateLimit bounds how often each caller may call the Executor's
// tools, all tools together (see RateLimit). A tool with its own
// ToolOptions.RateLimit is bounded by that one instead, and its calls do
// not count against this one. The default is no limit.
//
// Rates are counted in the Executor's store: across replicas with
// WithStore, else in the process, where at most MaxLocalRateKeys callers
// are remembered at once (the least recently seen is forgotten first, and
// starts afresh when it comes back).
func WithRateLimit(l RateLimit) Option {
	return func(x *Executor) { x.rateLimit = l }
}

// MaxLocalRateKeys is how many callers' rates an Executor without a shared
// store, or a MemoryStore, remembers at once: 65,536, about 5 MiB.
const MaxLocalRateKeys = 1 << 16

// params returns interval, the time one call of the rate takes, and tolerance how far
// ahead of it calls may run: GCRA's emission interval and burst tolerance.
// ok is false when the rate does not limit.
func (l RateLimit) params() (interval, tolerance time.Duration, ok bool) {
	return gcra.Params(l.Rate, l.Per, l.Burst)
}

// decide decides one call against the theoretical arrival time tat of its
// rate (the zero time for a caller never seen), at now: it returns the new
// tat when the call is allowed, or how long until one would be.
func (l RateLimit) decide(tat, now time.Time) (newTAT time.Time, wait time.Duration) {
	interval, tolerance, ok := l.params()
	if !ok {
		return tat, 0
	}
	return gcra.Decide(tat, now, interval, tolerance)
}

// String describes the rate, as refusals say it: "10 calls per 1s".
func (l RateLimit) String() string {
	per := l.Per
	if per <= 0 {
		per = time.Second
	}
	return fmt.Sprintf("%d calls per %s", l.Rate, per)
}

// rateFor returns the rate that applies to t, and the scope it is counted
// in ("" for the Executor's, all tools together); ok is false when no rate
// applies.
func (x *Executor) rateFor(t *Tool) (l RateLimit, own bool, ok bool) {
	if r := t.Options.RateLimit; r != nil {
		return *r, true, r.Rate > 0
	}
	return x.rateLimit, false, x.rateLimit.Rate > 0
}

// rateLimited reports whether a rate limit applies to calls of t.
func (x *Executor) rateLimited(t *Tool) bool {
	_, _, ok := x.rateFor(t)
	return ok
}

// rateKey is the key a call's rate is counted under: a digest of the scope
// (the tool's name and version for its own rate, none for the Executor's)
// and the caller, so keys are short and reveal no identity.
func rateKey(ctx context.Context, call *Call, own bool, ipv6Bits int) string {
	h := sha256.New()
	if own {
		writeField(h, call.Tool.Name)
		writeField(h, call.Tool.Version)
	} else {
		writeField(h, "")
	}
	switch id, ok := IdentityFromContext(ctx); {
	case ok:
		h.Write([]byte("id"))
		writeField(h, id)
	case call.Request != nil:
		h.Write([]byte("ip"))
		writeField(h, caller.Address(call.Request.RemoteAddr, ipv6Bits))
	default:
		h.Write([]byte("local"))
	}
	var sum [sha256.Size]byte
	return "rate:" + hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// rateRefusal is the error of a call its rate refused; own says the rate
// is the tool's own.
func rateRefusal(call *Call, l RateLimit, own bool, wait time.Duration) *Error {
	scope := "all tools together"
	if own {
		scope = "for tool " + call.Tool.Name
	}
	return &Error{Stage: StageLimit, Code: CodeRateLimited, RetryAfter: wait,
		Message: fmt.Sprintf("Too many calls: at most %s per caller, %s. Try again in %s.", l, scope, wait.Round(time.Millisecond))}
}

// WithIPv6CallerPrefix sets how many leading bits of an IPv6 address name
// one anonymous caller (one without an identity: see ContextWithIdentity), where
// callers are counted by address: rate limits (WithRateLimit,
// ToolOptions.RateLimit), MCP's per-caller listen streams, and a caller's
// share of the tasks and stream logs a process keeps
// (TaskSettings.MaxTasksPerCaller). The default,
// 64, counts a whole /64 as one caller, since one host may take any of its
// 2^64 addresses and would otherwise get a fresh budget with each; 128
// counts each address apart, as IPv4 addresses always are (an IPv4-mapped
// IPv6 address counts as its IPv4 address). bits outside 1 to 128 restores
// the default.
func WithIPv6CallerPrefix(bits int) Option {
	return func(x *Executor) { x.ipv6Bits = bits }
}

// CallerAddress names the network the anonymous caller of r is counted by
// (see WithIPv6CallerPrefix): its IPv4 address, or its IPv6 address's
// prefix. A surface that counts anonymous callers by address (MCP's listen
// streams) keys them with it, so that every count agrees on who a caller
// is.
func (k SurfaceKit) CallerAddress(r *http.Request) string {
	return caller.Address(r.RemoteAddr, k.x.ipv6Bits)
}
