# apexcheck: the two commands that do everything are `make certify` (certify
# an implementation; the embedded reference by default) and `make check`
# (formatting, vet and every test, pi's certification included). See
# README.md.

GO      ?= go
IMPL    ?=
FLAGS   ?=
# The suite runs scenarios in parallel and spawns many shells. The longest
# package is internal/broken: every realistic defect runs the scenarios
# citing its clause (about ten minutes on a shared 2-core machine), near go
# test's default of 10 minutes; a hang is caught sooner by the runner's own
# bounds.
TIMEOUT ?= 45m

.PHONY: all test test-kit go-test check fmt-check vet certify bench build certify-pi pi-ledger stress skeleton-ledgers docs docs-third-parties docs-matrix matrix mutants

all: check

build:
	$(GO) build ./...

# Every test: the third parties through the kit (pi in both profiles,
# Gemini CLI, Qwen Code and Codex in both), each against its reviewed
# ledger, then the Go tests (the whole suite against the reference, the
# broken implementations, unit tests). The third parties run first so that
# the run closes on go test's own summary: their reports count known
# failures, which a reader of the last lines must not take for the run's.
test: certify-pi certify-third-parties
	$(MAKE) go-test

# One package at a time (-p 1): each package runs its scenarios in
# parallel already, and the suite's time-bound scenarios (the probe's 5 s)
# must not share two cores with the broken variants' runs.
go-test:
	$(GO) test -p 1 -timeout $(TIMEOUT) ./...

# The kit's own checks without any third party: formatting, vet, Go tests.
test-kit: fmt-check vet go-test

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
	@echo "certify-pi: pi's bash tool is known to fail some scenarios; each is listed, with the clause it breaks and why, in the reviewed ledger $(PI_DIR)/expected.json. A run that matches the ledger exactly passes; a new failure, or a listed one that now passes, fails it."
	@$(pi_setup) \
	$(GO) run ./cmd/apexcheck --impl '$(PI_IMPL)' --expect $(PI_DIR)/expected.json --certify \
		--certificate $(PI_OUT)/certificate.txt --json $(PI_OUT)/report.jsonl --junit $(PI_OUT)/junit.xml \
		--markdown $(PI_OUT)/summary.md --badge $(PI_OUT)/badge.json $(FLAGS)

# After the suite changes (certify-pi flags each entry whose scenario
# changed as STALE): rewrite adapters/pi/expected.json from a fresh run,
# repinning every entry to its scenario and keeping the reviewed clause and
# reason of every entry that stays; new entries say TODO. Review the diff
# entry by entry before committing.
pi-ledger:
	@$(pi_setup) \
	$(GO) run ./cmd/apexcheck --impl '$(PI_IMPL)' --expect $(PI_DIR)/expected.json \
		--write-expect $(PI_DIR)/expected.json $(FLAGS) || true

# The runner's lifecycle stress test, long: 1500 start → handshake → call →
# shutdown cycles against each of the reference and three minimal
# implementations (6000 in all), six at once. Prints the count and the
# spurious-error rate; any spurious error fails it. go test runs a short
# version of the same test.
STRESS_CYCLES ?= 1500
stress:
	@mkdir -p out; \
	$(GO) test -count=1 -run '^TestNoLostResponses$$' -v ./internal/stress -args -cycles=$(STRESS_CYCLES) >out/stress.log 2>&1; \
	rc=$$?; grep -E '^(stress:|---|ok|FAIL)|spurious' out/stress.log; exit $$rc

# After the suite changes (the test flags each entry whose scenario changed
# as STALE): rewrite and repin the ledgers of the adapter skeletons that
# `apexcheck init` writes (internal/skeleton/ledgers/LANG.json, checked by
# go test ./internal/cli -run TestInitSkeletons) from a fresh run of each,
# keeping the reviewed clause and reason of every entry that stays; new
# entries say TODO. A language whose interpreter is missing is left as it is.
# FLAGS="--run '^(a|b)$$$$'" repins only the entries of the scenarios named.
SKELETON_LEDGERS := internal/skeleton/ledgers

