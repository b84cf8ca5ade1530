"""Fit papernotes' three answer models on the ``fit`` split of the calibration set and report both splits.

The models (logistic regressions, scikit-learn; see :mod:`papernotes.retrieval.answerability`):

* **question** (two fits: questions that name a catalog paper, and the others) — is the question
  answered by the notes? One row per non-list question; label: it has gold titles. Class weights
  balanced; the threshold (0.5) was fixed before fitting. (Fitted without class weights, the models
  refused less on the real notes but answered the fixtures' missing details: the set holds few
  unanswerable questions that name a paper.)
* **sentence** — does a candidate sentence hold the answer? One row per candidate sentence of an
  answerable non-list question; label: the sentence contains one of its ``answer_must_contain``
  strings (questions with no such candidate are skipped).
* **membership** — is a candidate paper in the answer to a list question? One row per candidate;
  label: its title is a gold title.

and two thresholds, **lookup_at**: the framing similarity at or above which a question that names a paper
and asks only in words the notes do not use or that describe the paper ("who built X", not "what
baselines does X compare against") is a lookup (:func:`papernotes.retrieval.answerability.is_lookup`);
one row per such question, label: it has gold titles and the lookup answer (catalog line, the notes'
description, link) holds at least half of its ``answer_must_contain`` strings; the best balanced
accuracy among midpoints of observed values; and **group_at**: the similarity of a question's framing
(the question without a person's or group's name, :func:`papernotes.retrieval.lists.group_framing`) to
:data:`papernotes.retrieval.lists.PEOPLE_LIST_PARTS` at or above which it asks for their papers, fitted
the same way on the fit split of ``eval/group_framings.jsonl`` (framings with a ``{name}`` slot, labelled
1 when they ask for the named one's papers or research, 0 when they ask anything else — "{name} stock
price", "is {name} hiring"; 220 of them written by a helper who never saw the answering code) and
reported on its held split.

The split is fixed in the set itself (``split``: ``fit`` when the SHA-1 of the id, as an integer, is
even, else ``held``; a few early rows were split by hand). After fitting, ``papernotes eval`` metrics
are computed on both splits (and on any extra question files) and written to the report.

**Other collections.** Features such as idf-weighted coverage or a term's document frequency depend on
the collection they are computed in; models fitted on one collection alone refused answerable questions
on small, differently written ones. So the fit also takes the question sets of the other notes
collections listed in ``eval/collections.json`` (each notes folder ingested into its own data dir under
``--work-dir``), split by the same SHA-1 rule; the report gives their fit and held splits pooled.

Usage (from the repository root, with an index of the real notes in DATA_DIR)::

    python eval/calibrate.py --data-dir DATA_DIR [--extra ../shared/eval/dev_qa.jsonl ...]

Writes ``retrieval/calibration.json`` and ``eval/calibration_report.md`` (+ ``.json``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from papernotes.corpus.papers import title_key
from papernotes.retrieval import answerability as am
from papernotes.retrieval import lists
from papernotes.retrieval.evaluate import aggregate, contains, is_answerable, load_questions, run_eval, score_all
from papernotes.retrieval.extractive import paper_lookup
from papernotes.retrieval.indexing import ingest
from papernotes.retrieval.service import Notes
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.terms import lexical_terms

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "eval" / "calibration.jsonl"
REPORT = ROOT / "eval" / "calibration_report"
COLLECTIONS = ROOT / "eval" / "collections.json"
FRAMINGS = ROOT / "eval" / "group_framings.jsonl"
#: People and groups of the real notes' records put in the framings' ``{name}`` slot (one per framing,
#: by the SHA-1 of its id): single words, several words, a person's name.
GROUP_NAMES = ("Microsoft", "ByteDance", "Tsinghua", "UC Berkeley", "Alibaba", "Meta", "Google", "NVIDIA")
GROUP_NAMES += ("Amazon", "Xinwei Fu", "SJTU", "Huawei Cloud", "CMU")
#: Regularization strengths tried by 5-fold cross-validation on the fit split (log-loss), per model:
#: 12 values from 1e-3 to 10. Weaker regularization let collinear features (coverage in the best chunk
#: and in the top three) take large opposite weights that did not carry over to other collections.
CS = np.logspace(-3, 1, 12)
FOLDS = 5


def split_of(qid: str) -> str:
    """``fit`` when the SHA-1 of the question id, as an integer, is even, else ``held``."""
    return "fit" if int(hashlib.sha1(qid.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "held"


def other_collections(manifest: Path, work_dir: Path) -> list[tuple[str, Notes, list[dict]]]:
    """``(name, loaded notes, question rows with their split)`` of each collection of ``manifest`` (a
    JSON list of ``{"name", "notes", "questions"}``, paths relative to the repository root), each
    ingested (incrementally) into ``work_dir/<name>-<8 hex digits of the SHA-1 of the notes' absolute
    path>``: an index keeps the notes of every path ingested into it, so a checkout elsewhere gets an
    index of its own instead of adding a second copy of the notes to another checkout's."""
    out = []
    for c in json.loads(manifest.read_text(encoding="utf-8")):
        notes = (ROOT / c["notes"]).resolve()
        digest = hashlib.sha1(str(notes).encode("utf-8")).hexdigest()[:8]
        settings = Settings(data_dir=work_dir / f"{c['name']}-{digest}", _env_file=None)
        ingest(settings, [str(notes)])
        rows = load_questions(ROOT / c["questions"])
        for r in rows:
            r["split"], r["collection"] = split_of(f"{c['name']}/{r['id']}"), c["name"]
        out.append((c["name"], Notes(settings), rows))
    return out


