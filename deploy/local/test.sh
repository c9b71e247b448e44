#!/usr/bin/env bash
# `make test` (and CI): setup → swift build --build-tests → a throwaway PostgreSQL
# (.run/pg-test, 127.0.0.1:55442, wiped every run) and devbroker (127.0.0.1:19092) → compose
# check → swift test --skip-build. Both servers are stopped on exit, whatever happened.
#
# The tests see:
#   HEARTH_DATABASE_URL=postgres://hearth:hearth@127.0.0.1:55442/hearth
#   HEARTH_KAFKA_BOOTSTRAP=127.0.0.1:19092   (as printed by devbroker)
#   HEARTH_BIN_PATH=$(swift build --show-bin-path)   HEARTH_TEST=1
#
# Environment: TEST_ARGS (extra arguments for swift test, e.g. "--filter Store"),
# HEARTH_TEST_PG_PORT=55442, HEARTH_TEST_KAFKA_PORT=19092, HEARTH_SKIP_COMPOSE_CHECK=1 to skip
# the compose check, HEARTH_TEST_DIRECT=1 to run the test bundle without SwiftPM's build lock.
set -euo pipefail
HEARTH_SCRIPT="test"
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HERE="$HEARTH_ROOT/deploy/local"
cd "$HEARTH_ROOT"

PG_PORT="${HEARTH_TEST_PG_PORT:-55442}"
KAFKA_PORT="${HEARTH_TEST_KAFKA_PORT:-19092}"
# Non-default ports get their own data directory and broker name, so two test runs on
# different ports (say, two developers' branches) never wipe each other's database.
PG_DATA_DIR=.run/pg-test BROKER_NAME=devbroker-test
if [ "$PG_PORT" != 55442 ]; then PG_DATA_DIR=".run/pg-test-$PG_PORT"; fi
if [ "$KAFKA_PORT" != 19092 ]; then BROKER_NAME="devbroker-test-$KAFKA_PORT"; fi
started=$SECONDS

summary() {  # one line that says what happened
  echo "[test] $1 (after $((SECONDS - started)) s)"
}

"$HERE/setup.sh"

log "swift build --build-tests"
if ! swift build --build-tests; then
  summary "FAILED: swift build --build-tests failed; no test ran"
  exit 1
fi
BIN="$(swift_bin_path debug)"
if [ "${HEARTH_TEST_DIRECT:-0}" = 1 ]; then
  # Tests start the executables from a private copy, so a build running meanwhile (which
  # relinks them in place) cannot pull them away mid-test.
  COPY="$RUN_DIR/test-bin-$PG_PORT"
  rm -rf "$COPY" && mkdir -p "$COPY"
  find "$BIN" -maxdepth 1 -type f -perm -u+x -exec cp {} "$COPY/" \;
  find "$BIN" -maxdepth 1 -type d -name '*.resources' -exec cp -r {} "$COPY/" \;
  BIN="$COPY"
fi

