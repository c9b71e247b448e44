# Hearth developer entry points. Scripts live in deploy/; local state in .run/ (git-ignored).
# `make` alone lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

LOCAL := deploy/local

.PHONY: help setup build release run stop test chaos fuzz check-compose pg-start pg-stop pg-status \
        bench bench-embed eval charts clean clean-data

help: ## list the targets
	@echo "Hearth — make targets:"
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN {FS = ":.*## "} {printf "  %-14s %s\n", $$1, $$2}'
	@echo "Variables: HEARTH_BUILD_CONFIG=debug|release (run), TEST_ARGS='--filter X' (test)."

setup: ## install Debian packages and the .run/venv Python tools (idempotent)
	@$(LOCAL)/setup.sh

build: setup ## swift build (debug)
	swift build

release: setup ## swift build -c release
	swift build -c release

run: ## build and run everything locally (Postgres, devbroker, six services); Ctrl-C stops
	@$(LOCAL)/run.sh

stop: ## stop what a killed `make run` left behind
	@$(LOCAL)/run.sh stop

test: ## build and run the tests against a throwaway Postgres and devbroker (what CI runs)
	@$(LOCAL)/test.sh

chaos: ## the long chaos run: kills, rebalances, a broker outage, a replay and Postgres faults under traffic
	@HEARTH_CHAOS=long TEST_ARGS="--filter Chaos" $(LOCAL)/test.sh

fuzz: ## the long schemathesis run against the gateway's openapi.json (a fresh seed; HEARTH_FUZZ_EXAMPLES, default 200)
	@HEARTH_FUZZ_EXAMPLES=$${HEARTH_FUZZ_EXAMPLES:-200} HEARTH_FUZZ_SEED=$${HEARTH_FUZZ_SEED:-random} TEST_ARGS="--filter SchemaFuzzing" $(LOCAL)/test.sh

check-compose: setup ## validate compose.yaml and its topics against `hearthctl catalogue --json`
	@deploy/check-compose.sh

pg-start: ## start the local Postgres (.run/pg, 127.0.0.1:55432)
	@$(LOCAL)/postgres.sh start

pg-stop: ## stop the local Postgres
	@$(LOCAL)/postgres.sh stop

pg-status: ## is the local Postgres running?
	@$(LOCAL)/postgres.sh status

bench: ## run the benchmarks (deploy/bench/run.sh)
	@deploy/bench/run.sh

bench-embed: ## run the embedding benchmark (Tests/Bench/embed.sh)
	@Tests/Bench/embed.sh

eval: ## run the evaluation (deploy/eval/run.sh)
	@deploy/eval/run.sh

charts: ## render the tracking charts to deploy/charts/*.png with headless Chromium (installs it)
	@deploy/charts/render.sh

clean: ## remove .build, .build-static and .run/logs (keeps databases and the venv)
	rm -rf .build .build-static .run/logs

clean-data: ## stop the local Postgres servers and delete their data (.run/pg, .run/pg-test)
	@$(LOCAL)/postgres.sh wipe
	@HEARTH_PG_DATA=.run/pg-test HEARTH_PG_PORT=55442 $(LOCAL)/postgres.sh wipe
