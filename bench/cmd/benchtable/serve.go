package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolexec/toolexec/bench"
	"github.com/toolexec/toolexec/bench/external"
)

// The databases and client counts of the side-by-side comparison of
// `toolexec serve` with mcp-toolbox.
var (
	serveDatabases = []string{"SQLite", "PostgreSQL"}
	serveClients   = []int{1, 16}
)

// serveScenario names one scenario of the comparison.
func serveScenario(db string, clients int) string {
	return fmt.Sprintf("serve vs mcp-toolbox, %s, %d clients", db, clients)
}

// server is one server program's figures on one database.
type server struct {
	name, database, version string
	size                    int64
	startups                []time.Duration
	mem                     external.Memory
}

// compareServers runs the comparison of `toolexec serve`, built from this
// tree, with mcp-toolbox and with its floor (bench/cmd/servefloor), each a
// process of its own serving the same tools file: start-up, loopback load
// at each of serveClients, memory and binary size, on SQLite and on a
// throw-away PostgreSQL. What it cannot run (no npm for mcp-toolbox, no
// PostgreSQL) it leaves out and says so in res's notes.
func compareServers(o options, res *results, log io.Writer) {
	selected := func(db string) bool {
		for _, c := range serveClients {
			if o.only == "" || strings.Contains(serveScenario(db, c), o.only) {
				return true
			}
		}
		return false
	}
	if !slices.ContainsFunc(serveDatabases, selected) {
		return
	}
	ctx := context.Background()
	root, err := repoRoot()
	if err != nil {
		fatal(err)
	}
	tmp, err := os.MkdirTemp("", "toolexec-benchtable-")
	if err != nil {
		fatal(err)
	}
	defer func() { _ = os.RemoveAll(tmp) }() // a temporary directory; the OS cleans what is left

	fmt.Fprintln(log, "building toolexec serve...")
	te, err := external.BuildToolexec(ctx, root, tmp)
	if err != nil {
		fatal(err)
	}
	fmt.Fprintln(log, "building the serve floor...")
	fl, err := external.BuildFloor(ctx, root, tmp)
	if err != nil {
		fatal(err)
	}
	bins := []external.Binary{te}
	var tb external.Binary
	switch o.toolbox {
	case "off":
		err = errors.New("left out (-toolbox off)")
	case "":
		tb, err = external.InstallToolbox(ctx, root, func(s string) { fmt.Fprintln(log, s+"...") })
	default:
		tb, err = external.Toolbox(ctx, o.toolbox)
	}
	if err != nil {
		res.note(fmt.Sprintf("%s skipped: %v", external.ToolboxName, err))
		fmt.Fprintf(log, "%s skipped: %v\n", external.ToolboxName, err)
	} else {
		bins = append(bins, tb)
	}
	bins = append(bins, fl) // last: serveLoad runs it right beside toolexec
	for _, b := range bins {
		res.note(fmt.Sprintf("%s: version %s", b.Name, b.Version))
	}

	for _, db := range serveDatabases {
		if !selected(db) {
			continue
		}
		dir := filepath.Join(tmp, strings.ToLower(db))
		if err := os.Mkdir(dir, 0o755); err != nil {
			fatal(err)
		}
		var pg *external.Postgres
		var config string
		if db == "PostgreSQL" {
			fmt.Fprintln(log, "starting a throw-away PostgreSQL...")
			pg, err = external.StartPostgres()
			if err != nil {
				res.note(fmt.Sprintf("PostgreSQL scenarios skipped: %v", err))
				fmt.Fprintf(log, "PostgreSQL scenarios skipped: %v\n", err)
				continue
			}
			res.note(fmt.Sprintf("PostgreSQL %s on 127.0.0.1, password authentication (scram-sha-256)", pg.Version))
			config, err = external.WritePostgres(ctx, dir, pg)
		} else {
			config, err = external.WriteSQLite(ctx, dir)
		}
		if err == nil {
			err = serveDatabase(db, bins, config, pg, o, res, log)
		}
		if pg != nil {
			pg.Stop()
		}
		if err != nil {
			fatal(err)
		}
	}
}

