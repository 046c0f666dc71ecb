# stablerow — see README.md. Every target installs what it needs through the
# Go module proxy; gcc must be present for cgo (pg_query_go).
GO        ?= go
DEMO_DIR  ?= $(CURDIR)/.demo
PKGS      := ./...
FUZZTIME  ?= 10s
# One worker: with two on a 2-core machine the fuzzer has been seen to stall.
FUZZPARALLEL ?= 1

.PHONY: all demo install test test-steps test-load test-s3 test-short test-long bench bench-scale bench-beam bench-window fuzz fuzz-deep lint clean difftest tpch tpch-ddl tpcds

all: lint test

demo:
	$(GO) run ./cmd/stablerow demo -d $(DEMO_DIR)

# stablerow is two binaries in one directory: the default build (the query
# path: sql -e, substrait, demo, inspect, vacuum) and stablerow-full, the
# same command with the Flight SQL server, the S3 store and the line
# editor, which stablerow runs for serve, s3:// and a prompt on a terminal
# (cmd/stablerow/lean.go says why).
BINDIR ?= $(or $(shell $(GO) env GOBIN),$(shell $(GO) env GOPATH)/bin)
install:
	$(GO) build -o $(BINDIR)/stablerow ./cmd/stablerow
	$(GO) build -tags stablerow_full -o $(BINDIR)/stablerow-full ./cmd/stablerow

# All tests, race detector on, bounded sizes (-short keeps big fixtures out);
# then the DuckDB peer module's own tests (its own go.mod; first build
# fetches duckdb-go's static libraries). The Beam module's tests are in
# beam/pipeline (its commands have none; under -race they would only
# compile the Dataflow and GCS clients beamx pulls in; lint vets them);
# scripts/beam-race-test.sh says why it may run them twice. The run ends
# with a summary line of the Go test packages that passed, failed and had
# no tests, however it ended (scripts/test-summary.sh).
test:
	@scripts/test-summary.sh $(MAKE) --no-print-directory test-steps

test-steps:
	$(GO) test -race -short -count=1 -timeout 15m $(PKGS)
	$(GO) test -short -count=1 -timeout 15m ./sqltest/
	$(GO) test -race -short -count=1 -timeout 15m -tags stablerow_full -run '^TestServe' ./cmd/stablerow/
	cd table/store/s3store/s3test && $(GO) test -race -short -count=1 -timeout 10m ./...
	cd server/adbctest && $(GO) test -race -short -count=1 -timeout 10m ./...
	scripts/beam-race-test.sh
	cd bench/lance && npm ci --no-audit --no-fund --loglevel=error
	cd bench && $(GO) test -short -count=1 -timeout 10m ./...
	@if scripts/versitygw-test.sh -check; then S3_ROUNDS=1 scripts/versitygw-test.sh; \
	  else echo "make test: the tests against a real S3 server skipped: versitygw is not installed (make test-s3 installs it)"; fi

# The S3 store and a database on S3 against a real S3 server process
# (Versity Gateway v1.8.0, go-installed by the script on first use: ~6 min
# to build on 2 cores): every s3test test (lifecycle equal to local disk,
# engine by URI, request counts), then the 16-process commit and the
# kill-the-server tests S3_ROUNDS times.
S3_ROUNDS ?= 20
test-s3:
	S3_ROUNDS=$(S3_ROUNDS) scripts/versitygw-test.sh

# The full matrices that make test (-short, under the race detector) runs
# a rotating part of: every parallel and serial grace hash join at every
# memory limit, both bit flips of every data-file byte (~2.5 min on 2
# cores, without the detector). CI runs it.
test-long:
	$(GO) test -count=1 -timeout 20m -run '^TestHashJoinGrace(Parallel|Spill)$$' ./exec/
	$(GO) test -count=1 -timeout 20m -run '^TestDataFileEveryByteFlipped$$' ./table/

test-short:
	$(GO) test -short -count=1 $(PKGS)

