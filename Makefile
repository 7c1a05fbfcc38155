# mnemo's one test command is `make test`: it needs only Go, and does its own
# set-up. CI (.ci/run) calls exactly it.

GO       ?= go
FUZZTIME ?= 10s
LOCOMO   ?= ../shared/eval/locomo-dev.json

.PHONY: test vet unit fuzz inspector bench locomo build

test: vet unit fuzz inspector

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

unit:
	$(GO) test -race -count=1 ./...

# A short run of every fuzzer past its seed corpus.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzNormalizeKey$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzImport$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzQuery$$' -fuzztime $(FUZZTIME) ./analysis
	$(GO) test -run '^$$' -fuzz '^FuzzTerms$$' -fuzztime $(FUZZTIME) ./analysis

# The MCP Inspector's CLI (npm, pinned) against `mnemo mcp` over stdio.
inspector:
	bash mcp/inspector_test.sh

# Benchmarks: figures for docs/BENCHMARKS.md, never assertions.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2000x .
	$(GO) test -run '^$$' -bench . ./sqlite ./analysis

locomo:
	$(GO) run ./cmd/mnemo bench locomo $(LOCOMO)
	$(GO) run ./cmd/mnemo bench locomo --profile lexical $(LOCOMO)

build:
	$(GO) build -o bin/mnemo ./cmd/mnemo
