// Package rediscmd classifies the Redis commands a redis tool of the
// toolexec command may run: a fixed list of commands that only read, which
// every tool may run; a fixed list of commands that write, which only a
// tool declared to write may run; and everything else, which no tool runs.
// The lists follow the ACL categories Redis 7.0 to 8.0 give the commands
// (@read, @write, @admin, @dangerous, @blocking, @pubsub, @scripting,
// @transaction, @connection): a command is allowed when it reads or writes
// keys of the source's database and is none of the others, with the
// exceptions Class's documentation states. A command not listed (a
// module's, a newer server's) is refused: the lists are an allow-list.
package rediscmd

import (
	"errors"
	"sort"
	"strings"
)

// Effect is what a command does to the data.
type Effect int

// The effects.
const (
	// Refused: no tool runs the command.
	Refused Effect = iota
	// Reads: the command reads keys (or nothing: PING); any tool runs it.
	Reads
	// Writes: the command changes keys; only a tool declared to write
	// (readOnly: false) runs it.
	Writes
)

// String names the effect as messages use it.
func (e Effect) String() string {
	switch e {
	case Reads:
		return "reads"
	case Writes:
		return "writes"
	}
	return "is refused"
}

// Class is what Classify says of a command.
type Class struct {
	// Name is the command's name in upper case, with its subcommand for
	// a command that has them ("XINFO STREAM").
	Name string
	// Effect is what it does.
	Effect Effect
	// Why says why a refused command is refused.
	Why string
	// Subcommand is true when the command's second word is a subcommand
	// (OBJECT, MEMORY, XINFO, XGROUP): that word is part of what the
	// command does, so a tool must write it literally.
	Subcommand bool
}

// effects are the allowed commands without subcommands: those that only
// read keys (or nothing) and those that change keys of the source's
// database. They are never changed after the package is initialised.
var effects = func() map[string]Effect {
	m := map[string]Effect{}
	for _, n := range words(readNames) {
		m[n] = Reads
	}
	for _, n := range words(writeNames) {
		m[n] = Writes
	}
	return m
}()

// readNames are the commands that only read keys, or nothing.
const readNames = `
	BITCOUNT BITFIELD_RO BITPOS DBSIZE ECHO EXISTS EXPIRETIME
	GEODIST GEOHASH GEOPOS GEORADIUS_RO GEORADIUSBYMEMBER_RO GEOSEARCH
	GET GETBIT GETRANGE HEXISTS HEXPIRETIME HGET HGETALL HKEYS HLEN HMGET
	HPEXPIRETIME HPTTL HRANDFIELD HSCAN HSTRLEN HTTL HVALS LCS LINDEX LLEN
	LPOS LRANGE MGET PEXPIRETIME PFCOUNT PING PTTL RANDOMKEY SCAN SCARD
	SDIFF SINTER SINTERCARD SISMEMBER SMEMBERS SMISMEMBER SRANDMEMBER SSCAN
	STRLEN SUBSTR SUNION TIME TOUCH TTL TYPE XLEN XPENDING XRANGE XREAD
	XREVRANGE ZCARD ZCOUNT ZDIFF ZINTER ZINTERCARD ZLEXCOUNT ZMSCORE
	ZRANDMEMBER ZRANGE ZRANGEBYLEX ZRANGEBYSCORE ZRANK ZREVRANGE
	ZREVRANGEBYLEX ZREVRANGEBYSCORE ZREVRANK ZSCAN ZSCORE ZUNION`

// writeNames are the commands that change keys of the source's database.
const writeNames = `
	APPEND BITFIELD BITOP COPY DECR DECRBY DEL EXPIRE EXPIREAT GEOADD
	GEORADIUS GEORADIUSBYMEMBER GEOSEARCHSTORE GETDEL GETEX GETSET HDEL
	HEXPIRE HEXPIREAT HGETDEL HGETEX HINCRBY HINCRBYFLOAT HMSET HPERSIST
	HPEXPIRE HPEXPIREAT HSET HSETEX HSETNX INCR INCRBY INCRBYFLOAT LINSERT
	LMOVE LMPOP LPOP LPUSH LPUSHX LREM LSET LTRIM MSET MSETNX PERSIST
	PEXPIRE PEXPIREAT PFADD PFMERGE PSETEX PUBLISH RENAME RENAMENX RPOP
	RPOPLPUSH RPUSH RPUSHX SADD SDIFFSTORE SET SETBIT SETEX SETNX SETRANGE
	SINTERSTORE SMOVE SPOP SPUBLISH SREM SUNIONSTORE UNLINK XACK XADD
	XAUTOCLAIM XCLAIM XDEL XREADGROUP XSETID XTRIM ZADD ZDIFFSTORE ZINCRBY
	ZINTERSTORE ZMPOP ZPOPMAX ZPOPMIN ZRANGESTORE ZREM ZREMRANGEBYLEX
	ZREMRANGEBYRANK ZREMRANGEBYSCORE ZUNIONSTORE`

// subcommands are the allowed subcommands of the commands that have
// them, with their effects; any other subcommand is refused.
var subcommands = map[string]map[string]Effect{
	"OBJECT": {"ENCODING": Reads, "FREQ": Reads, "IDLETIME": Reads, "REFCOUNT": Reads},
	"MEMORY": {"USAGE": Reads},
	"XINFO":  {"STREAM": Reads, "GROUPS": Reads, "CONSUMERS": Reads},
	"XGROUP": {"CREATE": Writes, "CREATECONSUMER": Writes, "DELCONSUMER": Writes, "DESTROY": Writes, "SETID": Writes},
}

