#!/usr/bin/env bash
# `make run`: the whole of Hearth on this machine, in the foreground.
#   setup → swift build → PostgreSQL (.run/pg, 127.0.0.1:55432) → devbroker (127.0.0.1:9092)
#   → the six services (ports 8080–8085) → wait until every /readyz answers 200 → wait.
# Ctrl-C or SIGTERM stops the services (SIGTERM, SIGKILL after 10 s), then devbroker, then
# PostgreSQL. devbroker keeps events in memory only, so every run starts with an empty database
# (the cluster in .run/pg is kept; its `hearth` database is emptied at start).
# Logs: .run/logs/<name>.log; PIDs: .run/pids/<name>.pid.
#
#   run.sh          start everything (as above)
#   run.sh stop     stop what a previous run left behind (by its PID files)
#
# Environment (defaults): HEARTH_BUILD_CONFIG=debug (or release), HEARTH_LOG_LEVEL=info,
# HEARTH_KAFKA_PORT=9092, HEARTH_PG_DATA=.run/pg, HEARTH_PG_PORT=55432,
# HEARTH_READY_TIMEOUT=120 (seconds), HEARTH_SKIP_BUILD=1 to use already built binaries (from
# HEARTH_BIN_PATH if set).
set -euo pipefail
HEARTH_SCRIPT=run
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HERE="$HEARTH_ROOT/deploy/local"

BUILD_CONFIG="${HEARTH_BUILD_CONFIG:-debug}"
KAFKA_PORT="${HEARTH_KAFKA_PORT:-9092}"
READY_TIMEOUT="${HEARTH_READY_TIMEOUT:-120}"
export HEARTH_PG_DATA="${HEARTH_PG_DATA:-.run/pg}"
export HEARTH_PG_PORT="${HEARTH_PG_PORT:-55432}"
case "$BUILD_CONFIG" in debug | release) ;; *) die "HEARTH_BUILD_CONFIG must be debug or release" ;; esac

service_specs() {  # NAME:PIDFILE:EXPECTED for stop_pids
  local name
  for name in "${HEARTH_SERVICES[@]}"; do
    printf '%s\n' "$name:$PID_DIR/$name.pid:$name"
  done
}

stop_all() {
  local -a specs
  mapfile -t specs < <(service_specs)
  stop_pids 10 "${specs[@]}"
  stop_pids 10 "devbroker:$PID_DIR/devbroker.pid:devbroker"
  "$HERE/postgres.sh" stop || true
}

if [ "${1:-}" = stop ]; then
  stop_all
  exit 0
