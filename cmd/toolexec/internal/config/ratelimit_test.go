package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]RateLimit{
		"10/1m":       {Rate: 10, Per: time.Minute},
		"5/s":         {Rate: 5, Per: time.Second},
		"100/h":       {Rate: 100, Per: time.Hour},
		"2/m":         {Rate: 2, Per: time.Minute},
		"1/24h":       {Rate: 1, Per: 24 * time.Hour},
		" 3 / 90s ":   {Rate: 3, Per: 90 * time.Second},
		"1000000/1s":  {Rate: 1000000, Per: time.Second},
		"7/1h30m":     {Rate: 7, Per: 90 * time.Minute},
		"1/1000ms":    {Rate: 1, Per: time.Second},
		"60/1m0s":     {Rate: 60, Per: time.Minute},
		"2/1h":        {Rate: 2, Per: time.Hour},
		"+4/1m":       {Rate: 4, Per: time.Minute},
		"1000/86400s": {Rate: 1000, Per: 24 * time.Hour},
	} {
		got, err := ParseRate(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, got, in)
			assert.NoError(t, got.Check(), in)
		}
	}
	for in, want := range map[string]error{
		"":                        errRateForm,
		"10":                      errRateForm,
		"10 per 1m":               errRateForm,
		"0/1m":                    errRateCalls,
		"-1/1m":                   errRateCalls,
		"ten/1m":                  errRateCalls,
		"1.5/1m":                  errRateCalls,
		"1000001/1s":              errRateCalls,
		"/1m":                     errRateCalls,
		"99999999999999999999/1m": errRateCalls,
		"10/":                     errRatePer,
		"10/1d":                   errRatePer,
		"10/minute":               errRatePer,
		"10/1m/2":                 errRatePer,
		"10/0s":                   errPerRange,
		"10/-1m":                  errPerRange,
		"10/500ms":                errPerRange,
		"10/25h":                  errPerRange,
		"10/8760h":                errPerRange,
	} {
		_, err := ParseRate(in)
		assert.Equal(t, want, err, "%q", in)
	}
}

func TestRateLimit_CheckBoundsTheBurst(t *testing.T) {
	for _, c := range []struct {
		l  RateLimit
		ok bool
	}{
		{RateLimit{Rate: 10, Per: time.Minute}, true},
		{RateLimit{Rate: 10, Per: time.Minute, Burst: 1}, true},
		{RateLimit{Rate: 1, Per: time.Minute, Burst: 1000}, true},
		{RateLimit{Rate: 1, Per: 24 * time.Hour, Burst: 1000}, true},
		{RateLimit{Rate: 1000000, Per: time.Second, Burst: 1000000}, true},
		{RateLimit{Rate: 1, Per: time.Minute, Burst: 1001}, false},
		{RateLimit{Rate: 10000, Per: time.Minute, Burst: 1000001}, false},
		{RateLimit{Rate: 10, Per: time.Minute, Burst: -1}, false},
		{RateLimit{Rate: 0, Per: time.Minute}, false},
		{RateLimit{Rate: 10}, false},
	} {
		err := c.l.Check()
		assert.Equal(t, c.ok, err == nil, "%+v: %v", c.l, err)
	}
}

// rateTools is a file with a sql and an http tool, each with the rateLimit
// value given.
func rateTools(sqlValue, httpValue string) string {
	return strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  db: {kind: sqlite, database: x.db}",
		/* 3 */ "  api: {kind: http, baseUrl: 'https://api.example.com'}",
		/* 4 */ "tools:",
		/* 5 */ "  q:",
		/* 6 */ "    kind: sqlite-sql",
		/* 7 */ "    source: db",
		/* 8 */ "    description: d",
		/* 9 */ "    statement: SELECT 1",
		/* 10 */ "    rateLimit: " + sqlValue,
		/* 11 */ "  h:",
		/* 12 */ "    kind: http",
		/* 13 */ "    source: api",
		/* 14 */ "    description: d",
		/* 15 */ "    method: GET",
		/* 16 */ "    rateLimit: " + httpValue,
	}, "\n") + "\n"
}

