// Package redis is a toolexec.Store on Redis (or Valkey, which speaks the
// same protocol): what the replicas of one toolexec service share, so that
// a plain round-robin balancer in front of them needs no stickiness.
//
//	store, err := redis.Open(ctx, "redis://redis:6379/0", redis.Options{})
//	if err != nil {
//		log.Fatal(err) // Redis could not be reached: say so at start
//	}
//	defer store.Close()
//	x := toolexec.New(reg, reg, toolexec.WithStore(store), ...)
//
// It uses Redis primitives only, each operation one round trip: strings
// with expiry for the cache and records, one Lua script for a call's rate
// (GCRA) and concurrency slot (a sorted set of leases scored by expiry),
// pub/sub for messages between replicas, and a stream per event log,
// trimmed to a bound and expiring with the log. Time comes from the Redis
// server (TIME), so replicas' clocks need not agree.
//
// Keys and channels all start with Options.Prefix. Services that share one
// Redis need prefixes of their own.
//
// On Redis Cluster (Open with a redis+cluster:// URL, or New with a
// *goredis.ClusterClient) the prefix holds a hash tag, "{toolexec}:" say,
// or is given one, so that all of a store's keys and channels hash to one
// slot: the scripts that touch several keys work there, and the store's
// messages leave from one node, in order. A store's data thus lives on one
// node and its replicas: a cluster gives the store failover to a replica,
// not its load spread over nodes (services with prefixes of their own
// land on slots of their own).
package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	neturl "net/url"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/gcra"
)

// Defaults of Options.
const (
	DefaultPrefix        = "toolexec:"
	DefaultMaxValueBytes = 1 << 20
	DefaultMaxLogEvents  = 1024
)

// Options configure a Store. The zero value is the defaults.
type Options struct {
	// Prefix starts every key and channel the store uses; "" means
	// DefaultPrefix. On Redis Cluster (a *goredis.ClusterClient, or Open
	// with a redis+cluster:// URL), every key the store uses must hash to
	// one slot, so the prefix must hold a hash tag, as "{toolexec}:" does;
	// a Prefix without one is put in braces: "toolexec:" becomes
	// "{toolexec:}". (One that begins with '}', which braces would not
	// make a tag, is preceded by "{toolexec}" instead.)
	Prefix string
	// MaxValueBytes is the largest value Set, Add and CompareAndSwap
	// store; a larger one is refused with ErrValueTooLarge (a cached
	// result that large then stays uncached). 0 or less means
	// DefaultMaxValueBytes (1 MiB).
	MaxValueBytes int
	// MaxLogEvents is about how many events each event log keeps, the
	// oldest trimmed first (Redis trims a stream in whole nodes, so a log
	// may hold somewhat more); 0 or less means DefaultMaxLogEvents.
	MaxLogEvents int
	// Logger receives what the store has to say of Redis's faults: the
	// concurrency slots it gave back once Redis answered again after an
	// outage (see Store.Admit). nil means slog.Default(). (go-redis's own
	// log lines go where LogTo sends them.)
	Logger *slog.Logger
}

// ErrValueTooLarge is the error of a value over Options.MaxValueBytes.
var ErrValueTooLarge = errors.New("redis: value larger than the store's MaxValueBytes")

// Store is a toolexec.Store on one Redis database. It is safe for
// concurrent use. Create one with New or Open.
type Store struct {
	rdb      goredis.UniversalClient
	owned    bool // Close closes rdb
	prefix   string
	maxValue int
	maxLog   int
	hub      *hub
	log      *slog.Logger
	// readTimeout is how long the client waits for an answer (0: no
	// bound), and rc gives back the slots of admissions and releases whose
	// answers never came (reclaim.go).
	readTimeout time.Duration
	rc          *reclaimer
}

var _ toolexec.Store = (*Store)(nil)