skeleton-ledgers:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) build -o $$tmp/apexcheck ./cmd/apexcheck; \
	for lang in go node python; do \
		case $$lang in \
		go) need=$(GO); impl=$$tmp/go/adapter ;; \
		node) need=node; impl="node $$tmp/node/adapter.mjs" ;; \
		python) need=python3; impl="python3 $$tmp/python/adapter.py" ;; \
		esac; \
		if ! command -v $$need >/dev/null 2>&1; then echo "$@: $$lang: skipped: $$need is missing"; continue; fi; \
		$$tmp/apexcheck init --lang $$lang --dir $$tmp/$$lang >/dev/null; \
		if [ $$lang = go ]; then (cd $$tmp/go && $(GO) build -o adapter .); fi; \
		$$tmp/apexcheck --impl "$$impl" --progress off --expect $(SKELETON_LEDGERS)/$$lang.json \
			--write-expect $(SKELETON_LEDGERS)/$$lang.json $(FLAGS) >/dev/null || true; \
		echo "$@: wrote $(SKELETON_LEDGERS)/$$lang.json"; \
	done; \
	if grep -l '"TODO' $(SKELETON_LEDGERS)/*.json; then echo "$@: review the TODO entries above"; fi

# Third parties, each certified against its reviewed ledger in both
# profiles (adapters/NAME/expected.json for apex, expected-core.json for
# core): Gemini CLI's and Qwen Code's shell tools through their adapters,
# Codex's shell tool MCP server through the kit's MCP bridge (no adapter),
# and pi in the core profile (certify-pi does apex). Versions are pinned in
# each adapters/NAME/package-lock.json. Reports go to out/NAME/PROFILE/;
# each run prints how long it took. Each skips (exit 0) with a message
# where node or npm is missing. TP_PROFILES='core' runs one profile.
# Paths are relative to the repository (the kit makes them absolute), so
# that the reproduction commands in the checked-in reports hold anywhere.
TP_PROFILES ?= apex core
TP_KIT      := out/apexcheck
GEMINI_IMPL := --impl 'node adapters/gemini/adapter.mjs'
QWEN_IMPL   := --impl 'node adapters/qwen/adapter.mjs'
CODEX_IMPL  := --mcp 'node adapters/codex/node_modules/@openai/codex-shell-tool-mcp/bin/mcp-server.js' --mcp-mapping codex
# Two MCP shell servers through the bridge, each with its mapping's notes:
# mcp-server-commands' run_command, and Desktop Commander's start_process,
# started with its own analytics kill-switch and its feature-flag fetch
# pointed at a closed local port, so that a run uses no network and the
# flag-gated texts it can append to results stay off on every machine.
MSC_IMPL    := --mcp 'node adapters/mcp-server-commands/node_modules/mcp-server-commands/build/index.js' --mcp-mapping mcp-server-commands
DC_IMPL     := --mcp 'env DESKTOP_COMMANDER_DISABLE_TELEMETRY=1 DC_FLAG_URL=http://127.0.0.1:9/ node adapters/desktop-commander/node_modules/@wonderwhy-er/desktop-commander/dist/index.js' --mcp-mapping desktop-commander

.PHONY: certify-gemini certify-qwen certify-codex certify-pi-core certify-third-parties third-party-ledgers
.PHONY: certify-mcp-servers certify-mcp-server-commands certify-desktop-commander
.PHONY: docs-tp/gemini docs-tp/qwen docs-tp/codex docs-tp/pi docs-tp/mcp-server-commands docs-tp/desktop-commander

# How each third party's pinned packages are installed. Qwen Code's
# lockfile cannot be installed by npm ci: its optional dependency
# @teddyzhu/clipboard names platform packages that npm leaves out of the
# lockfile, and npm ci then refuses the lockfile as out of sync. npm install
# --no-save installs the same locked versions (checked by their integrity
# hashes) without rewriting the lockfile.
NPM_CI           := npm ci --ignore-scripts --no-audit --no-fund
NPM_INSTALL_qwen := npm install --no-save --ignore-scripts --no-audit --no-fund
# Desktop Commander depends on puppeteer (md-to-pdf), whose install would
# download Chrome; --ignore-scripts skips it already, and the variable keeps
# a run without that flag from downloading it.
NPM_INSTALL_desktop-commander := PUPPETEER_SKIP_DOWNLOAD=1 $(NPM_CI)

# tp_setup NAME PACKAGE: skip without node and npm, install the pinned
# packages when missing, and build the kit once (go run would rebuild it
# for every profile) unless TP_KIT_BUILT says it is built already.
define tp_setup
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "$@: skipped: node and npm are needed to run $(1)'s shell tool (https://nodejs.org)"; exit 0; fi; \
	set -e; \
	if [ ! -d adapters/$(1)/node_modules/$(2) ]; then \
		(cd adapters/$(1) && $(or $(NPM_INSTALL_$(1)),$(NPM_CI))); fi; \
	$(if $(TP_KIT_BUILT),,$(GO) build -o $(TP_KIT) ./cmd/apexcheck;)
endef

# tp_certify NAME PACKAGE IMPL PROFILES
define tp_certify
	@$(call tp_setup,$(1),$(2)) \
	rc=0; for p in $(4); do \
		ledger=adapters/$(1)/expected.json; [ $$p = apex ] || ledger=adapters/$(1)/expected-$$p.json; \
		out=out/$(1)/$$p; mkdir -p $$out; start=$$(date +%s); \
		$(TP_KIT) $(3) --profile $$p --expect $$ledger --certify --progress off \
			--certificate $$out/certificate.txt --json $$out/report.jsonl --junit $$out/junit.xml \
			--markdown $$out/summary.md --badge $$out/badge.json $(FLAGS) || rc=1; \
		echo "$@: $(1), profile $$p: $$(( $$(date +%s) - start )) s"; \
	done; $(5) exit $$rc
endef

# tp_core_from_apex NAME: NAME's core verdict from its apex run's report
# (apexcheck merge --profile core), against its core ledger, with the
# reports a core run writes. A core scenario runs alike in both profiles,
# so the apex run has already run every one of them.
define tp_core_from_apex
	out=out/$(1)/core; mkdir -p $$out; \
	$(TP_KIT) merge --profile core out/$(1)/apex/report.jsonl --expect adapters/$(1)/expected-core.json --certify \
		--certificate $$out/certificate.txt --json $$out/report.jsonl --junit $$out/junit.xml \
		--markdown $$out/summary.md --badge $$out/badge.json || rc=1; \
	echo "$@: $(1), profile core: from the apex run's core scenarios";
endef

certify-gemini:
	$(call tp_certify,gemini,@google/gemini-cli-core,$(GEMINI_IMPL),$(TP_PROFILES))

certify-qwen:
	$(call tp_certify,qwen,@qwen-code/qwen-code,$(QWEN_IMPL),$(TP_PROFILES))

certify-codex:
	$(call tp_certify,codex,@openai/codex-shell-tool-mcp,$(CODEX_IMPL),$(TP_PROFILES))

certify-pi-core:
	$(call tp_certify,pi,@mariozechner/pi-coding-agent,--impl 'node $(PI_DIR)/adapter.mjs',core)

# The two MCP shell servers certified through the bridge, each against its
# reviewed ledgers (adapters/NAME/expected*.json). One MCP server process a
# scenario, and Desktop Commander slow to start: their apex runs take about
# 2.5 and 5.5 minutes, their core runs 2 and 3. make check (through
# certify-third-parties) runs them in MCP_CHECK_PROFILES, core unless set,
# to keep CI within its budget; make docs and this target run both.
#   make certify-mcp-servers
MCP_CHECK_PROFILES ?= core
certify-mcp-servers:
	@rc=0; for t in certify-mcp-server-commands certify-desktop-commander; do \
		$(MAKE) --no-print-directory $$t || rc=1; done; exit $$rc

certify-mcp-server-commands:
	$(call tp_certify,mcp-server-commands,mcp-server-commands,$(MSC_IMPL),$(TP_PROFILES))

certify-desktop-commander:
	$(call tp_certify,desktop-commander,@wonderwhy-er/desktop-commander,$(DC_IMPL),$(TP_PROFILES))

# One third party's run as a target of its own, tp/NAME/PROFILE: the same
# recipe as certify-NAME, for one profile.
TP_PKG_gemini                := @google/gemini-cli-core
TP_IMPL_gemini               := $(GEMINI_IMPL)
TP_PKG_qwen                  := @qwen-code/qwen-code
TP_IMPL_qwen                 := $(QWEN_IMPL)
TP_PKG_codex                 := @openai/codex-shell-tool-mcp
TP_IMPL_codex                := $(CODEX_IMPL)
TP_PKG_pi                    := @mariozechner/pi-coding-agent
TP_IMPL_pi                   := --impl 'node $(PI_DIR)/adapter.mjs'
TP_PKG_mcp-server-commands   := mcp-server-commands
TP_IMPL_mcp-server-commands  := $(MSC_IMPL)
TP_PKG_desktop-commander     := @wonderwhy-er/desktop-commander
TP_IMPL_desktop-commander    := $(DC_IMPL)
tp_name    = $(word 1,$(subst /, ,$*))
tp_profile = $(word 2,$(subst /, ,$*))

tp/%:
ifeq ($(TP_CORE_FROM_APEX),)
	$(call tp_certify,$(tp_name),$(TP_PKG_$(tp_name)),$(TP_IMPL_$(tp_name)),$(tp_profile))
else
	$(call tp_certify,$(tp_name),$(TP_PKG_$(tp_name)),$(TP_IMPL_$(tp_name)),$(tp_profile),$(if $(filter apex,$(tp_profile)),$(call tp_core_from_apex,$(tp_name))))
endif

# tp-install/NAME installs NAME's pinned packages when missing.
tp-install/%:
	@$(call tp_setup,$*,$(TP_PKG_$*))

# Every third party: the agents' tools in both profiles, pi in core
# (certify-pi does apex), the MCP shell servers in MCP_CHECK_PROFILES
# (core); all run even when one fails. An agent's core verdict comes from
# its apex run (TP_CORE_FROM_APEX: apexcheck merge --profile core), which
# has run every core scenario already. The runs are independent (each its
# own implementation processes, temporary directories and out/NAME/PROFILE),
# and much of their time is waiting (a tool starting, a bound expiring), so
# TP_JOBS of them run at once, longest first, each keeping its output
# together. The packages are installed first, one tool at a time, and the
# kit built once. On 2 cores TP_JOBS=3 keeps the load near 10, which the
# runs are checked to stand; TP_JOBS=1 runs them one after another.
TP_JOBS ?= 3
TP_CHECK_RUNS = gemini/apex $(foreach p,$(MCP_CHECK_PROFILES),desktop-commander/$(p)) qwen/apex \
	$(foreach p,$(MCP_CHECK_PROFILES),mcp-server-commands/$(p)) pi/core codex/apex
certify-third-parties:
	@$(GO) build -o $(TP_KIT) ./cmd/apexcheck
	@for n in $(sort $(foreach r,$(TP_CHECK_RUNS),$(word 1,$(subst /, ,$(r))))); do \
		$(MAKE) --no-print-directory TP_KIT_BUILT=1 tp-install/$$n || exit 1; done
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory -k -j$(TP_JOBS) --output-sync=target TP_KIT_BUILT=1 TP_CORE_FROM_APEX=1 \
		$(addprefix tp/,$(TP_CHECK_RUNS)); \
	rc=$$?; echo "certify-third-parties: $(words $(TP_CHECK_RUNS)) runs, $(TP_JOBS) at once: $$(( $$(date +%s) - start )) s"; \
	exit $$rc

# After the suite changes (each entry pins its scenario, and the entries
# whose scenario changed are flagged STALE): rewrite each third party's
# ledger from a fresh run in each profile, repinning every entry and keeping
# the reviewed clause and reason of every entry that stays; new entries say
# TODO. Review the diff entry by entry before committing, then run make docs.
# tp_ledgers NAME PACKAGE IMPL PROFILES
define tp_ledgers
	@$(call tp_setup,$(1),$(2)) \
	for p in $(4); do \
		ledger=adapters/$(1)/expected.json; [ $$p = apex ] || ledger=adapters/$(1)/expected-$$p.json; \
		expect=""; [ -f $$ledger ] && expect="--expect $$ledger"; \
		$(TP_KIT) $(3) --profile $$p $$expect --write-expect $$ledger --progress off $(FLAGS) >/dev/null || true; \
		echo "$@: $(1), profile $$p: $$ledger ($$(grep -c '"reason": "TODO' $$ledger || true) entries to review)"; \
	done
endef

third-party-ledgers:
	$(call tp_ledgers,gemini,@google/gemini-cli-core,$(GEMINI_IMPL),apex core)
	$(call tp_ledgers,qwen,@qwen-code/qwen-code,$(QWEN_IMPL),apex core)
	$(call tp_ledgers,codex,@openai/codex-shell-tool-mcp,$(CODEX_IMPL),apex core)
	$(call tp_ledgers,pi,@mariozechner/pi-coding-agent,--impl 'node $(PI_DIR)/adapter.mjs',core)
	$(call tp_ledgers,mcp-server-commands,mcp-server-commands,$(MSC_IMPL),apex core)
	$(call tp_ledgers,desktop-commander,@wonderwhy-er/desktop-commander,$(DC_IMPL),apex core)

# The conformance matrix: docs/matrix.md and docs/matrix.html, one section
# per profile, a column per JSON Lines report checked in under
# docs/reports/ (a tool), a row per clause, and beside each failure the
# reviewed reason of the tool's ledger (adapters/*/expected*.json). A Go
# test fails when they are stale: rerun this after a report or a ledger
# changes. make docs reruns the reports and then this; a vendor adds theirs
# by dropping a report there (and its ledger beside the others).
MATRIX_REPORTS = $(sort $(wildcard docs/reports/*.jsonl))
# The ledgers of the tools with a report there (a ledger's implementation
# names its report, docs/reports/NAME.PROFILE.jsonl): a tool with ledgers
# but no report yet (a new third party before its first make docs) is left
# out, since compare refuses a ledger no report is of. matrix_test.go
# applies the same rule.
MATRIX_LEDGERS = $(sort $(foreach f,$(wildcard adapters/*/expected*.json),$(if $(wildcard docs/reports/$(firstword $(shell sed -n 's/^  "implementation": "\([^ "]*\).*/\1/p' $(f))).*.jsonl),$(f))))
MATRIX_ARGS = --markdown docs/matrix.md --html docs/matrix.html $(addprefix --ledger ,$(MATRIX_LEDGERS))