func TestParse_RateLimitOfSQLAndHTTPTools(t *testing.T) {
	for _, c := range []struct {
		name, value string
		env         map[string]string
		want        *RateLimit
	}{
		{"quoted", `"2/1h"`, nil, &RateLimit{Rate: 2, Per: time.Hour}},
		{"plain", `5/s`, nil, &RateLimit{Rate: 5, Per: time.Second}},
		{"a duration", `10/1m30s`, nil, &RateLimit{Rate: 10, Per: 90 * time.Second}},
		{"a mapping", `{rate: 10, per: 1m, burst: 20}`, nil, &RateLimit{Rate: 10, Per: time.Minute, Burst: 20}},
		{"a mapping without burst", `{rate: 3, per: h}`, nil, &RateLimit{Rate: 3, Per: time.Hour}},
		{"a mapping of strings", `{rate: "3", per: "2m", burst: "4"}`, nil, &RateLimit{Rate: 3, Per: 2 * time.Minute, Burst: 4}},
		{"none", `none`, nil, &RateLimit{}},
		{"from the environment", `${RATE}`, map[string]string{"RATE": "7/m"}, &RateLimit{Rate: 7, Per: time.Minute}},
		{"an environment default", `${RATE:8/h}`, nil, &RateLimit{Rate: 8, Per: time.Hour}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, ps := parse(t, rateTools(c.value, c.value), c.env)
			require.Empty(t, ps, ps.Error())
			require.Len(t, cfg.Tools, 2)
			for _, tl := range cfg.Tools {
				assert.Equal(t, c.want, tl.RateLimit, tl.Name)
			}
		})
	}

	// The block form of the mapping, and no rateLimit at all.
	cfg, ps := parse(t, strings.Replace(rateTools("5/s", "x"), "    rateLimit: x\n", "    rateLimit:\n      rate: 4\n      per: 1m\n      burst: 8\n", 1), nil)
	require.Empty(t, ps, ps.Error())
	assert.Equal(t, &RateLimit{Rate: 4, Per: time.Minute, Burst: 8}, cfg.Tools[1].RateLimit)
	cfg, ps = parse(t, strings.Replace(rateTools("5/s", "x"), "    rateLimit: x\n", "", 1), nil)
	require.Empty(t, ps, ps.Error())
	assert.Nil(t, cfg.Tools[1].RateLimit, "no rateLimit: the server's applies")
}

func TestParse_RateLimitProblemsPointAtTheValue(t *testing.T) {
	for _, c := range []struct {
		value string
		env   map[string]string
		// at is the text the problem points at: the column is where it
		// starts in the value.
		at, want string
	}{
		{`0/1m`, nil, `0/1m`, `rateLimit: the rate must be a whole number of calls from 1 to 1000000, not "0/1m"`},
		{`"-3/1m"`, nil, `"-3/1m"`, `the rate must be`},
		{`ten/1m`, nil, `ten/1m`, `the rate must be`},
		{`10`, nil, `10`, `rateLimit: want RATE/PER, such as 10/1m or 5/s, not "10"`},
		{`''`, nil, `''`, `want RATE/PER`},
		{`10/1d`, nil, `10/1d`, `the period must be a duration such as 1m or 30s, or s, m or h for one of them, not "10/1d"`},
		{`10/48h`, nil, `10/48h`, `the period must be from 1s to 24h, not "10/48h"`},
		{`10/100ms`, nil, `10/100ms`, `the period must be from 1s to 24h`},
		{`[10, 1m]`, nil, `[10, 1m]`, `rateLimit must be RATE/PER (such as 10/1m), none, or a mapping of rate, per and burst`},
		{`{rate: 0, per: 1m}`, nil, `0, per`, `the rate must be a whole number of calls from 1 to 1000000, not "0"`},
		{`{rate: 10, per: 2d}`, nil, `2d}`, `the period must be a duration such as 1m or 30s, or s, m or h for one of them, not "2d"`},
		{`{rate: 10, per: 1m, burst: 0}`, nil, `0}`, `the burst must be a whole number of calls from 1 to 1000000, and at most 1000 times the rate, not "0"`},
		{`{rate: 1, per: 1m, burst: 5000}`, nil, `5000}`, `the burst must be`},
		{`{rate: 10}`, nil, `{rate: 10}`, `rateLimit needs rate and per`},
		{`{rate: 10, per: 1m, limit: 3}`, nil, `limit`, `rateLimit: unknown field "limit"`},
		{`${RATE}`, map[string]string{"RATE": "0/1m"}, `${RATE}`, `the rate must be a whole number of calls from 1 to 1000000, not "${RATE}" (from the environment)`},
	} {
		t.Run(c.value, func(t *testing.T) {
			src := rateTools(c.value, "1/s")
			_, ps := parse(t, src, c.env)
			require.NotEmpty(t, ps)
			line := strings.Split(src, "\n")[9]
			col := strings.Index(line, c.at) + 1
			require.Positive(t, col)
			got := at(ps, 10, col)
			assert.Contains(t, got, `tool "q" `, ps.Error())
			assert.Contains(t, got, c.want, ps.Error())
			assert.Len(t, ps, 1, "one problem, at the value: %s", ps.Error())

			// The http tool's field is read the same way.
			src = rateTools("1/s", c.value)
			_, ps = parse(t, src, c.env)
			got = at(ps, 16, col)
			assert.Contains(t, got, `tool "h" `, ps.Error())
			assert.Contains(t, got, c.want, ps.Error())
		})
	}
}

func ExampleParseRate() {
	l, err := ParseRate("10/1m")
	fmt.Println(l.Rate, l.Per, err)
	_, err = ParseRate("0/1m")
	fmt.Println(err)
	// Output:
	// 10 1m0s <nil>
	// the rate must be a whole number of calls from 1 to 1000000
}