# --- throwaway servers ------------------------------------------------------------------------
pg() {
  HEARTH_PG_DATA="$PG_DATA_DIR" HEARTH_PG_PORT="$PG_PORT" HEARTH_PG_FAST=1 "$HERE/postgres.sh" "$@"
}
cleanup() {
  trap '' INT TERM
  stop_pids 10 "$BROKER_NAME:$PID_DIR/$BROKER_NAME.pid:devbroker"
  pg stop || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A previous run that was killed may have left its servers behind: stop them, then start fresh.
stop_pids 10 "$BROKER_NAME:$PID_DIR/$BROKER_NAME.pid:devbroker"
pg wipe
pg start

log "starting devbroker on 127.0.0.1:$KAFKA_PORT (log $LOG_DIR/devbroker-test.log)"
start_devbroker "$KAFKA_PORT" "$BROKER_NAME" || { summary "FAILED: devbroker did not start"; exit 1; }

HEARTH_DATABASE_URL="$(pg url)"
export HEARTH_DATABASE_URL
export HEARTH_KAFKA_BOOTSTRAP="$DEVBROKER_BOOTSTRAP"
export HEARTH_BIN_PATH="$BIN"
export HEARTH_TEST=1
# One master key for the run: the services of every test stack, hearthctl and the tests' own
# key rings must all open what the others sealed.
HEARTH_MASTER_KEY="$(head -c 32 /dev/urandom | base64)"
export HEARTH_MASTER_KEY
# The chaos suite's Postgres faults (HEARTH_CHAOS=long) freeze and restart this server.
export HEARTH_TEST_PG_DATA="$HEARTH_ROOT/$PG_DATA_DIR" HEARTH_TEST_PG_PORT="$PG_PORT"
log "HEARTH_DATABASE_URL=$HEARTH_DATABASE_URL HEARTH_KAFKA_BOOTSTRAP=$HEARTH_KAFKA_BOOTSTRAP"
log "HEARTH_BIN_PATH=$HEARTH_BIN_PATH"

# --- compose check ----------------------------------------------------------------------------
compose_status=0
if [ "${HEARTH_SKIP_COMPOSE_CHECK:-0}" = 1 ]; then
  log "compose check skipped (HEARTH_SKIP_COMPOSE_CHECK=1)"
else
  "$HEARTH_ROOT/deploy/check-compose.sh" || compose_status=$?
fi

# --- tests ------------------------------------------------------------------------------------
read -r -a test_args <<<"${TEST_ARGS:-}"
log "swift test --skip-build ${test_args[*]}"
test_status=0
test_log="$LOG_DIR/swift-test-$PG_PORT.log"
if [ "${HEARTH_TEST_DIRECT:-0}" = 1 ]; then
  # The test bundle run directly does not take SwiftPM's lock on .build, so another build can
  # go on while these tests run. TEST_ARGS then uses the bundle's own flags (--filter X).
  NO_COLOR=1 "$BIN/HearthPackageTests.xctest" --testing-library swift-testing "${test_args[@]}" 2>&1 \
    | tee "$test_log" || test_status=$?
else
  swift test --skip-build "${test_args[@]}" 2>&1 | tee "$test_log" || test_status=$?
fi
# One plain closing line for any reader of this log: Swift Testing's own summary is followed by
# XCTest's "Executed 0 tests" (Hearth has no XCTest cases), which says nothing about the run.
passed=$(grep -E '^✔ Test ' "$test_log" | grep -vc '^✔ Test run with' || true)
failed=$(grep -E '^✘ Test .* failed after' "$test_log" | grep -vc '^✘ Test run with' || true)
echo "swift-testing: $passed passed, $failed failed"
# The ten slowest tests: where the suite's time goes, for whoever wants it shorter. A test on its
# own stack prints its own time (`hearth-test-time:`, waiting for a stack left out); the others
# have Swift Testing's.
# awk keeps the first ten and still reads everything: a `head` closing the pipe early would end
# `sort` with SIGPIPE, which pipefail turns into this script's failure.
echo "slowest tests:"
{
  sed -nE 's/^hearth-test-time: ([0-9.]+) (.*)$/\1 \2/p' "$test_log"
  sed -nE 's/^[✔✘] Test (.*) (passed|failed) after ([0-9.]+) seconds.*/\3 \1/p' "$test_log" | awk '!/^[0-9.]+ run with /'
} | awk '!seen[substr($0, index($0, " ") + 1)]++' | sort -rn \
  | awk 'NR <= 10 { printf "  %7.1f s  %s\n", $1, substr($0, index($0, " ") + 1) }' || echo "  (could not rank the tests)"

if [ "$test_status" -ne 0 ]; then
  summary "FAILED: swift test exited with status $test_status$([ "$compose_status" -eq 0 ] || echo '; the compose check failed too')"
  exit "$test_status"
fi
if [ "$compose_status" -ne 0 ]; then
  summary "FAILED: swift test passed, but the compose check failed (see above)"
  exit "$compose_status"
fi
summary "OK: swift test passed and compose.yaml matches the catalogue"
