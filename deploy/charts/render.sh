#!/usr/bin/env bash
# Renders the baby-tracking charts the gateway serves (`GET /v1/children/{id}/charts/*.svg`) to
# the PNGs beside this script, with headless Chromium, so the README shows what a browser shows,
# and page 1 of a pediatrician summary PDF (rendered by poppler's pdftoppm in its test). Both come
# from a real run: the tests fetch them from a gateway and, with HEARTH_CHART_SAMPLES set, write
# them out. Chromium (Debian `chromium`) comes with `make setup` (the admin console's tests use it),
# and is installed here too when missing.
set -euo pipefail
HEARTH_SCRIPT=charts
source "$(dirname "${BASH_SOURCE[0]}")/../local/lib.sh"
OUT="$HEARTH_ROOT/deploy/charts"

if ! command -v chromium >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || die "chromium is missing (apt-get install chromium fonts-dejavu-core, as root)"
  log "installing chromium"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi

SAMPLES="$(mktemp -d)"
trap 'rm -rf "$SAMPLES"' EXIT
HEARTH_CHART_SAMPLES="$SAMPLES" TEST_ARGS='--filter statisticsPredictionChartsAndExportAddUpTheLogs|aSummaryRunGivesMetricsANarrativeAndAPDF' "$HEARTH_ROOT/deploy/local/test.sh"
for svg in "$SAMPLES"/*.svg; do
  name="$(basename "$svg" .svg)"
  width="$(grep -o 'width="[0-9]*"' "$svg" | head -1 | tr -dc 0-9)"
  height="$(grep -o 'height="[0-9]*"' "$svg" | head -1 | tr -dc 0-9)"
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$width,$height" \
    --screenshot="$OUT/$name.png" "file://$svg" >/dev/null 2>&1
  log "rendered $OUT/$name.png (${width}x${height})"
done
cp "$SAMPLES"/summary-page-1.png "$OUT/" && log "copied $OUT/summary-page-1.png"