// New returns a Store on client, which the caller keeps and closes: a
// *goredis.Client (one server, or go-redis's failover client for Redis
// Sentinel) or a *goredis.ClusterClient (Redis Cluster; see
// Options.Prefix). It contacts nothing; Ping says whether Redis answers.
// For calls to give up on a Redis that stops answering at their own
// deadline, create the client with ContextTimeoutEnabled, as Open does.
func New(client goredis.UniversalClient, opts Options) *Store {
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if _, cluster := client.(*goredis.ClusterClient); cluster && !hashTagged(opts.Prefix) {
		opts.Prefix = withHashTag(opts.Prefix)
	}
	if opts.MaxValueBytes <= 0 {
		opts.MaxValueBytes = DefaultMaxValueBytes
	}
	if opts.MaxLogEvents <= 0 {
		opts.MaxLogEvents = DefaultMaxLogEvents
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Store{rdb: client, prefix: opts.Prefix, maxValue: opts.MaxValueBytes, maxLog: opts.MaxLogEvents,
		log: opts.Logger, readTimeout: readTimeoutOf(client)}
	s.hub = newHub(s)
	s.rc = newReclaimer(s)
	return s
}

// Open connects to the Redis that url names and checks, within ctx, that
// it answers; a Redis that cannot be reached is an error naming its
// address (never the URL's password). Two forms of URL are read:
//
//	redis://[user:password@]host:port[/db]    one server (rediss:// for TLS, or unix://)
//	redis+cluster://[user:password@]host:port[?addr=host:port&addr=host:port]
//	                                          Redis Cluster (rediss+cluster:// for TLS)
//
// A redis:// URL is read as go-redis's ParseURL reads it, options such as
// dial_timeout included. A redis+cluster:// URL names one or more of the
// cluster's nodes (the host, then any addr parameters), from which the
// client learns the others; the rest is read as go-redis's
// ParseClusterURL reads a redis:// URL, and a path other than /0 is an
// error, a cluster having database 0 only. On a cluster, the Store's
// prefix gets a hash tag (see Options.Prefix).
//
// The Store owns the connection: Close closes it. Calls give up on Redis
// at their context's deadline (ContextTimeoutEnabled), and a failed
// command is not retried, except on a cluster, where go-redis follows a
// node's MOVED and ASK redirections (that is how it learns where slots
// went after a failover or a resharding) up to max_redirects times, 3
// unless the URL says otherwise, and within that budget also tries a node
// that did not answer once more, then another. After a failure to reach
// Redis, operations fail at once with ErrUnavailable for
// a second before Redis is tried again, so that while Redis does not
// answer (a partition, a paused server) a replica waits for it about once
// a second, not once per call.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	client, addr, err := newClient(url)
	if err != nil {
		return nil, err
	}
	s := New(client, opts)
	s.owned = true
	if err := s.Ping(ctx); err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("redis: cannot reach Redis at %s: %w", addr, err)
	}
	sent := time.Now()
	if t, err := client.Time(ctx).Result(); err == nil { // Redis's clock, before the first admission
		s.rc.learn(sent, time.Now(), t.UnixMicro())
	}
	return s, nil
}

// urlForms is how an error about a URL says what Open reads.
const urlForms = "redis://[user:password@]host:port[/db] or redis+cluster://[user:password@]host:port[?addr=host:port...]"

// newClient creates the client of url, which contacts nothing yet, and
// says the addresses it will reach.
func newClient(url string) (goredis.UniversalClient, string, error) {
	if single, ok := clusterURL(url); ok {
		o, err := goredis.ParseClusterURL(single)
		if err != nil {
			return nil, "", fmt.Errorf("redis: the URL is not a Redis Cluster URL (%s): %w", urlForms, redactURLError(err, single))
		}
		if db := databasePath(single); db != "" && db != "0" {
			return nil, "", fmt.Errorf("redis: the URL names database %q, but a Redis Cluster has database 0 only", db)
		}
		o.ContextTimeoutEnabled = true
		o.MaxRetries = -1 // no retries: the caller decides what a failure means
		setTimeouts(&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout)
		c := goredis.NewClusterClient(o)
		// A breaker per node: a node that does not answer is not tried
		// again for a second (go-redis would try it again at once, up to
		// max_redirects times), and the client reloads the cluster's
		// state, in which a replica may have taken its place.
		c.OnNewNode(func(node *goredis.Client) {
			node.AddHook(&breaker{onOpen: func() { c.ReloadState(context.Background()) }})
		})
		return c, strings.Join(o.Addrs, ", "), nil
	}
	o, err := goredis.ParseURL(url)
	if err != nil {
		return nil, "", fmt.Errorf("redis: the URL is not a Redis URL (%s): %w", urlForms, redactURLError(err, url))
	}
	o.ContextTimeoutEnabled = true
	o.MaxRetries = -1 // no retries: the caller decides what a failure means
	setTimeouts(&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout)
	c := goredis.NewClient(o)
	c.AddHook(&breaker{})
	return c, o.Addr, nil
}

