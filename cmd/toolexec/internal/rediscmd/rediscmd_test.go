package rediscmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/redis/redistest"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		name, sub string
		hasSub    bool
		want      Effect
		why       string
	}{
		{name: "get", want: Reads},
		{name: "HGETALL", want: Reads},
		{name: "Ping", want: Reads},
		{name: "XREAD", want: Reads},
		{name: "set", want: Writes},
		{name: "XREADGROUP", want: Writes},
		{name: "PUBLISH", want: Writes},
		{name: "OBJECT", sub: "encoding", hasSub: true, want: Reads},
		{name: "XGROUP", sub: "CREATE", hasSub: true, want: Writes},
		{name: "OBJECT", sub: "HELP", hasSub: true, why: "of OBJECT only ENCODING, FREQ, IDLETIME, REFCOUNT are allowed"},
		{name: "MEMORY", hasSub: false, why: "its subcommand must be written in the file"},
		{name: "EVAL", why: "server-side script"},
		{name: "script", why: "server-side script"},
		{name: "MODULE", why: "administers the server"},
		{name: "CONFIG", why: "administers the server"},
		{name: "FLUSHALL", why: "erases a whole database"},
		{name: "FLUSHDB", why: "erases a whole database"},
		{name: "DEBUG", why: "administers the server"},
		{name: "SHUTDOWN", why: "administers the server"},
		{name: "KEYS", why: "use SCAN"},
		{name: "BLPOP", why: "blocks its connection"},
		{name: "SELECT", why: "database, identity or mode"},
		{name: "MULTI", why: "transaction"},
		{name: "SUBSCRIBE", why: "subscribes"},
		{name: "MOVE", why: "another database or server"},
		{name: "JSON.GET", why: "not in toolexec's list"},
	} {
		got := Classify(c.name, c.sub, c.hasSub)
		assert.Equal(t, c.want, got.Effect, "%s %s", c.name, c.sub)
		if c.why != "" {
			assert.Contains(t, got.Why, c.why, "%s %s", c.name, c.sub)
		} else {
			assert.Empty(t, got.Why, "%s %s", c.name, c.sub)
		}
	}
}

func TestCheckArgs(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		args []string
		want error
	}{
		{"XREAD", []string{"COUNT", "10", "STREAMS", "s", "0"}, nil},
		{"XREAD", []string{"COUNT", "10", "block", "0", "STREAMS", "s", "0"}, ErrBlocking},
		{"XREAD", []string{"BLOCK", "0", "STREAMS", "s", "$"}, ErrBlocking},
		// After STREAMS everything is a key or an id, "block" included.
		{"XREAD", []string{"STREAMS", "block", "0"}, nil},
		// BLOCK as the value of COUNT is not the option.
		{"XREAD", []string{"COUNT", "BLOCK", "STREAMS", "s", "0"}, nil},
		{"XREADGROUP", []string{"GROUP", "g", "c", "NOACK", "BLOCK", "5", "STREAMS", "s", ">"}, ErrBlocking},
		{"XREADGROUP", []string{"GROUP", "BLOCK", "BLOCK", "STREAMS", "s", ">"}, nil},
		// An unknown argument ends the options, as Redis's syntax error.
		{"XREAD", []string{Unknown, "BLOCK", "0"}, nil},
		{"COPY", []string{"a", "b", "REPLACE"}, nil},
		{"COPY", []string{"a", "b", "db", "3"}, ErrOtherDatabase},
		// The keys may be named DB.
		{"COPY", []string{"DB", "DB"}, nil},
		{"GET", []string{"BLOCK"}, nil},
	} {
		assert.Equal(t, c.want, CheckArgs(c.cmd, c.args), "%s %v", c.cmd, c.args)
	}
}

// TestLists_AgreeWithRedis asks a real Redis for its commands and their
// ACL categories: every command it has is classified on purpose (allowed,
// or refused with a reason), every command allowed to read is in @read
// (or is PING, ECHO or TIME), every command allowed to write in @write
// (or is PUBLISH or SPUBLISH), and none of them is @admin, @dangerous or
// @scripting, nor @blocking but for XREAD and XREADGROUP, whose BLOCK
// option CheckArgs refuses. A newer Redis's new commands fail the first
// check until the lists say what they are.
func TestLists_AgreeWithRedis(t *testing.T) {
	srv := redistest.New(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer rdb.Close()
	ctx := context.Background()
	category := func(name string) map[string]bool {
		out, err := rdb.Do(ctx, "ACL", "CAT", name).StringSlice()
		require.NoError(t, err)
		m := map[string]bool{}
		for _, c := range out {
			m[strings.ToUpper(c)] = true
		}
		return m
	}
	cats := map[string]map[string]bool{}
	for _, c := range []string{"read", "write", "admin", "dangerous", "scripting", "blocking", "pubsub", "connection"} {
		cats[c] = category(c)
	}
	list, err := rdb.Do(ctx, "COMMAND", "LIST").StringSlice()
	require.NoError(t, err)
	known := map[string]bool{}
	for _, n := range list {
		n = strings.ToUpper(n)
		known[n] = true
		if strings.Contains(n, "|") {
			continue // a subcommand: checked below through its command
		}
		_, allowed := effects[n]
		_, withSubs := subcommands[n]
		_, refused := refusals[n]
		assert.True(t, allowed || withSubs || refused, "Redis's command %s is neither allowed nor refused with a reason", n)
	}
	read, write := Lists()
	check := func(entry string, e Effect) {
		name := strings.Replace(entry, " ", "|", 1)
		if !known[name] {
			return // newer than this server (HEXPIRE, HGETDEL, ...)
		}
		switch e {
		case Reads:
			assert.True(t, cats["read"][name] || name == "PING" || name == "ECHO" || name == "TIME", "%s is not @read", name)
			assert.False(t, cats["write"][name], "%s is @write", name)
		case Writes:
			assert.True(t, cats["write"][name] || name == "PUBLISH" || name == "SPUBLISH", "%s is not @write", name)
		}
		for _, c := range []string{"admin", "dangerous", "scripting"} {
			assert.False(t, cats[c][name], "%s is @%s", name, c)
		}
		if name != "XREAD" && name != "XREADGROUP" {
			assert.False(t, cats["blocking"][name], "%s is @blocking", name)
		}
	}
	for _, n := range read {
		check(n, Reads)
	}
	for _, n := range write {
		check(n, Writes)
	}
	assert.GreaterOrEqual(t, len(read), 90, fmt.Sprint(read))
	assert.GreaterOrEqual(t, len(write), 90, fmt.Sprint(write))
}

// The guide lists every allowed command.
func TestLists_InTheGuide(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	guide := string(b)
	start := strings.Index(guide, "### Redis tools")
	require.GreaterOrEqual(t, start, 0)
	end := strings.Index(guide[start:], "### MongoDB tools")
	require.Greater(t, end, 0)
	section := strings.Join(strings.Fields(guide[start:start+end]), " ")
	read, write := Lists()
	for _, n := range append(read, write...) {
		assert.Contains(t, section, "`"+n+"`", "cmd/toolexec/README.md's Redis tools section lists %s", n)
	}
}
