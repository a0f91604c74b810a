package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// RateLimit is how often one caller may call: Rate calls per Per on
// average, with bursts of up to Burst calls after a quiet spell (0: Rate).
// A tool's rateLimit (a toolexec extension) and serve's --rate-limit are
// one; the zero RateLimit limits nothing.
type RateLimit struct {
	Rate  int
	Per   time.Duration
	Burst int
}

// The bounds of a rate limit: a rate of 1 to maxRate calls per period of
// minRatePer to maxRatePer, so that no call is allowed more often than
// once a microsecond (the resolution the shared store counts in); a burst
// of 1 to maxBurst calls, and at most maxBurstFactor times the rate, so
// that a full burst is earned back within maxBurstFactor periods.
const (
	maxRate        = 1_000_000
	minRatePer     = time.Second
	maxRatePer     = 24 * time.Hour
	maxBurst       = 1_000_000
	maxBurstFactor = 1000
)

// The problems of a rate limit. None repeats the value: the caller names
// it (a tools file's value may come from the environment).
var (
	errRateForm  = errors.New("want RATE/PER, such as 10/1m or 5/s")
	errRateCalls = fmt.Errorf("the rate must be a whole number of calls from 1 to %d", maxRate)
	errRatePer   = errors.New("the period must be a duration such as 1m or 30s, or s, m or h for one of them")
	errPerRange  = fmt.Errorf("the period must be from %s to %s", minRatePer, "24h")
	errBurst     = fmt.Errorf("the burst must be a whole number of calls from 1 to %d, and at most %d times the rate", maxBurst, maxBurstFactor)
)

// ParseRate reads a rate limit written RATE/PER: RATE a whole number of
// calls, PER a Go duration or a bare unit s, m or h meaning one of it, as
// in 10/1m (ten calls a minute) or 5/s. Its burst is 0 (the rate). Values
// out of bounds (a rate of 0, a period over a day) are errors, which say
// what is wrong without repeating s.
func ParseRate(s string) (RateLimit, error) {
	rate, per, ok := strings.Cut(s, "/")
	if !ok {
		return RateLimit{}, errRateForm
	}
	n, err := parseCalls(rate)
	if err != nil {
		return RateLimit{}, err
	}
	d, err := parsePer(per)
	if err != nil {
		return RateLimit{}, err
	}
	return RateLimit{Rate: n, Per: d}, nil
}

// Check reports what is wrong with l's fields (see ParseRate for the
// bounds; a Burst of 0 is the rate), nil when nothing is.
func (l RateLimit) Check() error {
	if l.Rate < 1 || l.Rate > maxRate {
		return errRateCalls
	}
	if l.Per < minRatePer || l.Per > maxRatePer {
		return errPerRange
	}
	return checkBurst(l.Burst, l.Rate)
}

func parseCalls(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > maxRate {
		return 0, errRateCalls
	}
	return n, nil
}

func parsePer(s string) (time.Duration, error) {
	var d time.Duration
	switch s = strings.TrimSpace(s); s {
	case "s":
		d = time.Second
	case "m":
		d = time.Minute
	case "h":
		d = time.Hour
	default:
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, errRatePer
		}
	}
	if d < minRatePer || d > maxRatePer {
		return 0, errPerRange
	}
	return d, nil
}

// checkBurst checks a burst of a rate already checked; 0 is the rate.
func checkBurst(burst, rate int) error {
	if burst < 0 || burst > maxBurst || burst > maxBurstFactor*rate {
		return errBurst
	}
	return nil
}

// rateNone is the rateLimit that exempts a tool from the server's.
const rateNone = "none"

// rateLimit reads a tool's rateLimit: "RATE/PER", none, or a mapping
// {rate, per, burst}. It returns nil when the value has a problem
// (reported at it).
func (p *parser) rateLimit(what string, n *yaml.Node) *RateLimit {
	switch n.Kind {
	case yaml.MappingNode:
		return p.rateLimitMap(what, n)
	case yaml.ScalarNode:
	default:
		p.errorf(n, "%s must be RATE/PER (such as 10/1m), %s, or a mapping of rate, per and burst", what, rateNone)
		return nil
	}
	s := p.str(what, n)
	if strings.TrimSpace(s) == rateNone {
		return &RateLimit{}
	}
	l, err := ParseRate(s)
	if err != nil {
		p.errorf(n, "%s: %v, not %s", what, err, p.show(s))
		return nil
	}
	return &l
}

// rateLimitMap reads the mapping form of a rateLimit: rate and per
// required, burst optional, each problem at its value.
func (p *parser) rateLimitMap(what string, n *yaml.Node) *RateLimit {
	var rateNode, perNode, burstNode *yaml.Node
	p.fields(what, n, func(key string, _, v *yaml.Node) bool {
		switch key {
		case "rate":
			rateNode = v
		case "per":
			perNode = v
		case "burst":
			burstNode = v
		default:
			return false
		}
		return true
	})
	if rateNode == nil || perNode == nil {
		p.errorf(n, "%s needs rate and per (and may have burst)", what)
		return nil
	}
	var (
		l   RateLimit
		err error
	)
	ok := true
	s := p.str(what+" rate", rateNode)
	if l.Rate, err = parseCalls(s); err != nil {
		p.errorf(rateNode, "%s: %v, not %s", what, err, p.show(s))
		ok = false
	}
	s = p.str(what+" per", perNode)
	if l.Per, err = parsePer(s); err != nil {
		p.errorf(perNode, "%s: %v, not %s", what, err, p.show(s))
		ok = false
	}
	if burstNode != nil {
		s = p.str(what+" burst", burstNode)
		b, err := strconv.Atoi(strings.TrimSpace(s))
		switch {
		case err != nil || b < 1:
			err = errBurst
		case l.Rate > 0: // the rate is valid: check the burst against it
			err = checkBurst(b, l.Rate)
		}
		if err != nil {
			p.errorf(burstNode, "%s: %v, not %s", what, err, p.show(s))
			ok = false
		}
		l.Burst = b
	}
	if !ok {
		return nil
	}
	return &l
}