// setTimeouts sets to a second each duration the URL did not set: Redis
// answers in well under a millisecond, so a second without an answer is
// an outage, not a slow reply. (The URL may say otherwise:
// dial_timeout, read_timeout, write_timeout.)
func setTimeouts(ds ...*time.Duration) {
	for _, d := range ds {
		if *d == 0 {
			*d = time.Second
		}
	}
}

// clusterURL reports whether url is a redis+cluster:// or
// rediss+cluster:// URL, and returns it with the redis:// or rediss://
// scheme go-redis's ParseClusterURL reads.
func clusterURL(url string) (string, bool) {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return "", false
	}
	switch strings.ToLower(scheme) {
	case "redis+cluster":
		return "redis://" + rest, true
	case "rediss+cluster":
		return "rediss://" + rest, true
	}
	return "", false
}

// databasePath is the database number a URL's path names, "" for none.
func databasePath(rawURL string) string {
	u, err := neturl.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.Trim(u.Path, "/")
}

// hashTagged reports whether prefix holds a Redis Cluster hash tag, so
// that every key it starts hashes to one slot: a '{' and, later in the
// prefix, a '}', with at least one byte between the first '{' and the
// first '}' after it.
func hashTagged(prefix string) bool {
	i := strings.IndexByte(prefix, '{')
	return i >= 0 && strings.IndexByte(prefix[i+1:], '}') > 0
}

// withHashTag is prefix, which holds no hash tag, given one, as
// Options.Prefix documents.
func withHashTag(prefix string) string {
	if p := "{" + prefix + "}"; hashTagged(p) {
		return p
	}
	return "{toolexec}" + prefix // prefix begins with '}'
}

// redactURLError keeps url's text, which may hold a password, out of err:
// a *url.Error names "(the URL)" instead, and any other error whose text
// holds the URL, or its user information, in any quoting, is replaced by
// one that says only that the URL cannot be read.
func redactURLError(err error, url string) error {
	if url == "" || err == nil {
		return err
	}
	var ue *neturl.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s %s: %w", ue.Op, "(the URL)", ue.Err)
	}
	msg := err.Error()
	for _, secret := range secretsOf(url) {
		if strings.Contains(msg, secret) {
			return errors.New("the URL cannot be read")
		}
	}
	return err
}

// secretsOf returns the texts of url an error must not repeat: the URL,
// and its user information (between "://" and the last "@" before the
// path), each as written and as Go would quote it.
func secretsOf(url string) []string {
	texts := []string{url}
	if i := strings.Index(url, "://"); i >= 0 {
		rest := url[i+3:]
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			rest = rest[:j]
		}
		if at := strings.LastIndex(rest, "@"); at > 0 {
			texts = append(texts, rest[:at])
		}
	}
	for _, t := range texts[:len(texts):len(texts)] {
		q := strconv.Quote(t)
		texts = append(texts, q[1:len(q)-1])
	}
	return texts
}

// Ping reports whether Redis answers.
func (s *Store) Ping(ctx context.Context) error { return s.rdb.Ping(ctx).Err() }

// Close ends the store's subscriptions and, when Open made it, its
// connection to Redis.
func (s *Store) Close() error {
	s.hub.close()
	s.rc.close()
	if s.owned {
		return s.rdb.Close()
	}
	return nil
}

// key is the Redis key of a store key of kind.
func (s *Store) key(kind, key string) string { return s.prefix + kind + key }

// ms is d in whole milliseconds, rounded up, at least 1.
func ms(d time.Duration) int64 {
	n := (d + time.Millisecond - 1) / time.Millisecond
	return max(int64(n), 1)
}

// Get implements toolexec.Cache.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := s.rdb.Get(ctx, s.key("kv:", key)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// Set implements toolexec.Cache; ttl <= 0 keeps the value until Redis
// evicts it.
func (s *Store) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if len(value) > s.maxValue {
		return ErrValueTooLarge
	}
	return s.rdb.Set(ctx, s.key("kv:", key), value, expiry(ttl)).Err()
}