Data = dict[str, list[tuple[dict[str, float], int]]]


def collect_all(groups: list[tuple[Notes, list[dict]]]) -> Data:
    """:func:`collect` over several collections (each with its own loaded notes), pooled."""
    data: Data = {}
    for notes, rows in groups:
        for name, got in collect(notes, rows).items():
            data.setdefault(name, []).extend(got)
    return data


def collect(notes: Notes, rows: list[dict]) -> Data:
    """Feature rows and labels of every model over ``rows``."""
    data: Data = {
        "question_named": [],
        "question_unnamed": [],
        "sentence": [],
        "membership": [],
        "lookup": [],
    }
    for row in rows:
        an = notes.analyze(row["question"])
        gold = {title_key(t) for t in row["gold_titles"]}
        if an.question.is_list:
            for x in an.list_candidates:
                data["membership"].append((dict(x.features), int(title_key(x.paper.title) in gold)))
            continue
        if not an.result.hits:
            continue
        data[am.question_model_name(an.features)].append((dict(an.features), int(is_answerable(row))))
        q = an.question
        records = [notes.catalog[r] for r in q.records]
        identity = am.identity_terms(records)
        own = {t for r in q.records for h in an.paper_hits.get(r, []) for t in lexical_terms(h.text)}
        if q.asked and not q.is_comparison and am.asks_no_more(q, notes.retriever.bm25, identity, own, records):
            # framing words only ("who built X", "what baselines does X compare against"): the lookup threshold
            # label: the lookup answer (catalog line, description, link) holds what a right answer must
            sim = notes.lookup_similarity(am.framing(q, identity))
            text = "\n".join(paper_lookup(notes.catalog[r], an.paper_hits.get(r, []))[0] for r in q.records)
            must_have = row["answer_must_contain"]
            enough = is_answerable(row) and sum(contains(text, m) for m in must_have) * 2 >= len(must_have)
            data["lookup"].append(({"similarity": sim}, int(enough)))
        must = [m.lower() for m in row["answer_must_contain"]]
        if gold and must:
            labelled = [
                (am.sentence_features(s, an.amount), int(any(m in s.text.lower() for m in must))) for s in an.sentences
            ]
            if any(y for _, y in labelled):
                data["sentence"].extend(labelled)
    return data


def fit(rows: list[tuple[dict[str, float], int]], names: tuple[str, ...]) -> tuple[am.Model, dict]:
    """A class-balanced logistic regression on ``rows``, its L2 strength chosen by cross-validation
    (:data:`CS` values, :data:`FOLDS` folds, log-loss); returns the model and fit statistics."""
    from sklearn.linear_model import LogisticRegressionCV  # the dev extra; the tests import this module without it

    x = np.array([[r[n] for n in names] for r, _ in rows], dtype=float)
    y = np.array([label for _, label in rows])
    clf = LogisticRegressionCV(Cs=list(CS), cv=FOLDS, class_weight="balanced", scoring="neg_log_loss", max_iter=5000)
    clf.fit(x, y)
    weights = {n: round(float(w), 4) for n, w in zip(names, clf.coef_[0], strict=True)}
    model = am.Model(weights, round(float(clf.intercept_[0]), 4))
    acc = float(((clf.predict_proba(x)[:, 1] >= 0.5) == y).mean())
    stats = {"rows": len(rows), "positives": int(y.sum()), "train_accuracy": round(acc, 4), "C": float(clf.C_[0])}
    return model, stats


