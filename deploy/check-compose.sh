#!/usr/bin/env bash
# Validates compose.yaml:
#   1. `docker-compose -f compose.yaml config -q` (syntax and interpolation; needs no engine);
#   2. deploy/check_compose.py: the set of services, the Hearth services' wiring, and that the
#      topics the kafka-init job creates (name, partitions, each .dlq with 1 partition,
#      retention.ms=-1) equal the catalogue printed by `hearthctl catalogue --json`, and that
#      deploy/prometheus/prometheus.yml scrapes each Hearth service where it listens.
# Environment: HEARTH_BIN_PATH (folder with hearthctl; default: swift build --show-bin-path,
# building hearthctl when it is missing).
set -euo pipefail
HEARTH_SCRIPT=check-compose
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/local/lib.sh"
cd "$HEARTH_ROOT"
COMPOSE_FILE="$HEARTH_ROOT/compose.yaml"

if [ ! -x "$VENV/bin/python" ] || ! command -v docker-compose >/dev/null 2>&1; then
  "$HEARTH_ROOT/deploy/local/setup.sh"
fi

# 1. docker-compose's own validation. Required secrets (${VAR:?...}) get placeholder values for
#    this check only.
placeholder_env=()
# shellcheck disable=SC2016  # a literal ${ in the patterns
while IFS= read -r var; do
  if [ -z "${!var:-}" ]; then placeholder_env+=("$var=compose-check-placeholder"); fi
done < <(grep -o '\${[A-Za-z_][A-Za-z0-9_]*:?' "$COMPOSE_FILE" | sed 's/^\${//; s/:?$//' | sort -u)
if ! out="$(env "${placeholder_env[@]}" docker-compose -f "$COMPOSE_FILE" config -q 2>&1)"; then
  printf '%s\n' "$out" >&2
  die "docker-compose config rejected compose.yaml"
fi
if [ -n "$out" ]; then printf '%s\n' "$out" >&2; fi

# 2. The catalogue, from hearthctl.
BIN="${HEARTH_BIN_PATH:-$(swift_bin_path debug)}"
if [ ! -x "$BIN/hearthctl" ]; then
  log "building hearthctl"
  swift build --product hearthctl >&2
fi
catalogue="$RUN_DIR/catalogue.json"
mkdir -p "$RUN_DIR"
if ! "$BIN/hearthctl" catalogue --json >"$catalogue" 2>"$RUN_DIR/catalogue.err"; then
  cat "$RUN_DIR/catalogue.err" >&2
  die "'hearthctl catalogue --json' failed"
fi

"$VENV/bin/python" "$HEARTH_ROOT/deploy/check_compose.py" --compose "$COMPOSE_FILE" --catalogue "$catalogue" \
  --prometheus "$HEARTH_ROOT/deploy/prometheus/prometheus.yml"