// expiry is ttl as Set sends it: whole milliseconds, at least one; 0 (no
// expiry) for ttl <= 0.
func expiry(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		return 0
	}
	return time.Duration(ms(ttl)) * time.Millisecond
}

// Add implements toolexec.KV.
func (s *Store) Add(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	if len(value) > s.maxValue {
		return false, ErrValueTooLarge
	}
	args := goredis.SetArgs{Mode: "NX"}
	if ttl > 0 {
		args.TTL = time.Duration(ms(ttl)) * time.Millisecond
	}
	err := s.rdb.SetArgs(ctx, s.key("kv:", key), value, args).Err()
	if errors.Is(err, goredis.Nil) {
		return false, nil
	}
	return err == nil, err
}

var casScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == '0' then
  redis.call('SET', KEYS[1], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 1`)

// CompareAndSwap implements toolexec.KV.
func (s *Store) CompareAndSwap(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	if len(value) > s.maxValue {
		return false, ErrValueTooLarge
	}
	px := int64(0)
	if ttl > 0 {
		px = ms(ttl)
	}
	n, err := casScript.Run(ctx, s.rdb, []string{s.key("kv:", key)}, old, value, px).Int()
	return n == 1, err
}

// Delete implements toolexec.KV.
func (s *Store) Delete(ctx context.Context, key string) error {
	return s.rdb.Del(ctx, s.key("kv:", key)).Err()
}

// admitScript is Limits.Admit: the GCRA state of the rate is a string (the
// theoretical arrival time, microseconds of Redis's clock), the slots a
// sorted set of lease ids scored by their expiry (milliseconds). Each
// answer ends with Redis's clock, NOW (microseconds): {0, 0, NOW} for an
// admitted call, {0, 1, NOW, value of KEYS[3]} for one whose read found a
// value (it takes no slot), {1, wait in microseconds, NOW} for one the
// rate refused, {2, 0, NOW} for one that found every slot held, and
// {3, 0, NOW} for one that arrived after ARGV[9], the moment its caller
// stopped waiting (microseconds of Redis's clock; 0: none), which
// changes nothing.
var admitScript = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local deadline = tonumber(ARGV[9])
if deadline > 0 and now > deadline then return {3, 0, now} end
local newtat
if ARGV[1] == '1' then
  local tat = tonumber(redis.call('GET', KEYS[1])) or now
  if tat < now then tat = now end
  newtat = tat + tonumber(ARGV[2])
  local over = newtat - now - tonumber(ARGV[3])
  if over > 0 then return {1, over, now} end
end
local value = false
if ARGV[8] == '1' then value = redis.call('GET', KEYS[3]) end
if ARGV[4] == '1' and not value then
  local nowms = math.floor(now / 1000)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowms)
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return {2, 0, now} end
  local ttl = tonumber(ARGV[6])
  redis.call('ZADD', KEYS[2], nowms + ttl, ARGV[7])
  if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
end
if ARGV[1] == '1' then
  redis.call('SET', KEYS[1], string.format('%d', newtat), 'PX', math.ceil((newtat - now) / 1000) + 1)
end
if value then return {0, 1, now, value} end
return {0, 0, now}`)

// errLate is Admit's error for an admission that reached Redis after its
// caller's deadline (as the store knows Redis's clock), which took nothing.
var errLate = errors.New("redis: the admission reached Redis after its caller's deadline")