# The Flight SQL server under load (issue 32; build tag load, not in make
# test or CI): 32 clients of hash joins, GROUP BYs and sorts over a 10M-row
# table (kept in LOAD_DB) and a SELECT 1 prober for LOAD_DURATION; prints
# the server's peak RSS, the prober's p50/p95/p99, the light priority's
# parks, Go's scheduler latency and GC pauses, and the machine's load
# average before and after. LOAD_SERVE_ARGS adds serve flags
# ("-server-memory unlimited": the server without a budget;
# "-light-priority=false": heavy statements never park).
LOAD_DB       ?= $(CURDIR)/.loaddb
LOAD_DURATION ?= 2m
test-load:
	LOAD_DB=$(LOAD_DB) LOAD_DURATION=$(LOAD_DURATION) $(GO) test -tags load,stablerow_full -count=1 -timeout 60m -run TestServeLoad -v ./cmd/stablerow/

# Library benchmarks, then stablerow, DuckDB and LanceDB side by side on the
# same data (bench/: checked against the generator model first, medians,
# ratios, a PNG plot). LanceDB runs under Node: npm ci installs
# @lancedb/lancedb 0.31.0 into bench/lance (PEERBENCH_ARGS='-lance ""'
# leaves it out).
PEERBENCH_ARGS ?=
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x -timeout 30m $(PKGS) | tee bench.out
	cd bench/lance && npm ci --no-audit --no-fund
	cd bench && $(GO) run ./cmd/peerbench -rows 1000000,10000000 -out ../bench-report.md -plot ../docs/bench.png -summary ../bench-summary.md $(PEERBENCH_ARGS)
	cd bench && $(GO) run ./cmd/flightbench -rows 1000000,10000000 -ids 10000,1000000 -clients 1,4,16 | tee ../flightbench.out

# Take by row id at scale (issue 17): tables of SCALE_ROWS rows on local
# disk (kept in SCALE_DIR and reused; 100M rows need ~2 GB), cold and warm
# takes, RSS, index/rowmap bytes per row; the same takes on S3 against
# Versity Gateway (the pinned version, installed when missing) for
# SCALE_S3_ROWS; a report (scale-report.md) and a log-log plot (docs/scale.png).
SCALE_ROWS    ?= 1000000,10000000,100000000
SCALE_S3_ROWS ?= 1000000,10000000,100000000
SCALE_DIR     ?= $(CURDIR)/.scale
bench-scale:
	vgw=$$(scripts/versitygw-test.sh -path) && cd bench && $(GO) run ./cmd/scalebench -rows $(SCALE_ROWS) \
	  -s3-rows $(SCALE_S3_ROWS) -dir $(SCALE_DIR) -versitygw "$$vgw" -out ../scale-report.md -plot ../docs/scale.png

# TPC-H (issue 18): generate the data at TPCH_SF into TPCH_DIR (once, as
# Parquet; reused), load DuckDB and stablerow from the same files, run the
# 22 queries on both (stablerow from SQL and from each query's binary
# Substrait plan), check every answer against DuckDB's and write the
# per-query times to tpch-report.md. SF 1 needs ~1 GB of files and ~6 GB
# of memory for both engines. The tables have the specification's DDL
# (CHAR(n), VARCHAR(n), INTEGER keys); TPCH_DDL=text for TEXT and BIGINT.
TPCH_SF   ?= 1
TPCH_DIR  ?= $(CURDIR)/.tpch
TPCH_DDL  ?= spec
TPCH_ARGS ?=
tpch:
	cd bench && $(GO) run ./cmd/tpch -sf $(TPCH_SF) -dir $(TPCH_DIR) -ddl $(TPCH_DDL) -out ../tpch-report.md $(TPCH_ARGS)

# Issue 26 item 1's target, paired: stablerow with the specification's DDL
# against stablerow with TEXT/BIGINT, both loaded from TPCH_DIR's files at
# TPCH_SF (no DuckDB); per query TPCH_DDL_REPS repetitions of a spec and a
# text run back to back, the order flipped each repetition, medians of
# wall and CPU time and their ratio, queries over 1.10 flagged, into
# tpch-ddl-report.md. Twice the memory of one stablerow load.
TPCH_DDL_REPS ?= 5
tpch-ddl:
	cd bench && $(GO) run ./cmd/tpch -sf $(TPCH_SF) -dir $(TPCH_DIR) -ddl both -reps $(TPCH_DDL_REPS) -out ../tpch-ddl-report.md $(TPCH_ARGS)