// serveDatabase measures bins on one database: start-up, then each
// selected client count, then memory.
func serveDatabase(db string, bins []external.Binary, config string, pg *external.Postgres, o options, res *results, log io.Writer) error {
	fmt.Fprintf(log, "starting the servers on %s (%d measured starts each)...\n", db, o.startups)
	figs := make([]*server, len(bins))
	procs := make([]*external.Process, len(bins))
	defer func() {
		for _, p := range procs {
			if p != nil {
				p.Stop()
			}
		}
	}()
	for i, b := range bins {
		size, err := b.Size()
		if err != nil {
			return err
		}
		figs[i] = &server{name: b.Name, database: db, version: b.Version, size: size}
	}
	// A first start of each, unmeasured, brings its binary into the page
	// cache; then starts alternate, and the last one of each keeps
	// running for the load.
	for n := -1; n < o.startups; n++ {
		for k := range bins {
			i := k
			if n%2 != 0 {
				i = len(bins) - 1 - k
			}
			p, err := bins[i].Start(config, external.CallRequest(), external.CheckAnswer, time.Minute)
			if err != nil {
				return fmt.Errorf("%s: %w", db, err)
			}
			if n >= 0 {
				figs[i].startups = append(figs[i].startups, p.Startup)
			}
			if n < o.startups-1 {
				p.Stop()
				continue
			}
			procs[i] = p
		}
	}
	for _, clients := range serveClients {
		name := serveScenario(db, clients)
		if o.only != "" && !strings.Contains(name, o.only) {
			continue
		}
		fmt.Fprintf(log, "running %s...\n", name)
		s, err := serveLoad(name, procs, pg, clients, o)
		if err != nil {
			return err
		}
		res.add(s)
	}
	for i, p := range procs {
		m, err := p.Memory()
		if err != nil {
			return err
		}
		figs[i].mem = m
		res.servers = append(res.servers, figs[i])
	}
	return nil
}

// serveLoad drives each process over loopback with clients keep-alive
// clients, in o.rounds rounds, each run right after the other, so that
// ratios can be taken within rounds (see serveOrder). Around each
// measured run it reads the server's CPU time and, on PostgreSQL, the
// database server's CPU time and sessions opened.
func serveLoad(name string, procs []*external.Process, pg *external.Postgres, clients int, o options) (*scenario, error) {
	s := &scenario{name: name, kind: kindServe, database: pg != nil}
	for _, p := range procs {
		s.rows = append(s.rows, row{contender: p.Binary.Name, floor: external.ToolboxName, obs: make([]obs, o.rounds)})
	}
	for r := range o.rounds {
		for _, i := range serveOrder(len(procs), r) {
			ob, lat, err := serveRun(procs[i], pg, clients, o)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", name, procs[i].Binary.Name, err)
			}
			s.rows[i].obs[r] = ob
			s.rows[i].latencies = append(s.rows[i].latencies, lat...)
		}
	}
	return s, nil
}

// serveOrder is the order of round r over n processes: toolexec (0),
// mcp-toolbox (1, when there is one) and the floor (last). toolexec runs
// right beside each of the others in every round, and which of a pair
// runs first alternates from round to round: mcp-toolbox, toolexec, the
// floor in even rounds; the floor, toolexec, mcp-toolbox in odd ones.
func serveOrder(n, r int) []int {
	order := make([]int, 0, n)
	if n > 2 {
		order = append(order, 1)
	}
	order = append(order, 0)
	if n > 1 {
		order = append(order, n-1)
	}
	if r%2 == 1 {
		slices.Reverse(order)
	}
	return order
}

// serveRun is one process's run in one round.
func serveRun(p *external.Process, pg *external.Postgres, clients int, o options) (obs, []time.Duration, error) {
	var srv0, srv1, db0, db1 time.Duration
	var sess0, sess1 int64
	var errs []error
	read := func(srv, db *time.Duration, sess *int64) {
		var err error
		*srv, err = p.CPU()
		errs = append(errs, err)
		if pg != nil {
			*db, err = pg.CPU()
			errs = append(errs, err)
			*sess, err = pg.Sessions()
			errs = append(errs, err)
		}
	}
	opts := bench.LoadOptions{Clients: clients, Duration: o.loadtime / time.Duration(o.rounds),
		MaxCalls: max(o.maxCalls/o.rounds, clients), Warmup: 20, Check: external.QuickCheck,
		Around: func(measured func()) {
			read(&srv0, &db0, &sess0)
			measured()
			read(&srv1, &db1, &sess1)
		}}
	res, err := bench.Drive(p.URL, external.CallRequest(), opts)
	if err == nil {
		err = errors.Join(errs...)
	}
	if err == nil && res.Errors > 0 {
		err = fmt.Errorf("%d failed requests, such as: %v", res.Errors, res.FirstError)
	}
	if err == nil && p.Exited() {
		err = fmt.Errorf("it exited: %s", p.Output())
	}
	if err != nil {
		return obs{}, nil, err
	}
	n := float64(res.Requests)
	if n == 0 {
		return obs{}, nil, errors.New("no request was answered")
	}
	ob := obs{
		rps:      res.RPS(),
		wall:     float64(res.Elapsed.Nanoseconds()) / n,
		srv:      float64(srv1-srv0) / n,
		db:       float64(db1-db0) / n,
		sessions: float64(sess1 - sess0),
		calls:    n,
	}
	// Everything the machine spent on a call that can be read: the
	// clients (this process), the server, and PostgreSQL.
	ob.cpu = float64(res.CPU.Nanoseconds())/n + ob.srv + ob.db
	return ob, res.Latencies, nil
}

// repoRoot is the repository's root: the nearest directory, from the
// working one up, that holds cmd/toolexec/go.mod (make bench runs in
// bench/).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "cmd", "toolexec", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find the repository root (cmd/toolexec/go.mod) from the working directory")
		}
		dir = parent
	}
}