// Admit implements toolexec.Limits, in one round trip. An admission
// carries the moment its caller stops waiting for the answer (ctx's
// deadline, or the client's read timeout), in Redis's clock, and takes
// nothing when it reaches Redis later than that: a Redis that stopped
// answering runs what waited in its buffers when it answers again, long
// after the callers gave up. A slot the admission may have taken without
// the answer reaching the caller is given back once Redis answers again
// (logged at warning level), and so is a slot whose Release failed.
func (s *Store) Admit(ctx context.Context, a toolexec.AdmitRequest) (toolexec.AdmitResult, error) {
	rateKey, slotKey := s.key("", "norate"), s.key("", "noslot")
	rate, interval, tolerance := "0", int64(0), int64(0)
	if a.RateKey != "" {
		if iv, tol, ok := gcraParams(a.Rate); ok {
			rateKey, rate, interval, tolerance = s.key("", a.RateKey), "1", iv, tol
		}
	}
	slot, lease := "0", ""
	if a.SlotKey != "" {
		slotKey, slot, lease = s.key("", a.SlotKey), "1", newLeaseID()
	}
	readKey, read := s.key("", "noread"), "0"
	if a.Read != "" {
		readKey, read = s.key("kv:", a.Read), "1"
	}
	if rate == "0" && slot == "0" {
		if read == "0" {
			return toolexec.AdmitResult{}, nil
		}
		v, ok, err := s.Get(ctx, a.Read)
		return toolexec.AdmitResult{Value: v, Found: ok}, err
	}
	sent := time.Now()
	giveUp := s.giveUp(ctx, sent)
	res, err := admitScript.Run(ctx, s.rdb, []string{rateKey, slotKey, readKey},
		rate, interval, tolerance, slot, a.SlotMax, ms(a.SlotTTL), lease, read, s.rc.redisTime(giveUp)).Slice()
	if err != nil {
		if lease != "" && mayHaveReached(err) {
			// The script may run, or have run, without its answer reaching
			// this caller: give its slot back once its moment has passed.
			s.rc.add(a.SlotKey, lease, later(giveUp).Add(reclaimMargin))
		}
		return toolexec.AdmitResult{}, err
	}
	if len(res) < 3 {
		return toolexec.AdmitResult{}, fmt.Errorf("redis: admit answered %v", res)
	}
	code, _ := res[0].(int64)
	wait, _ := res[1].(int64)
	now, _ := res[2].(int64)
	s.rc.learn(sent, time.Now(), now)
	switch code {
	case 1:
		return toolexec.AdmitResult{RateWait: time.Duration(wait) * time.Microsecond}, nil
	case 2:
		return toolexec.AdmitResult{SlotsFull: true}, nil
	case 3:
		return toolexec.AdmitResult{}, errLate
	}
	if len(res) == 4 { // answered from the value read: no slot taken
		v, _ := res[3].(string)
		return toolexec.AdmitResult{Value: []byte(v), Found: true}, nil
	}
	return toolexec.AdmitResult{Lease: lease}, nil
}

// later is t, or now when t is zero.
func later(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// gcraParams are the rate's emission interval and burst tolerance in
// microseconds (Redis's clock), at least one each, as
// toolexec.RateLimit documents them.
func gcraParams(l toolexec.RateLimit) (interval, tolerance int64, ok bool) {
	iv, tol, ok := gcra.Params(l.Rate, l.Per, l.Burst)
	if !ok {
		return 0, 0, false
	}
	return max(iv.Microseconds(), 1), max(tol.Microseconds(), 1), true
}

var renewScript = goredis.NewScript(`
local t = redis.call('TIME')
local nowms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local score = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if not score or score <= nowms then return 0 end
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], nowms + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`)

// RenewSlot implements toolexec.Limits.
func (s *Store) RenewSlot(ctx context.Context, key, lease string, ttl time.Duration) (bool, error) {
	n, err := renewScript.Run(ctx, s.rdb, []string{s.key("", key)}, lease, ms(ttl)).Int()
	return n == 1, err
}

// Release implements toolexec.Limits, in one round trip: the value's SET
// then the slot's ZREM, pipelined (so that a call taking the slot finds
// the value). A value over MaxValueBytes is not stored
// (ErrValueTooLarge), and the slot is given back all the same.
func (s *Store) Release(ctx context.Context, r toolexec.ReleaseRequest) error {
	err := s.release(ctx, r)
	if r.Lease != "" && err != nil && !errors.Is(err, ErrValueTooLarge) {
		var reply goredis.Error
		if !errors.As(err, &reply) {
			// Not given back (Redis did not answer): it is, once Redis
			// answers again, rather than held until its lease runs out.
			s.rc.add(r.SlotKey, r.Lease, time.Now().Add(reclaimMargin))
		}
	}
	return err
}

func (s *Store) release(ctx context.Context, r toolexec.ReleaseRequest) error {
	var tooLarge error
	if r.Write != "" && len(r.Value) > s.maxValue {
		r.Write, tooLarge = "", ErrValueTooLarge
	}
	switch {
	case r.Lease != "" && r.Write != "":
		_, err := s.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
			// Stored first (Redis runs a pipeline in order): a call that
			// takes the slot given back finds the value.
			p.Set(ctx, s.key("kv:", r.Write), r.Value, expiry(r.TTL))
			p.ZRem(ctx, s.key("", r.SlotKey), r.Lease)
			return nil
		})
		return err
	case r.Lease != "":
		if err := s.rdb.ZRem(ctx, s.key("", r.SlotKey), r.Lease).Err(); err != nil {
			return err
		}
	case r.Write != "":
		return s.Set(ctx, r.Write, r.Value, r.TTL)
	}
	return tooLarge
}