# TPC-DS (issue 29 item 8): generate the 24 tables at TPCDS_SF into
# TPCDS_DIR (bench/tpcds's generator, once, as Parquet; reused), load
# DuckDB and stablerow from the same files, run the 99 queries on both
# with TPCDS_THREADS threads (0: the cores), check every answer against
# DuckDB's and write the per-query times to tpcds-report.md. The command
# exits 1 when a query is refused or answered differently.
TPCDS_SF      ?= 1
TPCDS_DIR     ?= $(CURDIR)/.tpcds
TPCDS_THREADS ?= 0
TPCDS_ARGS    ?=
tpcds:
	cd bench && $(GO) run ./cmd/tpcds -sf $(TPCDS_SF) -dir $(TPCDS_DIR) -threads $(TPCDS_THREADS) -out ../tpcds-report.md $(TPCDS_ARGS)

# The Beam pipelines on Prism (in-process) against the single-process
# path: compaction of BEAM_ROWS rows and a take of BEAM_IDS ids with 1, 2
# and 4 workers (beam/cmd/beambench; the base table is kept in BEAM_DIR).
BEAM_ROWS ?= 10000000
BEAM_IDS  ?= 1000000
BEAM_DIR  ?= $(CURDIR)/.beambench
bench-beam:
	cd beam && $(GO) run ./cmd/beambench -dir $(BEAM_DIR) -rows $(BEAM_ROWS) -ids $(BEAM_IDS) -workers 1,2,4 | tee ../beambench.out

# Window functions against DuckDB on WINDOW_ROWS rows (ranking, moving
# sums over ROWS and RANGE frames, lag), each run a fresh process under
# WINDOW_MEM, the engines alternated; answers compared (bench/cmd/windowbench;
# both databases are kept in WINDOW_DIR).
WINDOW_ROWS ?= 10000000
WINDOW_MEM  ?= 1GB
WINDOW_DIR  ?= $(CURDIR)/.windowbench
bench-window:
	cd bench && $(GO) run ./cmd/windowbench -rows $(WINDOW_ROWS) -mem $(WINDOW_MEM) -dir $(WINDOW_DIR) -out ../window-report.md

# Every fuzz target, FUZZTIME each.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -parallel $(FUZZPARALLEL) $$pkg; \
	  done; \
	done

# Deep and long statements (issue 32: one of 25,000 terms killed the
# process in the C parser): every operator class at the depth limit through
# the engine (TestDeepExpressionsRun, about a minute), then FuzzDeepExpression
# for FUZZDEEPTIME, generated statements of every class, depth and shape
# through the parser, the planner and the executor. A crash fails it.
FUZZDEEPTIME ?= 45s
fuzz-deep:
	$(GO) test -count=1 -run '^TestDeepExpressionsRun$$' -timeout 10m ./engine/
	$(GO) test -run '^$$' -fuzz '^FuzzDeepExpression$$' -fuzztime $(FUZZDEEPTIME) -parallel $(FUZZPARALLEL) ./engine/

# Differential test against a real PostgreSQL (difftest/, a nested module:
# the PostgreSQL driver stays out of the library). run.sh starts a private
# server (installing Debian's postgresql package if initdb is missing),
# replays difftest/regressions/*.slt, then DIFFTEST_CASES seeded random
# cases (a few minutes); DIFFTEST_ARGS="-duration 2h" for a long run.
DIFFTEST_SEED  ?= 1
DIFFTEST_CASES ?= 3000
DIFFTEST_ARGS  ?=
difftest:
	cd difftest && $(GO) test -short -count=1 ./...
	cd difftest && GO=$(GO) ./run.sh -seed $(DIFFTEST_SEED) -cases $(DIFFTEST_CASES) $(DIFFTEST_ARGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) vet -tags stablerow_full ./cmd/stablerow/
	cd table/store/s3store/s3test && $(GO) vet ./...
	cd difftest && $(GO) vet ./...
	cd server/adbctest && $(GO) vet ./...
	cd beam && $(GO) vet ./...

clean:
	rm -rf $(DEMO_DIR) bench.out $(SCALE_DIR) $(BEAM_DIR) $(WINDOW_DIR) window-report.md
