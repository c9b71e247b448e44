#!/usr/bin/env bash
# `make eval`: Hearth's offline evaluations against a local PostgreSQL + pgvector of their own
# (.run/pg-eval, 127.0.0.1:$HEARTH_EVAL_PG_PORT, kept between runs so unchanged content is not
# embedded again). Each evaluation is one section below; add new ones the same way.
#
#   search   hearthctl eval search: recall@5, MRR, nDCG@10 for vector, text and hybrid over
#            Shared/Content/eval/queries.json; fails unless hybrid beats both on nDCG@10.
#   extraction  hearthctl eval extraction: precision/recall of profile fact extraction per kind
#            and overall over Shared/Content/eval/extraction.json; fails below 0.85 overall.
#   import   hearthctl eval import: precision/recall of the daycare report parser over the sample
#            sheets (the printed ones also through a PDF and a photo); fails below 0.9. With
#            HEARTH_DAYCARE_IMPORT_PARSER=model and a provider in HEARTH_MODEL_CHAIN_EXTRACTION,
#            the model's figures too.
#   moderation  hearthctl eval moderation: precision/recall of each decision and refusal reason of
#            the activity moderation pipeline over Shared/Content/eval/moderation.json, and the
#            nearest-neighbour cosines the duplicate thresholds are measured on; fails if any
#            unsafe or medical submission is approved.
#
# Environment: HEARTH_EVAL_PG_PORT (55452), HEARTH_EVAL_ARGS (extra arguments for every
# evaluation, e.g. "--verbose"), HEARTH_EMBEDDING_PROVIDER and the other embedding settings.
set -euo pipefail
HEARTH_SCRIPT=eval
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../local/lib.sh"
HERE="$HEARTH_ROOT/deploy/local"
cd "$HEARTH_ROOT"

PG_PORT="${HEARTH_EVAL_PG_PORT:-55452}"
PG_DATA_DIR=.run/pg-eval
if [ "$PG_PORT" != 55452 ]; then PG_DATA_DIR=".run/pg-eval-$PG_PORT"; fi
pg() {
  HEARTH_PG_DATA="$PG_DATA_DIR" HEARTH_PG_PORT="$PG_PORT" HEARTH_PG_FAST=1 "$HERE/postgres.sh" "$@"
}

"$HERE/setup.sh"
log "swift build --product hearthctl"
swift build --product hearthctl
BIN="$(swift_bin_path debug)"

trap 'pg stop || true' EXIT
pg start
export HEARTH_DATABASE_URL="$(pg url)"
read -r -a extra_args <<<"${HEARTH_EVAL_ARGS:-}"

status=0

# --- search -----------------------------------------------------------------------------------
log "search evaluation"
"$BIN/hearthctl" eval search --check "${extra_args[@]}" || status=1

# --- extraction -------------------------------------------------------------------------------
log "profile fact extraction evaluation"
"$BIN/hearthctl" eval extraction --min-precision 0.85 --min-recall 0.85 "${extra_args[@]}" || status=1

# --- daycare report import ----------------------------------------------------------------------
log "daycare report parser evaluation"
"$BIN/hearthctl" eval import --min-precision 0.9 --min-recall 0.9 "${extra_args[@]}" || status=1

# --- activity moderation ------------------------------------------------------------------------
log "activity moderation evaluation"
"$BIN/hearthctl" eval moderation --check "${extra_args[@]}" || status=1

exit "$status"