// publishScript is PUBLISH, run as a script that names the channel as its
// key (it touches no key): a cluster client sends a script to the node of
// its key's hash slot, so that all of a store's messages, whose channels
// share the prefix's hash tag, leave from one node, in the order they
// were published, where a plain PUBLISH would leave from any node.
var publishScript = goredis.NewScript(`return redis.call('PUBLISH', KEYS[1], ARGV[1])`)

// Publish implements toolexec.PubSub.
func (s *Store) Publish(ctx context.Context, channel string, message []byte) error {
	return publishScript.Run(ctx, s.rdb, []string{s.key("ch:", channel)}, message).Err()
}

// Subscribe implements toolexec.PubSub. All of a Store's subscriptions
// share one Redis connection, which go-redis reconnects (and subscribes
// again) after a failure; messages published meanwhile are lost.
func (s *Store) Subscribe(ctx context.Context, channel string, fn func([]byte)) (func(), error) {
	return s.hub.subscribe(ctx, s.key("ch:", channel), fn)
}

// appendScript is EventLog.AppendEvent: the event added to the log's
// stream (trimmed to about ARGV[3] events), the log kept ARGV[2]
// milliseconds, and watchers told on the log's channel.
var appendScript = goredis.NewScript(`
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', 'd', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[4], id)
return id`)

// AppendEvent implements toolexec.EventLog, in one round trip.
func (s *Store) AppendEvent(ctx context.Context, stream string, data []byte, ttl time.Duration) (string, error) {
	return appendScript.Run(ctx, s.rdb, []string{s.key("log:", stream)},
		data, ms(ttl), s.maxLog, s.key("logch:", stream)).Text()
}

// ReadEvents implements toolexec.EventLog, in one round trip.
func (s *Store) ReadEvents(ctx context.Context, stream, after string, max int) ([]toolexec.Event, bool, error) {
	key := s.key("log:", stream)
	if after == "" {
		var msgs []goredis.XMessage
		var err error
		if max > 0 {
			msgs, err = s.rdb.XRangeN(ctx, key, "-", "+", int64(max)).Result()
		} else {
			msgs, err = s.rdb.XRange(ctx, key, "-", "+").Result()
		}
		if err != nil {
			return nil, false, err
		}
		return events(msgs), true, nil
	}
	if !streamID(after) {
		return nil, false, nil
	}
	pipe := s.rdb.Pipeline()
	self := pipe.XRangeN(ctx, key, after, after, 1)
	var rest *goredis.XMessageSliceCmd
	if max > 0 {
		rest = pipe.XRangeN(ctx, key, "("+after, "+", int64(max))
	} else {
		rest = pipe.XRange(ctx, key, "("+after, "+")
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, false, err
	}
	if len(self.Val()) == 0 {
		return nil, false, nil
	}
	return events(rest.Val()), true, nil
}

// streamID reports whether id has the form of a Redis stream id, MS-SEQ.
func streamID(id string) bool {
	msPart, seq, ok := strings.Cut(id, "-")
	if !ok {
		return false
	}
	_, err1 := strconv.ParseUint(msPart, 10, 64)
	_, err2 := strconv.ParseUint(seq, 10, 64)
	return err1 == nil && err2 == nil
}

// newLeaseID returns a fresh random lease id.
func newLeaseID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

func events(msgs []goredis.XMessage) []toolexec.Event {
	out := make([]toolexec.Event, 0, len(msgs))
	for _, m := range msgs {
		d, _ := m.Values["d"].(string)
		out = append(out, toolexec.Event{ID: m.ID, Data: []byte(d)})
	}
	return out
}

// WatchEvents implements toolexec.EventLog.
func (s *Store) WatchEvents(ctx context.Context, stream string, notify func()) (func(), error) {
	return s.hub.subscribe(ctx, s.key("logch:", stream), func([]byte) { notify() })
}
