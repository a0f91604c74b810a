package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// serverRate reads --rate-limit (RATE/PER, as a tool's rateLimit) and
// --rate-burst into the server's rate limit: the zero RateLimit (no limit)
// when --rate-limit is empty, and an error saying which flag is wrong
// otherwise.
func serverRate(spec string, burst int) (toolexec.RateLimit, error) {
	if spec == "" {
		if burst != 0 {
			return toolexec.RateLimit{}, errors.New("--rate-burst needs --rate-limit")
		}
		return toolexec.RateLimit{}, nil
	}
	l, err := config.ParseRate(spec)
	if err != nil {
		return toolexec.RateLimit{}, fmt.Errorf("--rate-limit: %w, not %s", err, strconv.Quote(spec))
	}
	l.Burst = burst
	if err := l.Check(); err != nil {
		return toolexec.RateLimit{}, fmt.Errorf("--rate-burst: %w", err)
	}
	return toolexec.RateLimit{Rate: l.Rate, Per: l.Per, Burst: l.Burst}, nil
}

// describeRate is what the banner says of the server's rate limit.
func describeRate(l toolexec.RateLimit) string {
	s := "at most " + l.String() + " per caller, all tools together but those with a rateLimit of their own"
	if l.Burst > 0 {
		s += fmt.Sprintf(" (bursts of %d)", l.Burst)
	}
	return s
}