matrix:
	$(GO) run ./cmd/apexcheck compare $(MATRIX_ARGS) $(MATRIX_REPORTS)

# Everything in the repository that is generated from runs, from fresh
# runs, never edited by hand: the reports under docs/reports (the reference
# and every third party in both profiles, without a ledger, so that they
# record outcomes alone; implementation paths relative to the repository,
# so that their reproduction commands hold on any checkout), the matrix,
# and the figures in README.md, docs/results.md and docs/findings.md
# (internal/docgen: the suite's digest and counts, the results tables from
# the reference's and pi's certificates, the findings table from the
# reports). A third party whose runtime is missing (node and npm) is
# skipped with a message and its reports are kept; go test
# ./internal/docgen then says which are stale. A report replaces the
# checked-in one only when its run finished (exit status 0 or 1): a run
# that could not start the implementation, or a reference that is not
# certified, stops make docs and leaves the report as it was. Each tool runs
# the apex profile once, its core report taken from that run; the third
# parties run TP_JOBS at once. Each run prints how long it took.
DOCS_OUT := out/docs

# docs_reports NAME PACKAGE IMPL REPORT: NAME's reports in both profiles,
# docs/reports/REPORT.PROFILE.jsonl, from one apex run: the core report is
# its core scenarios (apexcheck merge --profile core; a core scenario runs
# alike in both profiles). pi's apex run also writes the certificate
# docgen reads. Exit status 1 (failures) is a result here.
define docs_reports
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "docs: $(1): skipped: node and npm are needed to run it; kept docs/reports/$(4).*.jsonl (go test ./internal/docgen says whether they are stale)"; \
	else \
		set -e; \
		if [ ! -d adapters/$(1)/node_modules/$(2) ]; then \
			(cd adapters/$(1) && $(or $(NPM_INSTALL_$(1)),$(NPM_CI))); fi; \
		cert=""; [ $(1) != pi ] || cert="--certify --certificate $(DOCS_OUT)/pi.json"; \
		start=$$(date +%s); \
		$(TP_KIT) $(3) --profile apex --progress off $$cert --json $(DOCS_OUT)/$(4).apex.jsonl \
			> $(DOCS_OUT)/$(4).apex.txt || [ $$? -eq 1 ]; \
		$(TP_KIT) merge --profile core --json $(DOCS_OUT)/$(4).core.jsonl $(DOCS_OUT)/$(4).apex.jsonl \
			> $(DOCS_OUT)/$(4).core.txt || [ $$? -eq 1 ]; \
		mv $(DOCS_OUT)/$(4).apex.jsonl $(DOCS_OUT)/$(4).core.jsonl docs/reports/; \
		echo "docs: docs/reports/$(4).apex.jsonl and .core.jsonl (its core scenarios): $$(( $$(date +%s) - start )) s"; \
	fi