fi
[ $# -eq 0 ] || die "usage: $0 [stop]"

# --- refuse to start twice --------------------------------------------------------------------
for name in "${HEARTH_SERVICES[@]}" devbroker; do
  if pid_alive "$PID_DIR/$name.pid" "$name"; then
    die "$name is already running (pid $(cat "$PID_DIR/$name.pid")); stop it with 'make stop'"
  fi
done
for name in "${HEARTH_SERVICES[@]}"; do
  if port_in_use "${HEARTH_PORTS[$name]}"; then
    die "port ${HEARTH_PORTS[$name]} ($name) is already in use"
  fi
done

# --- setup and build --------------------------------------------------------------------------
"$HERE/setup.sh"
if [ "${HEARTH_SKIP_BUILD:-0}" = 1 ]; then
  BIN="${HEARTH_BIN_PATH:-$(swift_bin_path "$BUILD_CONFIG")}"
  log "not building (HEARTH_SKIP_BUILD=1); binaries from $BIN"
else
  log "swift build -c $BUILD_CONFIG"
  (cd "$HEARTH_ROOT" && swift build -c "$BUILD_CONFIG")
  BIN="$(swift_bin_path "$BUILD_CONFIG")"
fi
for name in "${HEARTH_SERVICES[@]}" devbroker; do
  [ -x "$BIN/$name" ] || die "the build produced no $BIN/$name"
done

# --- start ------------------------------------------------------------------------------------
STOPPING=0
cleanup() {
  [ "$STOPPING" = 1 ] && return 0
  STOPPING=1
  trap '' INT TERM
  echo >&2
  log "shutting down"
  stop_all
  log "stopped"
}
trap cleanup EXIT
trap 'exit 0' INT TERM   # the EXIT trap does the stopping

mkdir -p "$LOG_DIR" "$PID_DIR"
"$HERE/postgres.sh" start
# devbroker keeps events in memory only, so each run starts from no events: the read models
# start empty too (see postgres.sh reset-db for why they cannot be kept).
"$HERE/postgres.sh" reset-db
DATABASE_URL="$("$HERE/postgres.sh" url)"

log "starting devbroker on 127.0.0.1:$KAFKA_PORT (log $LOG_DIR/devbroker.log)"
start_devbroker "$KAFKA_PORT" devbroker || die "devbroker did not start"
log "devbroker ready: $DEVBROKER_BOOTSTRAP"

declare -A SERVICE_PIDS=()
for name in "${HEARTH_SERVICES[@]}"; do
  log_file="$LOG_DIR/$name.log"
  : >"$log_file"
  (
    cd "$HEARTH_ROOT"
    export HEARTH_ENV=dev HEARTH_HTTP_HOST=127.0.0.1 HEARTH_HTTP_PORT="${HEARTH_PORTS[$name]}"
    export HEARTH_DATABASE_URL="$DATABASE_URL" HEARTH_KAFKA_BOOTSTRAP="$DEVBROKER_BOOTSTRAP"
    export HEARTH_LOG_LEVEL="${HEARTH_LOG_LEVEL:-info}" HEARTH_RUN_DIR="$RUN_DIR"
    exec setsid "$BIN/$name"
  ) >>"$log_file" 2>&1 </dev/null &
  SERVICE_PIDS[$name]=$!
  echo "$!" >"$PID_DIR/$name.pid"
  log "started $name (pid $!, port ${HEARTH_PORTS[$name]}, log $log_file)"
done

# --- wait for readiness -----------------------------------------------------------------------
show_log_tail() {
  log "last lines of $LOG_DIR/$1.log:"
  tail -n 40 "$LOG_DIR/$1.log" >&2 || true
}

declare -A READY=()
deadline=$((SECONDS + READY_TIMEOUT))
while [ "${#READY[@]}" -lt "${#HEARTH_SERVICES[@]}" ]; do
  for name in "${HEARTH_SERVICES[@]}"; do
    [ -n "${READY[$name]:-}" ] && continue
    if ! kill -0 "${SERVICE_PIDS[$name]}" 2>/dev/null; then
      status=0
      wait "${SERVICE_PIDS[$name]}" || status=$?
      log "$name exited during startup (status $status)"
      show_log_tail "$name"
      exit 1
    fi
    if curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:${HEARTH_PORTS[$name]}/readyz" 2>/dev/null; then
      READY[$name]=1
      log "$name is ready"
    fi
  done
  [ "${#READY[@]}" -lt "${#HEARTH_SERVICES[@]}" ] || break
  if [ "$SECONDS" -ge "$deadline" ]; then
    for name in "${HEARTH_SERVICES[@]}"; do
      if [ -z "${READY[$name]:-}" ]; then
        log "$name: /readyz did not answer 200 within ${READY_TIMEOUT}s"
        show_log_tail "$name"
      fi
    done
    exit 1
  fi
  sleep 0.5
done

echo
echo "Hearth is up: http://127.0.0.1:${HEARTH_PORTS[gateway]}"
echo "  logs: $LOG_DIR/<name>.log (devbroker, pg, ${HEARTH_SERVICES[*]})"
echo "  database: $DATABASE_URL   kafka: $DEVBROKER_BOOTSTRAP"
echo "  Ctrl-C stops everything."

# --- wait until interrupted, or until a process dies ------------------------------------------
while :; do
  for name in "${HEARTH_SERVICES[@]}"; do
    if ! kill -0 "${SERVICE_PIDS[$name]}" 2>/dev/null; then
      status=0
      wait "${SERVICE_PIDS[$name]}" || status=$?
      log "$name exited unexpectedly (status $status)"
      show_log_tail "$name"
      exit 1
    fi
  done
  if ! pid_alive "$PID_DIR/devbroker.pid" devbroker; then
    log "devbroker exited unexpectedly"
    show_log_tail devbroker
    exit 1
  fi
  sleep 2 &
  wait $! || true
done
