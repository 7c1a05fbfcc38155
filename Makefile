# mnemo's one test command is `make test`: it needs only Go, and does its own
# set-up. CI (.ci/run) calls exactly it.

GO       ?= go
FUZZTIME ?= 10s
LOCOMO   ?= ../shared/eval/locomo-dev.json

# Runs a command with Debian's PostgreSQL 15 up and one PGlite (pgvector) for
# the whole command, in MNEMO_TEST_PG_DSN and MNEMO_TEST_PGVECTOR_DSN.
PGSERVERS = bash scripts/pgservers.sh

.PHONY: test vet unit quality fuzz inspector bench locomo scale build pgservers

test: vet unit quality fuzz inspector

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

unit:
	$(PGSERVERS) $(GO) test -race -count=1 ./...

# Recall quality on the LoCoMo dev split (issue 3's floors), without -race:
# it measures ranking, and the detector slows the sentence encoder 20x.
quality:
	$(GO) test -count=1 -run 'TestLocomoQuality' ./cmd/mnemo

# A short run of every fuzzer past its seed corpus.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzNormalizeKey$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzWrite$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzTools$$' -fuzztime $(FUZZTIME) ./mcp
	$(GO) test -run '^$$' -fuzz '^FuzzImport$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzRun$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzAppendEvent$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzTaskFacts$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzEventLayerParsers$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzQuery$$' -fuzztime $(FUZZTIME) ./analysis
	$(GO) test -run '^$$' -fuzz '^FuzzTerms$$' -fuzztime $(FUZZTIME) ./analysis
	$(GO) test -run '^$$' -fuzz '^FuzzEmbed$$' -fuzztime $(FUZZTIME) ./embed/glove
	$(GO) test -run '^$$' -fuzz '^FuzzEmbed$$' -fuzztime $(FUZZTIME) ./embed/use
	$(GO) test -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZTIME) ./vector
	$(GO) test -run '^$$' -fuzz '^FuzzClassify$$' -fuzztime $(FUZZTIME) ./security
	$(GO) test -run '^$$' -fuzz '^FuzzKeyPath$$' -fuzztime $(FUZZTIME) ./files
	$(GO) test -run '^$$' -fuzz '^FuzzStoreLog$$' -fuzztime $(FUZZTIME) ./files
	$(GO) test -run '^$$' -fuzz '^FuzzParseEndpoint$$' -fuzztime $(FUZZTIME) ./cmd/mnemo

# The MCP Inspector's CLI (npm, pinned) against `mnemo mcp` over stdio.
inspector:
	bash mcp/inspector_test.sh

# Benchmarks: figures for docs/BENCHMARKS.md, never assertions.
bench:
	$(GO) test -run '^$$' -bench . -skip 'Reflect100k|Event|DaySummary' -benchtime 2000x .
	$(GO) test -run '^$$' -bench 'DaySummary' -benchtime 3x .
	$(GO) test -run '^$$' -bench 'Event' -benchtime 2s .
	$(GO) test -run '^$$' -bench 'Reflect100k' -benchtime 3x .
	$(GO) test -run '^$$' -bench . ./sqlite ./analysis

locomo:
	$(GO) run ./cmd/mnemo bench locomo $(LOCOMO)
	$(GO) run ./cmd/mnemo bench locomo --profile lexical $(LOCOMO)
	$(GO) run ./cmd/mnemo bench locomo --profile semantic $(LOCOMO)

# Hybrid recall, index build, reopen and memory at 100k and 1M memories in
# one agent (the stores are generated once, under $$TMPDIR/mnemo-scale).
scale:
	$(GO) run ./cmd/mnemo bench scale --n 100000
	$(GO) run ./cmd/mnemo bench scale --n 1000000

build:
	$(GO) build -o bin/mnemo ./cmd/mnemo

# A shell with the test servers up, to run one package's tests by hand.
pgservers:
	$(PGSERVERS) $${SHELL:-bash}