def group_rows(
    notes: Notes, path: Path = FRAMINGS, splits: tuple[str, ...] = ("fit", "held")
) -> dict[str, list[tuple[dict[str, float], int]]]:
    """``{"fit": rows, "held": rows}`` of the group-framing set: each framing with a name of
    :data:`GROUP_NAMES` in its slot is asked (analysed as any question); a row holds its label and
    either ``similarity``, the framing similarity the threshold decided on
    (:func:`~papernotes.retrieval.lists.topic_list` compares the framing only when the question asks in
    words beyond the name), or ``listed`` (1.0/0.0), the decision made without it."""
    out: dict[str, list[tuple[dict[str, float], int]]] = {"fit": [], "held": []}
    real = notes.framing_similarity
    seen: list[float] = []

    def spy(text: str, parts: Sequence[str]) -> float:
        v = real(text, parts)
        if parts is lists.PEOPLE_LIST_PARTS:
            seen.append(v)
        return v

    notes.framing_similarity = spy  # type: ignore[method-assign]
    try:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if row["split"] not in splits:
                continue
            name = GROUP_NAMES[int(hashlib.sha1(row["id"].encode("utf-8")).hexdigest(), 16) % len(GROUP_NAMES)]
            seen.clear()
            an = notes.analyze(row["framing"].replace("{name}", name))
            got = {"similarity": seen[-1]} if seen else {"listed": float(an.question.is_list)}
            out[row["split"]].append((got, int(row["label"])))
    finally:
        del notes.framing_similarity
    return out


def threshold_scores(rows: list[tuple[dict[str, float], int]], t: float) -> dict:
    """Balanced accuracy, true-positive and true-negative rates of the decisions on ``rows`` with the
    threshold ``t`` (``similarity >= t`` where the threshold decides, else ``listed``), and how many
    rows the threshold decides."""
    said = [(r["similarity"] >= t if "similarity" in r else bool(r["listed"]), y) for r, y in rows]
    pos = [d for d, y in said if y]
    neg = [not d for d, y in said if not y]
    tpr, tnr = sum(pos) / max(len(pos), 1), sum(neg) / max(len(neg), 1)
    return {
        "rows": len(rows),
        "positives": len(pos),
        "by_threshold": sum("similarity" in r for r, _ in rows),
        "balanced_accuracy": round((tpr + tnr) / 2, 4),
        "tpr": round(tpr, 4),
        "tnr": round(tnr, 4),
    }


def fit_group(notes: Notes, fit: bool) -> dict:
    """Fit ``group_at`` on the rows of the fit split of the group-framing set that the threshold decides
    (when ``fit``; written into :data:`~papernotes.retrieval.answerability.WEIGHTS_FILE`) and score the
    decisions on both splits."""
    rows = group_rows(notes)
    if fit:  # the best balanced accuracy of all the split's decisions, those the threshold does not make too
        xs = sorted({r["similarity"] for r, _ in rows["fit"] if "similarity" in r})
        cands = [((lo + hi) / 2, hi - lo) for lo, hi in zip(xs, xs[1:], strict=False)] or [
            (lists.GROUP_AT_DEFAULT, 0.0)
        ]
        t = round(max(cands, key=lambda c: (threshold_scores(rows["fit"], c[0])["balanced_accuracy"], c[1]))[0], 4)
        saved = json.loads(am.WEIGHTS_FILE.read_text(encoding="utf-8")) if am.WEIGHTS_FILE.is_file() else {}
        saved["group_at"] = t
        am.WEIGHTS_FILE.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")
        am.calibration.cache_clear()
    t = lists.group_threshold()
    return {"threshold": t, "fit": threshold_scores(rows["fit"], t), "held": threshold_scores(rows["held"], t)}


