package testserver

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// PostgresBin finds the directory of PostgreSQL's programs: the newest
// /usr/lib/postgresql/*/bin with initdb (the Debian postgresql package's),
// else the directory of initdb on PATH; "" when there is none.
func PostgresBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

// Postgres is a throw-away PostgreSQL cluster in a temporary directory,
// run as the postgres user when this process is root (PostgreSQL refuses
// to run as root). Its owner initialises it (initdb, through Command, with
// the authentication it wants), then starts it with Start; Stop removes
// everything.
type Postgres struct {
	// Dir is the temporary directory; Data, the cluster's data directory,
	// is in it.
	Dir, Data string
	// Port is where the server listens on 127.0.0.1, once started.
	Port     int
	bin      string
	asUser   []string
	watchdog func()
}

// NewPostgres makes a temporary directory named for prefix holding an
// empty data directory and, for each of writable, a directory the server
// may write in (the postgres user's, as root), for PostgreSQL's programs
// in bin (PostgresBin).
func NewPostgres(bin, prefix string, writable ...string) (*Postgres, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	p := &Postgres{Dir: dir, Data: filepath.Join(dir, "data"), bin: bin}
	owned := []string{p.Data}
	for _, w := range writable {
		owned = append(owned, filepath.Join(dir, w))
	}
	for i, d := range owned {
		perm := os.FileMode(0o755)
		if i == 0 {
			perm = 0o700 // initdb wants the data directory its owner's alone
		}
		if err := os.Mkdir(d, perm); err != nil {
			p.Stop()
			return nil, err
		}
	}
	root, err := ServiceUser("postgres", dir, owned...)
	if err != nil {
		p.Stop()
		return nil, err
	}
	if root {
		p.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	return p, nil
}

// Command is the PostgreSQL program name (initdb, pg_ctl, createdb,
// postgres …) with args, run in Dir as the server's user, writing its
// output to out.
func (p *Postgres) Command(out *bytes.Buffer, name string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, p.asUser...), filepath.Join(p.bin, name)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Dir = p.Dir
	return cmd
}

// LogPath is the server's log file.
func (p *Postgres) LogPath() string { return filepath.Join(p.Data, "server.log") }

// Start starts the initialised cluster on a free port of 127.0.0.1 (its
// socket in Data), with durability off, as a throw-away server needs, and
// each of settings (NAME=VALUE, as postgres -c takes them), and waits
// until it accepts sessions. A watchdog stops it and removes Dir should
// this process die before Stop.
func (p *Postgres) Start(settings ...string) error {
	port, err := FreePort()
	if err != nil {
		return err
	}
	p.Port = port
	opts := fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c full_page_writes=off -c synchronous_commit=off", port, p.Data)
	for _, s := range settings {
		opts += " -c " + s
	}
	// pg_ctl starts the server detached, logging to a file, and -w waits
	// until it accepts sessions.
	var out bytes.Buffer
	if err := p.Command(&out, "pg_ctl", "-D", p.Data, "-l", p.LogPath(), "-o", opts, "-w", "-t", "60", "start").Run(); err != nil {
		log, _ := os.ReadFile(p.LogPath())
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out.String(), log)
	}
	stop := append(append([]string{}, p.asUser...), filepath.Join(p.bin, "pg_ctl"), "-D", p.Data, "-m", "immediate", "-w", "stop")
	for i, arg := range stop {
		stop[i] = shellQuote(arg)
	}
	p.watchdog = Watchdog(fmt.Sprintf("if [ -d %s ]; then %s >/dev/null 2>&1; rm -rf %s; fi",
		shellQuote(p.Data), strings.Join(stop, " "), shellQuote(p.Dir)))
	return nil
}

// Stop stops the server, if it runs (an immediate shutdown), and removes
// Dir.
func (p *Postgres) Stop() {
	if _, err := os.Stat(filepath.Join(p.Data, "postmaster.pid")); err == nil {
		var out bytes.Buffer
		_ = p.Command(&out, "pg_ctl", "-D", p.Data, "-m", "immediate", "-w", "-t", "30", "stop").Run()
	}
	if p.watchdog != nil {
		p.watchdog()
	}
	_ = os.RemoveAll(p.Dir)
}
