#!/usr/bin/env bash
# `make bench`: Hearth in release mode against the reference peer (../shared/peer), on this machine.
#
#   setup → swift build -c release --static-swift-stdlib (as deploy/Dockerfile, in .build-static)
#   → copy the binaries to .run/bench/bin → a fresh PostgreSQL (.run/bench/pg, 127.0.0.1:55472,
#   track_commit_timestamp on) → devbroker (127.0.0.1:19472) → the six services on 18470–18475
#   → the peer (18490, its Postgres on 55473, data in .run/bench/peer) → deploy/bench/driver.py
#   phases → one table on stdout and bench/results/<timestamp>.json. Everything it started
#   is stopped on exit, also on failure or Ctrl-C. Ports and data dirs are its own, so a running `make run` is not disturbed
#   (but it competes for the same cores: stop it for clean figures).
#
# See deploy/bench/README.md for how each figure is measured. The bench asserts nothing.
#
# Environment (defaults):
#   BENCH_SKIP_BUILD=0      1: use already built release binaries (HEARTH_BIN_PATH or swift's path)
#   BENCH_SCRATCH_PATH=.build-static   where the bench's statically linked build lives (the first
#                           build there takes ~12 minutes on two cores; later ones are incremental)
#   BENCH_BUILD_CONFIG=release   (debug only to try the script itself; figures are meaningless)
#   BENCH_PEER=1            0: no peer runs (no ratios)
#   BENCH_PEER_DIR=../shared/peer   BENCH_PEER_VENV=.run/bench/venv-peer (created by the peer's start.sh)
#   BENCH_DURATION=10 BENCH_WARMUP=3 BENCH_CONC=1,16,64   wrk seconds per run, warm-up, connections
#   BENCH_STREAM_RUNS=200   BENCH_PIPELINE_EVENTS=200000   BENCH_REPLAY_EVENTS=1000000
#   BENCH_LAG_RATE=1000 BENCH_LAG_SECONDS=20
#   BENCH_SEARCH_PATH=/v1/rag/search/recipes?q=chicken%20tacos&k=8   Hearth's recipe search call
#   BENCH_LOG_LEVEL=info    HEARTH_LOG_LEVEL of the services (production default)
#   BENCH_PORT_BASE=18470 BENCH_KAFKA_PORT=19472 BENCH_PG_PORT=55472 BENCH_PEER_PORT=18490 BENCH_PEER_PG_PORT=55473
#   BENCH_PHASES="http stream pipeline lag replay"   which measurement phases run
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ORIG_RUN_DIR="${HEARTH_RUN_DIR-}" ORIG_VENV="${HEARTH_VENV-}"
# lib.sh: the venv stays the repository's; logs and PID files go to .run/bench.
if [ -z "${HEARTH_VENV:-}" ]; then
  case "${HEARTH_RUN_DIR:-.run}" in
    /*) HEARTH_VENV="${HEARTH_RUN_DIR}/venv" ;;
    *) HEARTH_VENV="$ROOT/${HEARTH_RUN_DIR:-.run}/venv" ;;
  esac
fi
export HEARTH_VENV
export HEARTH_RUN_DIR="$ROOT/.run/bench"
HEARTH_SCRIPT=bench
# shellcheck source=deploy/local/lib.sh
source "$ROOT/deploy/local/lib.sh"
BENCH="$RUN_DIR"              # .run/bench
HERE="$ROOT/deploy/bench"
LOCAL="$ROOT/deploy/local"

BUILD_CONFIG="${BENCH_BUILD_CONFIG:-release}"
PORT_BASE="${BENCH_PORT_BASE:-18470}"
KAFKA_PORT="${BENCH_KAFKA_PORT:-19472}"
PG_PORT="${BENCH_PG_PORT:-55472}"
PEER="${BENCH_PEER:-1}"
PEER_DIR="$(cd "${BENCH_PEER_DIR:-$ROOT/../shared/peer}" 2>/dev/null && pwd)" || PEER_DIR=""
PEER_PORT="${BENCH_PEER_PORT:-18490}"
PEER_PG_PORT="${BENCH_PEER_PG_PORT:-55473}"
PEER_VENV="$(abspath "${BENCH_PEER_VENV:-.run/bench/venv-peer}")"
PEER_RUN="$BENCH/peer"
LOG_LEVEL="${BENCH_LOG_LEVEL:-info}"
PHASES=" ${BENCH_PHASES:-http stream pipeline lag replay} "
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
STATE="$BENCH/state-$STAMP.json"
RESULTS="$ROOT/bench/results/$STAMP.json"
BIN="$BENCH/bin"
declare -A PORTS=()
i=0
for name in "${HEARTH_SERVICES[@]}"; do PORTS[$name]=$((PORT_BASE + i)); i=$((i + 1)); done

pg() {
  HEARTH_PG_DATA="$BENCH/pg" HEARTH_PG_PORT="$PG_PORT" "$LOCAL/postgres.sh" "$@"
}
peer() {  # the peer's own scripts, with the bench's ports and folders
  VENV="$PEER_VENV" PEER_RUN_DIR="$PEER_RUN" PEER_PORT="$PEER_PORT" PEER_PG_PORT="$PEER_PG_PORT" "$PEER_DIR/$1"
}
service_specs() {
  local name
  for name in "${HEARTH_SERVICES[@]}"; do printf '%s\n' "$name:$PID_DIR/$name.pid:$name"; done
}
stop_all() {
  local -a specs
  mapfile -t specs < <(service_specs)
  stop_pids 10 "${specs[@]}"
  stop_pids 10 "devbroker:$PID_DIR/devbroker.pid:devbroker"
  if [ -f "$BENCH/pg/PG_VERSION" ]; then pg stop >/dev/null 2>&1 || true; fi
  if [ -n "$PEER_DIR" ] && [ -d "$PEER_RUN" ]; then peer stop.sh >/dev/null 2>&1 || true; fi
}

STOPPING=0
cleanup() {
  local status=$?
  [ "$STOPPING" = 1 ] && return 0
  STOPPING=1
  trap '' INT TERM
  log "stopping everything the bench started"
  stop_all
  rm -f "$STATE.tmp"
  exit "$status"
}

# --- leftovers of a killed run, free ports ------------------------------------------------------
mkdir -p "$BENCH" "$LOG_DIR" "$PID_DIR" "$(dirname "$RESULTS")"
stop_all
need_free() {  # PORT VARIABLE
  if port_in_use "$1"; then die "port $1 is in use; choose another with $2"; fi
}
for name in "${HEARTH_SERVICES[@]}"; do need_free "${PORTS[$name]}" BENCH_PORT_BASE; done
need_free "$KAFKA_PORT" BENCH_KAFKA_PORT
need_free "$PG_PORT" BENCH_PG_PORT
if [ "$PEER" = 1 ] && [ ! -x "$PEER_DIR/start.sh" ]; then
  log "no peer at ${BENCH_PEER_DIR:-../shared/peer}: running without it"
  PEER=0
fi
if [ "$PEER" = 1 ]; then
  need_free "$PEER_PORT" BENCH_PEER_PORT
  need_free "$PEER_PG_PORT" BENCH_PEER_PG_PORT
fi

# --- setup and build ----------------------------------------------------------------------------
# shellcheck disable=SC2030,SC2031  # setup.sh sees the caller's own HEARTH_RUN_DIR / HEARTH_VENV
(
  if [ -n "$ORIG_RUN_DIR" ]; then export HEARTH_RUN_DIR="$ORIG_RUN_DIR"; else unset HEARTH_RUN_DIR; fi
  if [ -n "$ORIG_VENV" ]; then export HEARTH_VENV="$ORIG_VENV"; else unset HEARTH_VENV; fi
  "$LOCAL/setup.sh"
)
for tool in wrk kcat stdbuf python3 curl; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (deploy/local/setup.sh installs wrk and kcat)"
done
SCRATCH="${BENCH_SCRATCH_PATH:-$ROOT/.build-static}"
if [ "${BENCH_SKIP_BUILD:-0}" = 1 ]; then
  SRC_BIN="${HEARTH_BIN_PATH:-$(cd "$ROOT" && swift build -c "$BUILD_CONFIG" --static-swift-stdlib --scratch-path "$SCRATCH" --show-bin-path)}"
  log "not building (BENCH_SKIP_BUILD=1); binaries from $SRC_BIN"
else
  # Built as deploy/Dockerfile builds the images (the Swift runtime linked in), so the figures,
  # memory above all, are those of what compose runs; in its own scratch path, so that it does
  # not rebuild .build (dynamically linked, what `make run` and `make test` use) each time.
  log "swift build -c $BUILD_CONFIG --static-swift-stdlib --scratch-path $SCRATCH"
  (cd "$ROOT" && swift build -c "$BUILD_CONFIG" --static-swift-stdlib --scratch-path "$SCRATCH")
  SRC_BIN="$(cd "$ROOT" && swift build -c "$BUILD_CONFIG" --static-swift-stdlib --scratch-path "$SCRATCH" --show-bin-path)"
fi
# A copy, so that a concurrent build in .build cannot swap a binary under a running bench.
rm -rf "$BIN"
mkdir -p "$BIN"
for name in "${HEARTH_SERVICES[@]}" devbroker hearthctl; do
  [ -x "$SRC_BIN/$name" ] || die "no $SRC_BIN/$name (did the build succeed?)"
  cp -p "$SRC_BIN/$name" "$BIN/"
done
for res in "$SRC_BIN"/*.resources; do [ -e "$res" ] && cp -rp "$res" "$BIN/"; done

trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

driver() {  # a phase that crashes is reported; the bench goes on with the others
  python3 "$HERE/driver.py" --state "$STATE" "$@" || log "warning: driver $1 exited with status $?"
}
driver machine --build "$BUILD_CONFIG" --log-level "$LOG_LEVEL"

# --- PostgreSQL: fresh, with commit timestamps (the end-to-end lag is read from them) ----------
log "fresh PostgreSQL in $BENCH/pg on 127.0.0.1:$PG_PORT"
pg wipe >/dev/null
pg start
printf '\n# make bench: commit times of read-model rows give the end-to-end lag\ntrack_commit_timestamp = on\n' \
  >>"$BENCH/pg/postgresql.conf"
pg stop >/dev/null
pg start >/dev/null 2>&1
DB_URL="$(pg url)"
# hearthctl (ingest, and the driver's publish, which seals personal fields with the services'
# data keys) reads the bench database too.
export HEARTH_DATABASE_URL="$DB_URL"
PG_BIN="$(pg_bin_dir)"
PSQL="$PG_BIN/psql"

# --- devbroker and the six services -------------------------------------------------------------
log "devbroker on 127.0.0.1:$KAFKA_PORT"
start_devbroker "$KAFKA_PORT" devbroker || die "devbroker did not start"
KAFKA="$DEVBROKER_BOOTSTRAP"

declare -A SERVICE_PIDS=()
for name in "${HEARTH_SERVICES[@]}"; do
  : >"$LOG_DIR/$name.log"
  (
    cd "$ROOT"
    export HEARTH_ENV=dev HEARTH_HTTP_HOST=127.0.0.1 HEARTH_HTTP_PORT="${PORTS[$name]}"
    export HEARTH_DATABASE_URL="$DB_URL" HEARTH_KAFKA_BOOTSTRAP="$KAFKA"
    # shellcheck disable=SC2031
    export HEARTH_LOG_LEVEL="$LOG_LEVEL" HEARTH_RUN_DIR="$BENCH"
    # the bench sends thousands of requests a second from one address
    export HEARTH_RATE_LIMIT_PER_MIN=10000000 HEARTH_AUTH_RATE_LIMIT_PER_MIN=10000000
    # the seed's 10 assist runs per user and month would turn the stream runs into quota_exceeded
    export HEARTH_MONTHLY_QUOTA=1000000
    # one bench token reads the activity feed thousands of times a second
    export HEARTH_ACTIVITY_FEED_POLLS_PER_MIN=10000000
    # the bench signs in once and sends that access token for the whole run (longer than 15 minutes)
    export HEARTH_ACCESS_TOKEN_SECONDS=86400
    exec setsid "$BIN/$name"
  ) >>"$LOG_DIR/$name.log" 2>&1 </dev/null &
  SERVICE_PIDS[$name]=$!
  echo "$!" >"$PID_DIR/$name.pid"
done
log "started ${HEARTH_SERVICES[*]} on ports $PORT_BASE–$((PORT_BASE + ${#HEARTH_SERVICES[@]} - 1)); waiting for /readyz"
deadline=$((SECONDS + ${HEARTH_READY_TIMEOUT:-180}))
# The gateway must come up; another service that does not is recorded in the report and left out.
for name in "${HEARTH_SERVICES[@]}"; do
  problem=""
  until curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:${PORTS[$name]}/readyz" 2>/dev/null; do
    if ! kill -0 "${SERVICE_PIDS[$name]}" 2>/dev/null; then problem="exited during start-up"; break; fi
    if [ "$SECONDS" -ge "$deadline" ]; then problem="/readyz not 200 within ${HEARTH_READY_TIMEOUT:-180} s"; break; fi
    sleep 0.5
  done
  [ -z "$problem" ] && continue
  tail -n 5 "$LOG_DIR/$name.log" >&2
  [ "$name" = gateway ] && die "gateway: $problem (log $LOG_DIR/gateway.log)"
  log "warning: $name $problem; measuring without it (log $LOG_DIR/$name.log)"
  driver note "not_started.$name" "$problem: $(grep -v '"level":"\(info\|debug\)"' "$LOG_DIR/$name.log" | tail -n 1 | cut -c1-300)"
  stop_pids 5 "$name:$PID_DIR/$name.pid:$name"
done
log "Hearth is ready"
HEARTH="http://127.0.0.1:${PORTS[gateway]}"

# --- the peer -----------------------------------------------------------------------------------
PEER_URL=""
if [ "$PEER" = 1 ]; then
  log "starting the peer from $PEER_DIR (port $PEER_PORT, Postgres $PEER_PG_PORT, venv $PEER_VENV)"
  # fresh data each run, like its BASELINE.md
  if [ -d "$PEER_RUN" ]; then rm -rf "$PEER_RUN"; fi
  mkdir -p "$PEER_RUN"
  if peer start.sh >"$LOG_DIR/peer-start.log" 2>&1; then
    PEER_URL="http://127.0.0.1:$PEER_PORT"
  else
    tail -n 20 "$LOG_DIR/peer-start.log" >&2
    log "the peer did not start: running without it (log $LOG_DIR/peer-start.log)"
  fi
fi

# --- idle memory --------------------------------------------------------------------------------
hearth_pids() {  # --pid NAME=PID for the six services and devbroker
  local name
  for name in "${HEARTH_SERVICES[@]}"; do printf -- '--pid\n%s=%s\n' "$name" "${SERVICE_PIDS[$name]}"; done
  printf -- '--pid\n%s=%s\n' devbroker "$(cat "$PID_DIR/devbroker.pid")"
}
peer_pids() {  # gunicorn's master and its workers, as one entry
  local master
  if [ -n "$PEER_URL" ] && [ -f "$PEER_RUN/gunicorn.pid" ]; then
    master="$(cat "$PEER_RUN/gunicorn.pid")"
    printf -- '--pid\n%s=%s\n' "peer (gunicorn)" "$master,$(pgrep -P "$master" | paste -sd, -)"
  fi
}
sleep 5
mapfile -t RSS_ARGS < <(hearth_pids; peer_pids)
driver rss --key rss_idle "${RSS_ARGS[@]}"

# --- the knowledge base for recipe search ----------------------------------------------------------
# Hearth's search answers from the embedding-worker's index: ingest the built-in content (recipes
# and articles) and wait until every document is embedded, as a deployment would before serving.
log "ingesting the knowledge base (hearthctl ingest) and waiting for the embedding-worker"
if (cd "$ROOT" && HEARTH_KAFKA_BOOTSTRAP="$KAFKA" HEARTH_DATABASE_URL="$DB_URL" "$BIN/hearthctl" ingest) >"$LOG_DIR/ingest.log" 2>&1; then
  expected="$(grep -oE '[0-9]+ documents?' "$LOG_DIR/ingest.log" | head -n1 | grep -oE '[0-9]+' || echo 0)"
  embedded=0
  for ((i = 0; i < 600; i++)); do
    embedded="$(pg psql -tAc 'SELECT count(DISTINCT document_id) FROM document_chunks' 2>/dev/null | tr -d '[:space:]' || echo 0)"
    [ "${embedded:-0}" -ge "${expected:-1}" ] && [ "${embedded:-0}" -gt 0 ] && break
    sleep 1
  done
  log "knowledge base: $embedded of $expected documents embedded"
else
  log "warning: hearthctl ingest failed (log $LOG_DIR/ingest.log); recipe search will be measured on an empty index"
fi

# --- sign in and one household on each side ------------------------------------------------------
PREFS='{"adults":2,"kidsAges":[4,7],"allergies":["peanuts","shellfish"],"cuisines":["italian","mexican","asian"]}'
json_field() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get(sys.argv[1]) or "")' "$1" 2>/dev/null || true; }
TOKEN=""
auth_status="$(curl -sS -o "$BENCH/auth.json" -w '%{http_code}' -H 'content-type: application/json' \
  -X POST "$HEARTH/v1/auth/dev" -d '{"name":"bench"}' || true)"
if [ "$auth_status" = 200 ]; then
  TOKEN="$(json_field jwt <"$BENCH/auth.json")"
  rm -f "$BENCH/auth.json"
  log "signed in as the dev user \"bench\""
else
  log "POST /v1/auth/dev answered $auth_status: requests go without a bearer token"
fi
AUTH=()
[ -n "$TOKEN" ] && AUTH=(-H "Authorization: Bearer $TOKEN")
HID="$(curl -sS "${AUTH[@]}" -H 'content-type: application/json' -X POST "$HEARTH/v1/households/upsert" \
  -d "{\"name\":\"Bench household\",\"prefs\":$PREFS}" | json_field household_id)"
[ -n "$HID" ] || die "POST /v1/households/upsert gave no household_id (log $LOG_DIR/gateway.log)"
log "Hearth household $HID"
PEER_HID=""
if [ -n "$PEER_URL" ]; then
  PEER_HID="$(curl -sS -H 'content-type: application/json' -X POST "$PEER_URL/v1/households/upsert" \
    -d "{\"prefs\":$PREFS}" | json_field household_id)"
  log "peer household $PEER_HID"
fi

# --- measurements -------------------------------------------------------------------------------
DB_ARGS=(--psql "$PSQL" --db "$DB_URL")
KAFKA_ARGS=(--kafka "$KAFKA" --kcat "$(command -v kcat)" --hearthctl "$BIN/hearthctl")
has_phase() { [[ "$PHASES" == *" $1 "* ]]; }
if has_phase http; then
  driver http "${DB_ARGS[@]}" --hearth "$HEARTH" --hid "$HID" --peer "$PEER_URL" --peer-hid "$PEER_HID" \
    --token "$TOKEN" --conc "${BENCH_CONC:-1,16,64}" --duration "${BENCH_DURATION:-10}" --warmup "${BENCH_WARMUP:-3}" \
    --search-path "${BENCH_SEARCH_PATH:-/v1/rag/search/recipes?q=chicken%20tacos&k=8}"
fi
if has_phase stream; then
  driver stream --hearth "$HEARTH" --hid "$HID" --peer "$PEER_URL" --peer-hid "$PEER_HID" --token "$TOKEN" \
    --runs "${BENCH_STREAM_RUNS:-200}"
  # Where the milliseconds of one run went: the last run's hops, as `hearthctl trace --timings`
  # reads them from the archive (commit times on: the archive column is filled).
  sleep 1
  last_run="$(pg psql -tAc "SELECT key FROM event_log WHERE type = 'assist.requested' ORDER BY occurred_at DESC LIMIT 1" 2>/dev/null \
    | tr -d '[:space:]')" || last_run=""
  if [ -n "$last_run" ]; then
    log "stream: hops of the last run (hearthctl trace $last_run --timings)"
    (cd "$ROOT" && HEARTH_DATABASE_URL="$DB_URL" "$BIN/hearthctl" trace "$last_run" --timings) | tee "$LOG_DIR/last-run-timings.txt" >&2 || true
  fi
fi
# The peer is done: stop it so that it takes no memory or CPU from the pipeline phases.
if [ -n "$PEER_URL" ]; then
  mapfile -t RSS_ARGS < <(peer_pids)
  driver rss --key rss_load "${RSS_ARGS[@]}"
  peer stop.sh >/dev/null 2>&1 || true
fi
if has_phase pipeline; then
  driver pipeline "${DB_ARGS[@]}" "${KAFKA_ARGS[@]}" --events "${BENCH_PIPELINE_EVENTS:-200000}"
fi
if has_phase lag; then
  driver lag "${DB_ARGS[@]}" "${KAFKA_ARGS[@]}" --rate "${BENCH_LAG_RATE:-1000}" --seconds "${BENCH_LAG_SECONDS:-20}" \
    --metrics "$HEARTH/metrics"
fi
if has_phase replay; then
  driver replay "${DB_ARGS[@]}" "${KAFKA_ARGS[@]}" --total "${BENCH_REPLAY_EVENTS:-1000000}"
fi

# Peak memory of Hearth's processes over everything above (VmHWM; the peer's was read before it stopped).
mapfile -t RSS_ARGS < <(hearth_pids)
driver rss --key rss_load "${RSS_ARGS[@]}"

driver report --out "$RESULTS"
rm -f "$STATE"
