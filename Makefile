# apexcheck: the two commands that do everything are `make certify` (certify
# an implementation; the embedded reference by default) and `make test`
# (every test). See README.md.

GO      ?= go
IMPL    ?=
FLAGS   ?=
# The suite runs scenarios in parallel and spawns many shells; on a loaded
# 2-core machine it needs more than go test's default 10 minutes only when
# something hangs, which the runner's own bounds already catch.
TIMEOUT ?= 20m

.PHONY: all test check fmt-check vet certify bench build

all: check

build:
	$(GO) build ./...

test:
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