// refusals say why the commands Redis has but no tool runs are refused.
var refusals = func() map[string]string {
	m := map[string]string{}
	for why, names := range map[string]string{
		"it runs a server-side script, which can do anything (read or write any key, loop forever)": `
			EVAL EVALSHA EVAL_RO EVALSHA_RO FCALL FCALL_RO SCRIPT FUNCTION`,
		"it administers the server, not the data": `
			ACL BGREWRITEAOF BGSAVE CLUSTER COMMAND CONFIG DEBUG FAILOVER INFO
			LASTSAVE LATENCY LOLWUT MODULE MONITOR PFDEBUG PFSELFTEST PSYNC
			REPLCONF REPLICAOF ROLE SAVE SHUTDOWN SLAVEOF SLOWLOG SYNC`,
		"it erases a whole database": `FLUSHALL FLUSHDB`,
		"it reaches another database or server than the source's": `
			MIGRATE MOVE SWAPDB`,
		"it reads or writes Redis's internal serialization of a key": `
			DUMP RESTORE RESTORE-ASKING`,
		"it visits every key of the database in one command, blocking the server (use SCAN)": `KEYS`,
		"its BY and GET patterns read any key they name, and it can take long":               `SORT SORT_RO`,
		"it blocks its connection until data arrives": `
			BLMOVE BLMPOP BLPOP BRPOP BRPOPLPUSH BZMPOP BZPOPMAX BZPOPMIN
			WAIT WAITAOF`,
		"it subscribes a connection or inspects subscriptions": `
			PSUBSCRIBE PUBSUB PUNSUBSCRIBE SSUBSCRIBE SUBSCRIBE SUNSUBSCRIBE
			UNSUBSCRIBE`,
		"a transaction spans several commands on one connection, which a tool's pooled commands do not have": `
			DISCARD EXEC MULTI UNWATCH WATCH`,
		"it changes the pooled connection's database, identity or mode": `
			ASKING AUTH CLIENT HELLO QUIT READONLY READWRITE RESET SELECT`,
	} {
		for _, n := range words(names) {
			m[n] = why
		}
	}
	return m
}()

func words(s string) []string { return strings.Fields(s) }

// Classify says what the command named by name (its first word) does,
// with sub, its second word, for the commands that have subcommands
// (hasSub false when the second word is not known: a parameter supplies
// it, or there is none). Names compare case-insensitively.
func Classify(name, sub string, hasSub bool) Class {
	n := strings.ToUpper(name)
	if subs, ok := subcommands[n]; ok {
		c := Class{Name: n, Subcommand: true}
		if !hasSub {
			c.Why = "its subcommand must be written in the file (one of " + strings.Join(keys(subs), ", ") + "), not taken from a parameter"
			return c
		}
		s := strings.ToUpper(sub)
		c.Name = n + " " + s
		if e, ok := subs[s]; ok {
			c.Effect = e
			return c
		}
		c.Why = "of " + n + " only " + strings.Join(keys(subs), ", ") + " are allowed"
		return c
	}
	if e, ok := effects[n]; ok {
		return Class{Name: n, Effect: e}
	}
	if why, ok := refusals[n]; ok {
		return Class{Name: n, Why: why}
	}
	return Class{Name: n, Why: "it is not in toolexec's list of Redis commands (a module's commands are not either)"}
}

func keys(m map[string]Effect) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Unknown stands for an argument whose value is not known yet (a
// parameter's, when a file is checked): CheckArgs lets it be anything but
// the options it refuses.
const Unknown = "\x00"

// ErrBlocking is CheckArgs's error for XREAD or XREADGROUP with BLOCK.
var ErrBlocking = errors.New("BLOCK makes the command wait for data, holding its connection: it is refused")

// ErrOtherDatabase is CheckArgs's error for COPY with DB.
var ErrOtherDatabase = errors.New("DB makes COPY write into another database than the source's: it is refused")

// CheckArgs refuses the options that would make an allowed command do
// what its class does not allow, read as Redis reads the command's
// arguments (args, the command's name excluded): BLOCK in XREAD and
// XREADGROUP (the command would hold its connection until data arrives),
// DB in COPY (it would write into another database). An argument equal to
// Unknown is taken as an option that is neither, and ends the check of
// options, as a syntax error would end Redis's reading.
func CheckArgs(name string, args []string) error {
	switch strings.ToUpper(name) {
	case "XREAD", "XREADGROUP":
		// [GROUP group consumer] [COUNT n] [BLOCK ms] [NOACK] STREAMS ...
		for i := 0; i < len(args); i++ {
			switch strings.ToUpper(args[i]) {
			case "BLOCK":
				return ErrBlocking
			case "COUNT":
				i++
			case "GROUP":
				i += 2
			case "NOACK":
			default: // STREAMS, or an argument Redis refuses
				return nil
			}
		}
	case "COPY":
		// source destination [DB db] [REPLACE]
		for i := 2; i < len(args); i++ {
			if strings.EqualFold(args[i], "DB") {
				return ErrOtherDatabase
			}
		}
	}
	return nil
}

// Lists returns the allowed commands, sorted: those that read (every
// tool runs them) and those that write (a tool declared to write runs
// them), each with its allowed subcommands ("XINFO STREAM"). The guide
// lists them; a test keeps it in step.
func Lists() (read, write []string) {
	for n, e := range effects {
		if e == Reads {
			read = append(read, n)
		} else {
			write = append(write, n)
		}
	}
	for n, subs := range subcommands {
		for s, e := range subs {
			if e == Reads {
				read = append(read, n+" "+s)
			} else {
				write = append(write, n+" "+s)
			}
		}
	}
	sort.Strings(read)
	sort.Strings(write)
	return read, write
}
