# toolexec: `make run` starts the example server, `make test` runs every test.
GO      ?= go
# Every Go module in the repository (the library, bench/, interop/, ...).
MODULES := $(shell find . -name go.mod -not -path './.git/*' -not -path './.cache/*' -exec dirname {} \; | sort)

.PHONY: run test deps vet lint doccheck bench fuzz soak tidy conformance

FUZZTIME ?= 20s

run:
	cd examples && $(GO) run ./server

# Installs the Debian packages make test needs besides Go and git (.ci/deps
# lists them and why); run it as root: sudo make deps.
deps:
	.ci/deps

test: lint
	@set -e; for m in $(MODULES); do \
		echo "== go test -race $$m"; \
		(cd $$m && $(GO) test -race -count=1 ./...); \
	done
	@$(MAKE) --no-print-directory conformance

# Runs the official MCP conformance suite against interop/cmd/conformance-server
# at 2025-11-25 and 2026-07-28, with the expected failures of
# interop/conformance/; installs Node 22 and the pinned suites under .cache/
# with npm the first time.
conformance:
	interop/conformance/run.sh

vet:
	@set -e; for m in $(MODULES); do (cd $$m && $(GO) vet ./...); done

# The one Go version every go.mod states, and the README names.
GOVERSION := 1.26
# The linters, pinned, run with go run (the Go module proxy serves them).
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
ERRCHECK    := github.com/kisielk/errcheck@v1.30.0

# gofmt, go vet, staticcheck and errcheck over every module (errcheck on
# non-test code; .errcheck-excludes says what it does not ask for, and
# why), one Go version everywhere, and the documents' check
# (internal/cmd/doccheck): every ```go block quoted from a compiled Go
# file, every relative link resolving. make test runs it first.
lint: vet doccheck
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@bad=$$(grep -H '^go ' $$(git ls-files '*go.mod') | grep -v 'go $(GOVERSION)\.0$$' || true); \
		if [ -n "$$bad" ]; then echo "every go.mod must state go $(GOVERSION).0:"; echo "$$bad"; exit 1; fi
	@grep -q 'Go $(GOVERSION) or newer' README.md || { echo "README.md must say: Go $(GOVERSION) or newer"; exit 1; }
	@set -e; for m in $(MODULES); do \
		echo "== staticcheck, errcheck $$m"; \
		(cd $$m && $(GO) run $(STATICCHECK) ./... && $(GO) run $(ERRCHECK) -ignoretests -exclude $(CURDIR)/.errcheck-excludes ./...); \
	done

doccheck:
	@$(GO) run ./internal/cmd/doccheck

tidy:
	@set -e; for m in $(MODULES); do (cd $$m && $(GO) mod tidy); done

# Runs every benchmark scenario against every contender and the harness
# alone in one process, and prints tables net of the harness and the
# performance targets (docs/performance.md); then compares `toolexec serve`
# with mcp-toolbox (installed with npm under .cache/ the first time, about
# 300 MB; skipped, saying why, without npm) on SQLite and a throw-away
# PostgreSQL. BENCHFLAGS passes flags, e.g.
# BENCHFLAGS='-rounds 9 -benchtime 200ms -loadtime 6s'.
bench:
	cd bench && $(GO) run ./cmd/benchtable $(BENCHFLAGS)

# Runs every fuzz target of every module for FUZZTIME each (the plain test
# run only replays the committed corpora under testdata/fuzz).
fuzz:
	@set -e; for m in $(MODULES); do (cd $$m && for pkg in $$($(GO) list ./...); do \
		for fz in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$fz"; $(GO) test -run '^$$' -fuzz "^$$fz$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; done); done

# The load and leak test of examples/server in its long form: 200 clients,
# 100,000 calls, and the hostile mix for a minute; then the densest hostile
# body at the full 1 MiB limit on every surface (the short forms run in
# `make test`).
soak:
	cd examples && TOOLEXEC_SOAK=1 $(GO) test -race -count=1 -run '^TestLoad' -timeout 20m -v ./server
	TOOLEXEC_SOAK=1 $(GO) test -race -count=1 -run '^TestAnswersToTheLargestHostileBodyAreBounded$$' -v .
	TOOLEXEC_SOAK=1 $(GO) test -race -count=1 -run '^TestValidationMemoryIsBoundedOnFailureDenseBodies$$' -v ./internal/schema

.PHONY: serve-declarative bench-sql cluster chaos

# Serves examples/declarative/tools.yaml (SQLite and HTTP-API tools, no Go
# code) with the toolexec command on 127.0.0.1:5000 (cmd/toolexec/README.md).
serve-declarative:
	cd cmd/toolexec && $(GO) run . serve --config ../../examples/declarative/tools.yaml

# Starts three replicas of `toolexec serve --redis` (examples/declarative's
# tools), a Redis they share and HAProxy in front, on 127.0.0.1:5000, until
# Ctrl-C (docs/scale.md). Needs redis-server and haproxy.
cluster:
	examples/cluster/run.sh

# The fault drill of docs/scale.md (about 90 s, loopback only): three
# replicas of `toolexec serve --redis`, Redis and HAProxy under a bounded
# mixed load; kills a replica, pauses Redis, restarts it empty, reloads
# HAProxy, one after another, and prints a table per fault. Needs
# redis-server and haproxy. Not part of make test. CHAOSFLAGS passes
# flags (-v, -keep).
chaos:
	cd interop && $(GO) run ./cmd/chaos $(CHAOSFLAGS)

# Prints the cost of a SQL tool call (SQLite, one indexed row, through
# Executor.Call) over the same query through database/sql alone.
bench-sql:
	cd cmd/toolexec && TOOLEXEC_BENCH_SQL=1 $(GO) test -v -count=1 -run '^TestSQLToolBenchRatio$$' ./internal/server
