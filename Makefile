# apexcheck: the two commands that do everything are `make certify` (certify
# an implementation; the embedded reference by default) and `make check`
# (formatting, vet and every test, pi's certification included). See
# README.md.

GO      ?= go
IMPL    ?=
FLAGS   ?=
# The suite runs scenarios in parallel and spawns many shells; on a loaded
# 2-core machine it needs more than go test's default 10 minutes only when
# something hangs, which the runner's own bounds already catch.
TIMEOUT ?= 20m

.PHONY: all test go-test check fmt-check vet certify bench build certify-pi pi-ledger mutants

all: check

build:
	$(GO) build ./...

# Every test: pi through the kit, then the Go tests (the whole suite
# against the reference, the broken implementations, unit tests). pi runs
# first so that the run closes on go test's own summary: pi's report counts
# its known failures, which a reader of the last lines must not take for
# the run's.
test: certify-pi
	$(MAKE) go-test

go-test:
	$(GO) test -timeout $(TIMEOUT) ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

check: fmt-check vet test

# make certify                      certifies the embedded reference
# make certify IMPL='node adapter.js' certifies another implementation
certify:
ifeq ($(strip $(IMPL)),)
	$(GO) run ./cmd/apexcheck $(FLAGS)
else
	$(GO) run ./cmd/apexcheck --impl '$(IMPL)' $(FLAGS)
endif

# Benchmarks print ratios against baselines measured in the same run; they
# never assert on time.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./ref/... ./bench/...

# Mutation testing: small automatic mutations of ref/, each run against
# its package's area of scenarios; prints the kill rate per package and
# every survivor, and fails on an untriaged survivor or a kill rate below
# 95% (internal/mutate/triage.txt). Long, so not part of check: the whole
# set takes hours on 2 cores; sample it, e.g.
#   make mutants MUTANTS_FLAGS='-pkg ref/call,ref/server -max 50 -jobs 2'
MUTANTS_FLAGS ?= -jobs 2

mutants:
	$(GO) run ./internal/mutate/mutants $(MUTANTS_FLAGS)

# A real third party: pi's bash tool (@mariozechner/pi-coding-agent 0.73.1,
# pinned in adapters/pi/package-lock.json) through adapters/pi. The run must
# match adapters/pi/expected.json exactly: a new failure and a listed failure
# that now passes both fail it. Reports go to out/pi/. Skips (exit 0) with a
# message where node or npm is missing.
PI_DIR  := adapters/pi
PI_IMPL := node $(CURDIR)/$(PI_DIR)/adapter.mjs
PI_OUT  := out/pi

define pi_setup
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "$@: skipped: node and npm are needed to run pi's bash tool (https://nodejs.org)"; exit 0; fi; \
	set -e; \
	if [ ! -d $(PI_DIR)/node_modules/@mariozechner/pi-coding-agent ]; then \
		(cd $(PI_DIR) && npm ci --ignore-scripts --no-audit --no-fund); fi; \
	mkdir -p $(PI_OUT);
endef

certify-pi:
	@$(pi_setup) \
	$(GO) run ./cmd/apexcheck --impl '$(PI_IMPL)' --expect $(PI_DIR)/expected.json --certify \
		--certificate $(PI_OUT)/certificate.txt --json $(PI_OUT)/report.jsonl --junit $(PI_OUT)/junit.xml \
		--markdown $(PI_OUT)/summary.md --badge $(PI_OUT)/badge.json $(FLAGS)

# After the suite changes: rewrite adapters/pi/expected.json from a fresh
# run, keeping the reviewed clause and reason of every entry that stays;
# new entries say TODO. Review the diff entry by entry before committing.
pi-ledger:
	@$(pi_setup) \
	$(GO) run ./cmd/apexcheck --impl '$(PI_IMPL)' --expect $(PI_DIR)/expected.json \
		--write-expect $(PI_DIR)/expected.json $(FLAGS) || true