endef

docs:
	@rm -rf $(DOCS_OUT) && mkdir -p $(DOCS_OUT) docs/reports
	$(GO) build -o $(TP_KIT) ./cmd/apexcheck
	@start=$$(date +%s); \
	$(TP_KIT) --profile apex --progress off --certify --certificate $(DOCS_OUT)/reference.json \
		--json $(DOCS_OUT)/apexcheck-reference.apex.jsonl > $(DOCS_OUT)/apexcheck-reference.apex.txt && \
	mv $(DOCS_OUT)/apexcheck-reference.apex.jsonl docs/reports/ && \
	echo "docs: docs/reports/apexcheck-reference.apex.jsonl: $$(( $$(date +%s) - start )) s" || \
	{ echo "docs: the reference is not certified (out/docs/apexcheck-reference.apex.txt says why); no report changed"; exit 1; }
	@$(TP_KIT) merge --profile core --certify \
		--json $(DOCS_OUT)/apexcheck-reference.core.jsonl docs/reports/apexcheck-reference.apex.jsonl > $(DOCS_OUT)/apexcheck-reference.core.txt && \
	mv $(DOCS_OUT)/apexcheck-reference.core.jsonl docs/reports/ && \
	echo "docs: docs/reports/apexcheck-reference.core.jsonl (the apex run's core scenarios)" || \
	{ echo "docs: the reference failed in the core profile (out/docs/apexcheck-reference.core.txt says why)"; exit 1; }
	@$(MAKE) --no-print-directory docs-third-parties
	@# A sub-make: make expands a recipe before running it, so the reports
	@# and the ledgers that go with them are looked for only once they exist.
	@$(MAKE) --no-print-directory docs-matrix
	$(GO) run ./internal/docgen $(DOCS_OUT)/reference.json $$(ls $(DOCS_OUT)/pi.json 2>/dev/null)

