"""Write the template-made part of the calibration set (``eval/calibration.jsonl`` rows with
``writer: "template"``) from an index of the real notes.

The other part was written by hand, by a writer who had not seen the answering code. Templates vary
the phrasing (short, casual, lowercase venues, possessives, a few non-English question words) over
papers drawn at random from the catalog, and make unanswerable questions from names that occur nowhere
in the notes, venue-years the notes lack, well-known models the notes do not mention, and amounts the
paper's notes do not state. Every gold string is checked against the raw note files before a row is
kept.

Usage: ``python eval/template_questions.py DATA_DIR CORPUS_DIR > rows.jsonl`` (DATA_DIR holds an
index of CORPUS_DIR).
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

from papernotes.corpus.catalog import load_catalog
from papernotes.corpus.normalize import compact
from papernotes.corpus.venues import split_venue

SEED = 20261130
#: Well-known models and systems to ask about; kept only when the notes never name them.
FAMOUS = [
    ("Claude 3 Opus", "what is the context window of Claude 3 Opus?"),
    ("Gemma 2", "gemma 2 - how many tokens was it trained on?"),
    ("Mistral Large", "how many parameters does mistral large have"),
    ("Phi-3", "What data was Phi-3 trained on?"),
    ("Falcon 180B", "falcon 180b training cluster size?"),
    ("PaLM 2", "PaLM 2's vocabulary size?"),
    ("Chinchilla", "what compute-optimal ratio did chinchilla find"),
    ("BLOOM", "How many languages does BLOOM cover?"),
    ("Command R+", "command r+ context length?"),
    ("Jamba", "how many mamba layers does jamba use"),
    ("DBRX", "DBRX - how many experts?"),
    ("Nemotron-4", "nemotron-4 340b reward model accuracy?"),
    ("OLMo", "which dataset was OLMo trained on?"),
    ("StarCoder2", "starcoder2 languages supported?"),
    ("InternLM2", "InternLM2 的上下文长度是多少?"),
    ("Grok-1", "grok-1 parameter count"),
    ("Yi-34B", "¿cuántos parámetros tiene Yi-34B?"),
    ("Stable Diffusion 3", "What text encoders does Stable Diffusion 3 use?"),
]
LOOKUP = [
    "what is {S}?",
    "{S} paper?",
    "who built {s}",
    "where was {S} published?",
    "{s} - what's it do?",
    "tell me about {S}",
    "summarize the {S} paper",
    "{S} ({vc})?",
    "what does {S} do",
    "{S} 是什么?",
    "¿qué es {S}?",
    "{S}'s main idea?",
    "whats {s}",
    "{s} {vc} - whose is it?",
]
FAKE = ["what is {F}?", "{F} paper?", "who built {F}", "{F} ({vc}) - how fast is it?", "what does {f} do"]
ABSENT_VENUE = ["which {v} papers are about LLM serving?", "{vc} kv cache papers?", "any scheduling work at {vc}?"]
LIST = [
    "which {v} papers are about {h}?",
    "{vc} {hl} papers?",
    "list the {h} papers at {v}",
    "any {hl} work at {vc}? list them",
]
NO_NUMBER = ["how many GPUs did {S} use in its evaluation?", "{s} - what speedup does it report?"]


def casual_venue(venue: str, rng: random.Random) -> str:
    series, year = split_venue(venue)
    y = year or 0
    forms = [
        f"{series.lower()}'{y % 100:02d}",
        f"{series.lower()}{y % 100:02d}",
        f"{series} {y}",
        f"{series.lower()} {y}",
    ]
    return rng.choice(forms)


def main(data_dir: Path, corpus: Path) -> None:
    rng = random.Random(SEED)
    raw = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(corpus.rglob("*")) if p.is_file())
    raw_compact = compact(raw)
    catalog = load_catalog(data_dir / "catalog.json")
    rows: list[dict] = []

    def add(qtype: str, question: str, gold: list[str], must: list[str], note: str) -> None:
        assert all(m in raw for m in must), (question, must)
        assert all(g in raw for g in gold), (question, gold)
        rows.append(
            {
                "id": f"t{len(rows) + 1:03d}",
                "type": qtype,
                "question": question,
                "gold_titles": gold,
                "answer_must_contain": must,
                "notes": note,
                "writer": "template",
            }
        )

    named = [
        r
        for r in catalog
        if r.system
        and r.venue
        and r.affiliations
        and len(compact(r.system)) >= 4
        and r.system in raw
        and r.venue in raw
        and not r.venue.startswith("arXiv")
    ]
    rng.shuffle(named)
    for r in named[:60]:
        t = rng.choice(LOOKUP)
        sysname = r.system or ""
        q = t.format(S=sysname, s=sysname.lower(), vc=casual_venue(r.venue or "", rng))
        must = [sysname]
        if "who" in t or "whose" in t:
            aff = r.affiliations[0]
            if aff in raw:
                must.append(aff)
        if "where" in t:
            must.append(r.venue or "")
        add("paper_lookup", q, [r.title], must, f"catalog record {r.title!r} ({r.venue}); template {t!r}")

    systems = [r.system for r in catalog if r.system and 4 <= len(r.system) <= 12 and r.system.isalpha()]
    fakes: list[str] = []
    while len(fakes) < 15:
        a, b = rng.sample(systems, 2)
        f = a[: max(2, len(a) // 2)] + b[len(b) // 2 :].capitalize() + rng.choice(["", "-2", "X", "KV", "Pro"])
        if compact(f) not in raw_compact and f not in fakes and len(f) >= 5:
            fakes.append(f)
    venues = sorted({r.venue for r in catalog if r.venue and not r.venue.startswith("arXiv")})
    for f in fakes:
        t = rng.choice(FAKE)
        q = t.format(F=f, f=f.lower(), vc=casual_venue(rng.choice(venues), rng))
        add("unanswerable", q, [], [], f"name {f!r}: its letters and digits occur nowhere in the notes")

    have = set(venues)
    by_series = defaultdict(set)
    for v in venues:
        s, y = split_venue(v)
        if y:
            by_series[s].add(y)
    absent = []
    for s, years in sorted(by_series.items()):
        for y in (min(years) - 1, max(years) + 1):
            v = f"{s} {y}"
            if v not in have and v not in raw and compact(f"{s}{y % 100:02d}") not in raw_compact and 2015 <= y <= 2026:
                absent.append(v)
    rng.shuffle(absent)
    for v in absent[:10]:
        t = rng.choice(ABSENT_VENUE)
        add("unanswerable", t.format(v=v, vc=casual_venue(v, rng)), [], [], f"venue {v!r} is not in the notes")

    for name, q in FAMOUS:
        if compact(name) not in raw_compact:
            add("unanswerable", q, [], [], f"{name!r} is named nowhere in the notes")

    chunks = json.loads((data_dir / "bm25" / "chunks.json").read_text(encoding="utf-8"))["texts"]
    plain = [r for r in named[60:] if r.system]
    kept = 0
    for r in plain:
        if kept >= 8:
            break
        sysname = r.system or ""
        about = [t for t in chunks if sysname in t]
        text = re.sub(r"\b[A-Za-z]+[ '-]?(?:19|20)?\d\d\b|https?://\S+|\b(?:19|20)\d\d\b", "", " ".join(about))
        if r.deep_note or re.search(r"\d", text):
            continue
        t = rng.choice(NO_NUMBER)
        add(
            "unanswerable",
            t.format(S=sysname, s=sysname.lower()),
            [],
            [],
            f"{r.title!r}: its notes (one bullet, no deep note) state no number",
        )
        kept += 1

    groups: dict[tuple[str, str], list] = defaultdict(list)
    for r in catalog:
        for path in r.topics:
            parts = [p.strip() for p in path.split(" › ")]
            if (
                len(parts) >= 3
                and parts[1].lower() in ("papers", "paper list", "accepted papers")
                and r.venue == parts[0]
            ):
                groups[(parts[0], parts[-1])].append(r)
    eligible = [
        (k, v)
        for k, v in groups.items()
        if 2 <= len(v) <= 6
        and len(k[1].split()) <= 5
        and all(x.system and x.system in raw for x in v)
        and not k[0].startswith("arXiv")
    ]
    rng.shuffle(eligible)
    for (venue, head), recs in eligible[:22]:
        t = rng.choice(LIST)
        q = t.format(v=venue, vc=casual_venue(venue, rng), h=head, hl=head.lower())
        add(
            "list_query",
            q,
            [r.title for r in recs],
            [r.system or "" for r in recs],
            f"{venue} page, heading {head!r}: {len(recs)} papers",
        )
    rows += lacking(catalog, json.loads((data_dir / "bm25" / "chunks.json").read_text(encoding="utf-8")), raw)
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))


#: Attributes a paper's notes often lack, each as (question templates, pattern that would state it in
#: the paper's own chunks). A question is kept only when none of the paper's chunks match the pattern,
#: so the notes do not answer it (its name resolves, what is asked is absent).
LACKING = [
    (
        ["what GPUs did {S} run its experiments on?", "{s} eval hardware?"],
        r"GPU|A100|H100|H800|H20|V100|A10G?|L40|L4|T4|B200|RTX|\d{4}\b|TPU|NPU|Ascend|MI\d|cluster|node|machine",
    ),
    (
        ["which datasets did {S} evaluate on?", "{s}'s eval workloads/traces?"],
        r"dataset|trace|benchmark|workload|ShareGPT|corpus|MMLU|GSM|HumanEval|LongBench|Azure|production|Criteo|ImageNet",
    ),
    (
        ["what baselines does {S} compare against?", "{s} vs which baselines?"],
        r"baseline|compar|\bvs\b|versus|\bover\b|outperform|than|state-of-the-art|SOTA|speedup|\d+(?:\.\d+)?\s*[x×]",
    ),
    (
        ["is {S} open source - where's the code?", "{s} github repo?"],
        r"github|gitlab|code|open[- ]source|artifact",
    ),
]


def lacking(catalog: list, chunks: dict, raw: str) -> list[dict]:
    """Unanswerable questions about papers the notes name: an attribute (:data:`LACKING`) none of the
    paper's own chunks states. Ids ``tl001`` …; deterministic (seeded)."""
    rng = random.Random(SEED + 1)
    own: dict[str, list[str]] = defaultdict(list)
    for text, meta in zip(chunks["texts"], chunks["metadatas"], strict=True):
        if meta.get("paper_title"):
            own[str(meta["paper_title"])].append(text)
    papers = [
        r
        for r in catalog
        if r.system and " " not in r.system and len(compact(r.system)) >= 4 and r.system in raw and own.get(r.title)
    ]
    rng.shuffle(papers)
    out: list[dict] = []
    for templates, pattern in LACKING:
        kept = 0
        for r in papers:
            if kept >= 8:
                break
            if re.search(pattern, "\n".join(own[r.title]) + " " + " ".join(r.links), re.IGNORECASE):
                continue
            if r.deep_note or any(r.title in t and "Personal Notes" in t for t in own[r.title]):
                continue  # a deep note says much more than its chunks' text shows here
            t = rng.choice(templates)
            out.append(
                {
                    "id": f"tl{len(out) + 1:03d}",
                    "type": "unanswerable",
                    "question": t.format(S=r.system, s=(r.system or "").lower()),
                    "gold_titles": [],
                    "answer_must_contain": [],
                    "notes": f"{r.title!r} is in the notes, but none of its {len(own[r.title])} chunk(s) match "
                    f"/{pattern}/ (case-insensitive), nor do its links",
                    "writer": "template",
                }
            )
            kept += 1
            papers.remove(r)
    return out


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
