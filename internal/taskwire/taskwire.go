// Package taskwire is what toolexec's surfaces say of tasks in one form:
// the layout of a task's timestamps (REST, OXP and MCP alike), and the
// Prefer header (RFC 7240) with which an HTTP caller asks for a task
// (REST and OXP).
package taskwire

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Time writes t as ISO 8601 (RFC 3339) in UTC, to the millisecond
// ("2026-01-02T15:04:05.000Z"): the form of every task timestamp.
func Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// Prefer reads h's Prefer headers (RFC 7240): whether they ask for
// respond-async, and the wait=N they ask for, in whole seconds (-1 when
// they ask for none or it is not a number). Preference names are matched
// whatever their case, a quoted value is read unquoted, and preference
// parameters (after ";") are not read.
func Prefer(h http.Header) (async bool, wait time.Duration) {
	wait = -1
	for _, v := range h.Values("Prefer") {
		for _, pref := range strings.Split(v, ",") {
			token, _, _ := strings.Cut(pref, ";")
			name, value, _ := strings.Cut(strings.TrimSpace(token), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "respond-async":
				async = true
			case "wait":
				if n, err := strconv.ParseUint(strings.Trim(strings.TrimSpace(value), `"`), 10, 32); err == nil {
					wait = time.Duration(n) * time.Second
				}
			}
		}
	}
	return async, wait
}