def fit_threshold(
    rows: list[tuple[dict[str, float], int]], default: float = am.LOOKUP_AT_DEFAULT
) -> tuple[float, dict]:
    """The framing-similarity threshold of :func:`papernotes.retrieval.answerability.is_lookup`: of the
    midpoints between consecutive observed similarities, the one with the best balanced accuracy
    (answerable questions at or above it, unanswerable ones below), ties broken by the widest gap."""
    xs = sorted({r["similarity"] for r, _ in rows})
    pos = [r["similarity"] for r, y in rows if y]
    neg = [r["similarity"] for r, y in rows if not y]
    if not pos or not neg or len(xs) < 2:
        return default, {"rows": len(rows), "positives": len(pos)}
    best: tuple[float, float, float] = (-1.0, 0.0, default)
    for lo, hi in zip(xs, xs[1:], strict=False):
        t = (lo + hi) / 2
        acc = (sum(x >= t for x in pos) / len(pos) + sum(x < t for x in neg) / len(neg)) / 2
        best = max(best, (acc, hi - lo, t))
    acc, _, t = best
    return round(t, 4), {"rows": len(rows), "positives": len(pos), "balanced_accuracy": round(acc, 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, required=True, help="data dir holding an index of the real notes")
    ap.add_argument("--set", type=Path, default=SET)
    ap.add_argument("--extra", type=Path, nargs="*", default=[], help="more question files to report")
    ap.add_argument("--no-fit", action="store_true", help="only report, with the current weights")
    ap.add_argument("--collections", type=Path, default=COLLECTIONS, help="other collections' question sets")
    ap.add_argument("--only-group", action="store_true", help="only fit (or score) the group-framing threshold")
    # one work dir per checkout: a collection ingested from another checkout's path is another source,
    # and its chunks would sit beside these as copies
    checkout = hashlib.sha1(str(ROOT).encode("utf-8")).hexdigest()[:8]
    ap.add_argument("--work-dir", type=Path, default=Path(tempfile.gettempdir()) / f"papernotes-calibration-{checkout}")
    args = ap.parse_args()
    settings = Settings(data_dir=args.data_dir, _env_file=None)
    notes = Notes(settings)
    rows = load_questions(args.set)
    fit_rows = [r for r in rows if r.get("split") == "fit"]
    held_rows = [r for r in rows if r.get("split") == "held"]
    others = (
        other_collections(args.collections, args.work_dir) if args.collections.is_file() and not args.only_group else []
    )
    fit_groups = [(notes, fit_rows)] + [(n, [r for r in rs if r["split"] == "fit"]) for _, n, rs in others]
    n_fit = sum(len(rs) for _, rs in fit_groups)
    stats: dict[str, dict] = {}
    if not args.no_fit and not args.only_group:
        am.WEIGHTS_FILE.unlink(missing_ok=True)
        am.calibration.cache_clear()
        t = time.perf_counter()
        out = {}
        # the sentence model first: the question model uses its best sentence score as a feature
        data = collect_all(fit_groups)
        model, stats["sentence"] = fit(data["sentence"], am.SENTENCE_FEATURES)
        out["sentence"] = {"weights": model.weights, "bias": model.bias}
        write_weights(args.set, n_fit, stats, out)
        data = collect_all(fit_groups)
        print(f"collected features of {n_fit} fit questions in {time.perf_counter() - t:.0f} s", file=sys.stderr)
        for name, feats in (
            ("question_named", am.QUESTION_FEATURES),
            ("question_unnamed", am.QUESTION_FEATURES),
            ("membership", lists.MEMBERSHIP_FEATURES),
        ):
            model, st = fit(data[name], feats)
            out[name] = {"weights": model.weights, "bias": model.bias}
            stats[name] = st
        lookup_at, stats["lookup"] = fit_threshold(data["lookup"])
        write_weights(args.set, n_fit, stats, out, lookup_at)
    if args.no_fit and am.WEIGHTS_FILE.is_file():
        stats = json.loads(am.WEIGHTS_FILE.read_text(encoding="utf-8")).get("stats", {})
    group = fit_group(notes, fit=not args.no_fit)
    print(f"group framings: {group}", file=sys.stderr)
    if args.only_group:
        return
    report: dict[str, dict] = {"fit": {}, "models": stats, "group framings": group}
    for name, subset in (("fit", fit_rows), ("held", held_rows)):
        report[name] = run_eval(subset, lambda q: notes.ask(q, use_llm=False), settings.k)
    per: dict[str, dict] = {}
    for split in ("fit", "held"):  # the other collections, pooled
        scored: list[dict] = []
        lat: list[float] = []
        for name, other, rs in others:
            got = score_all([r for r in rs if r["split"] == split], lambda q, o=other: o.ask(q, use_llm=False), 5)
            scored, lat = scored + got[0], lat + got[1]
            per.setdefault(name, {"scored": [], "lat": []})
            per[name]["scored"] += got[0]
            per[name]["lat"] += got[1]
        if scored:
            report[f"collections {split}"] = aggregate(scored, lat)
    report["per collection"] = {name: aggregate(p["scored"], p["lat"]) for name, p in per.items() if p["scored"]}
    for path in args.extra:
        report[path.name] = run_eval(load_questions(path), lambda q: notes.ask(q, use_llm=False), settings.k)
    Path(f"{REPORT}.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    Path(f"{REPORT}.md").write_text(render(report, len(fit_rows), len(held_rows)), encoding="utf-8")
    print(render(report, len(fit_rows), len(held_rows)))


def write_weights(path: Path, n_fit: int, stats: dict, models: dict, lookup_at: float = am.LOOKUP_AT_DEFAULT) -> None:
    """Write :data:`papernotes.retrieval.answerability.WEIGHTS_FILE` (models not yet fitted keep their
    starting values; ``lookup_at``: the threshold of
    :func:`~papernotes.retrieval.answerability.is_lookup`) and make the next analysis use it."""
    full = {name: {"weights": m.weights, "bias": m.bias} for name, m in am.models().items()}
    full.update(models)
    am.WEIGHTS_FILE.write_text(
        json.dumps(
            {
                "fitted_on": f"{path.name} and eval/collections.json, split=fit ({n_fit} questions)",
                "threshold": am.ANSWERABLE_AT,
                "lookup_at": lookup_at,
                "stats": stats,
                "models": full,
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    am.calibration.cache_clear()


METRICS = ("hit_at_k", "recall_at_k", "mrr", "answer_contains", "refusal_accuracy", "false_refusal_rate")


def render(report: dict, n_fit: int, n_held: int) -> str:
    """The report as Markdown: one column per question set, one row per metric."""
    sets = [k for k in report if k not in ("models", "per collection", "group framings")]
    lines = [
        "# Calibration report",
        "",
        f"Models fitted on the `fit` split ({n_fit} questions) of `eval/calibration.jsonl`; `held` ({n_held}"
        " questions) was not used for fitting. `collections fit` / `collections held`: the question sets of"
        " the other notes collections of `eval/collections.json`, pooled (their fit split was fitted on too)."
        " Extractive answers, k = 5. Generated by `eval/calibrate.py`.",
        "",
        "| metric | " + " | ".join(sets) + " |",
        "|---|" + "---|" * len(sets),
    ]
    for m in METRICS:
        lines.append(f"| {m} | " + " | ".join(_fmt(report[s].get(m)) for s in sets) + " |")
    lines.append(
        "| list recall (list questions, recall@k of gold titles in the answer) | "
        + " | ".join(_fmt(report[s].get("list_recall")) for s in sets)
        + " |"
    )
    lines.append(
        "| latency p50 / p95 ms | "
        + " | ".join(f"{report[s]['latency_ms']['p50']} / {report[s]['latency_ms']['p95']}" for s in sets)
        + " |"
    )
    per = report.get("per collection", {})
    if per:
        lines += [
            "",
            "## Each other collection (all its questions, fit and held)",
            "",
            "| collection | n | hit@5 | answer-contains | refusal acc. | false refusals | list recall |",
            "|---|---|---|---|---|---|---|",
        ]
        for name, r in per.items():
            cells = [r["n"], r["hit_at_k"], r["answer_contains"], r["refusal_accuracy"]]
            cells += [r["false_refusal_rate"], r["list_recall"]]
            lines.append(f"| {name} | " + " | ".join(_fmt(c) for c in cells) + " |")
    lines += ["", "## Model fits", ""]
    for name, st in report.get("models", {}).items():
        if "C" not in st:  # the lookup threshold
            lines.append(f"- {name} threshold: {st.get('rows')} rows, balanced accuracy {st.get('balanced_accuracy')}")
            continue
        lines.append(
            f"- {name}: {st['rows']} rows, {st['positives']} positive, C = {st['C']:.3g} (cross-validated), "
            f"training accuracy {st['train_accuracy']}"
        )
    group = report.get("group framings")
    if group:
        lines += [
            "",
            "## A person's or group's papers (`eval/group_framings.jsonl`)",
            "",
            f"Threshold `group_at` = {group['threshold']} (fitted on the fit split).",
            "",
            "| split | framings | asking for papers | decided by the threshold | balanced accuracy | listed when"
            " asked | not listed when not |",
            "|---|---|---|---|---|---|---|",
        ]
        for split in ("fit", "held"):
            g = group[split]
            cells = [g["rows"], g["positives"], g["by_threshold"], g["balanced_accuracy"], g["tpr"], g["tnr"]]
            lines.append(f"| {split} | " + " | ".join(_fmt(c) for c in cells) + " |")
    lines += ["", "## Misses on the held split", ""]
    for d in report["held"].get("miss_details", []):
        lines.append(f"- {d['id']}: {d['why']}")
    return "\n".join(lines) + "\n"


def _fmt(v: object) -> str:
    return "—" if v is None else str(v)


if __name__ == "__main__":
    main()