# The matrix of make docs, made with the kit it built.
docs-matrix:
	$(TP_KIT) compare $(MATRIX_ARGS) $(MATRIX_REPORTS)

# The third parties' part of make docs, alone (it needs the kit built at
# $(TP_KIT)): their reports, and pi's certificate in $(DOCS_OUT).
docs-third-parties:
	@mkdir -p $(DOCS_OUT) docs/reports
	@$(MAKE) --no-print-directory -k -j$(TP_JOBS) --output-sync=target \
		docs-tp/gemini docs-tp/desktop-commander docs-tp/qwen docs-tp/mcp-server-commands docs-tp/pi docs-tp/codex

# One third party's reports for make docs (their runs are independent;
# docs-third-parties runs TP_JOBS at once, longest first).
docs-tp/gemini:
	$(call docs_reports,gemini,@google/gemini-cli-core,$(GEMINI_IMPL),gemini-cli-core)
docs-tp/qwen:
	$(call docs_reports,qwen,@qwen-code/qwen-code,$(QWEN_IMPL),qwen-code)
docs-tp/codex:
	$(call docs_reports,codex,@openai/codex-shell-tool-mcp,$(CODEX_IMPL),codex-shell-tool-mcp)
docs-tp/pi:
	$(call docs_reports,pi,@mariozechner/pi-coding-agent,--impl 'node $(PI_DIR)/adapter.mjs',pi-coding-agent)
docs-tp/mcp-server-commands:
	$(call docs_reports,mcp-server-commands,mcp-server-commands,$(MSC_IMPL),mcp-server-commands)
docs-tp/desktop-commander:
	$(call docs_reports,desktop-commander,@wonderwhy-er/desktop-commander,$(DC_IMPL),desktop-commander)
