"""Rendering results for a terminal (rich). No logic beyond layout."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from papernotes.retrieval.answer import Answer
from papernotes.retrieval.ingest_warnings import split_warnings
from papernotes.retrieval.prompts import EXTRACTIVE_LABEL
from papernotes.retrieval.summarize.results import plural


def source_line(c) -> str:
    """``[n] Page › Section — Paper (Venue) <url>`` for one citation."""
    where = " › ".join(x for x in (c.page_title, c.section) if x)
    paper = f" — {c.paper_title}" if c.paper_title and c.paper_title != c.page_title else ""
    venue = f" ({c.venue})" if c.venue else ""
    url = f" {c.url}" if c.url else ""
    return f"[{c.n}] {where}{paper}{venue}{url}"


def render_answer(con: Console, a: Answer, streamed: bool = False) -> None:
    """Answer text (unless already streamed), its label/notes, and the Sources list.

    ``streamed``: the model's text was already printed token by token; a newline ends it. When citation
    checking changed that text (invalid markers removed, sources renumbered), the checked answer is
    printed again under a "checked answer" label, so the printed markers match the Sources list.
    """
    if streamed:
        con.print()
    if a.searched:
        con.print(f"[dim]searched for: {escape(a.searched)}[/]", highlight=False)
    if a.mode == "extractive" and not a.refused and not a.clarify:
        con.print(f"[dim]{EXTRACTIVE_LABEL}[/]")
    if not streamed or a.mode != "llm" or a.model_text is None:  # (a refusal made before any model call)
        con.print(a.answer, markup=False)
    elif a.model_text is not None and a.model_text.strip() != a.answer.strip():
        con.print("\n[dim]checked answer (citations removed or renumbered to match the sources):[/]")
        con.print(a.answer, markup=False)
    if a.mode == "llm" and a.dropped_citations:
        con.print(
            f"[dim]{a.dropped_citations} citation marker(s) removed: they named no given source[/]", highlight=False
        )
    if a.mode == "llm" and a.dropped_links:
        con.print(f"[dim]{a.dropped_links} link(s) removed: no cited note contains them[/]", highlight=False)
    if a.mode == "llm" and not a.refused and not a.grounded:
        con.print(
            "[yellow]warning[/]: the model cited no sources; this answer is not grounded in the notes", highlight=False
        )
    if a.note:
        con.print(f"[yellow]note[/]: {a.note}", highlight=False)
    if a.citations:
        con.print("\n[bold]Sources[/]")
        for c in a.citations:
            con.print(source_line(c), markup=False, highlight=False)


def render_search(con: Console, res) -> None:
    if res.filters:
        shown = ", ".join(f"{k} {v}" for k, v in res.filters.as_dict().items())
        con.print(f"[dim]filters: {escape(shown)}{' (detected)' if res.detected else ''}[/]")
    if res.fallback:
        con.print("[dim]nothing matched the detected filters; showing unfiltered results[/]")
    for h in res.hits:
        con.print(
            f"[bold]{h.rank}.[/] {h.score:.4f} (dense {h.dense:.3f}, bm25 {h.bm25:.2f}) "
            f"[cyan]{' › '.join(str(x) for x in (h.get('page_title'), h.get('section')) if x)}[/]",
            highlight=False,
        )
        body = h.body.replace("\n", " ")
        con.print("   " + body[:240] + ("…" if len(body) > 240 else ""), markup=False, highlight=False)


def render_papers(con: Console, recs) -> None:
    """The catalog records as a table that fits ``con``'s width: title (with the system), venue (its
    history when the notes moved it), affiliations, topics (else tags) and the paper's link (clickable
    where the terminal supports links; folded, never cut, when the column is narrow), then the count."""
    t = Table(show_lines=False, expand=False)
    t.add_column("title", overflow="fold", ratio=4)
    t.add_column("venue", overflow="fold", ratio=1)
    t.add_column("affiliations", overflow="fold", ratio=2)
    t.add_column("topics", overflow="fold", ratio=2)
    t.add_column("link", overflow="fold", ratio=3)
    for r in recs:
        title = f"{r.system}: {r.title}" if r.system and not r.title.lower().startswith(r.system.lower()) else r.title
        venue = " → ".join(r.history) if r.history else r.venue or ""
        link = Text(r.url, style=f"link {r.url}") if r.url else Text("")
        t.add_row(
            Text(title),
            Text(venue),
            Text(", ".join(r.affiliations)),
            Text("; ".join(r.topics[:2] or r.tags[:3])),
            link,
        )
    con.print(t)
    con.print(f"{len(recs)} paper{'' if len(recs) == 1 else 's'}")


def render_stats(con: Console, st: dict[str, Any]) -> None:
    con.print(
        f"files {st['files']} (skipped {st['files_skipped']}), pages {st['pages']}, "
        f"chunks {st['chunks']}, papers {st['papers']}",
        highlight=False,
    )
    con.print("chunks by kind: " + ", ".join(f"{k} {v}" for k, v in st["chunks_by_kind"].items()))
    for origin, src in st.get("sources", {}).items():  # the last ingest's warnings of each source
        warns, empty = split_warnings(src.get("warnings", []))
        headings = f" ({plural(len(empty), 'page')} with only a heading)" if empty else ""
        con.print(f"{origin}: {plural(len(warns), 'warning')}{headings} at its last ingest", markup=False)
        for w in warns:
            con.print(f"  {w}", markup=False, highlight=False)
        if empty:
            con.print("  pages with only a heading, nothing to index:", markup=False, highlight=False)
            for path in empty:
                con.print(f"    {path}", markup=False, highlight=False)
    if st.get("catalog_warnings"):
        n = len(st["catalog_warnings"])
        con.print(f"catalog: {n} warning{'' if n == 1 else 's'} (papers from all sources merged)", markup=False)
        for w in st["catalog_warnings"]:
            con.print(f"  {w}", markup=False, highlight=False)
    t = Table("venue", "papers")
    for v, n in st["papers_by_venue"].items():
        t.add_row(v, str(n))
    con.print(t)


def _eval_line(rep: dict[str, Any], k: int) -> str:
    lists = f"  list recall={rep['list_recall']}" if rep.get("list_recall") is not None else ""
    return (
        f"n={rep['n']}  hit@{k}={rep['hit_at_k']}  recall@{k}={rep['recall_at_k']}  MRR={rep['mrr']}  "
        f"refusal acc={rep['refusal_accuracy']}  false refusals={rep['false_refusal_rate']}  "
        f"answer-contains={rep['answer_contains']}{lists}  p50={rep['latency_ms']['p50']} ms  "
        f"p95={rep['latency_ms']['p95']} ms"
    )


def render_eval(con: Console, rep: dict[str, Any], k: int) -> None:
    """The ``eval`` report: the overall line, one line per split (when the set has splits), a table per
    question type and the misses."""
    con.print(_eval_line(rep, k), highlight=False)
    for name, sub in rep.get("splits", {}).items():
        con.print(f"split {name}: {_eval_line(sub, k)}", highlight=False)
    t = Table("type", "n", f"hit@{k}", f"recall@{k}", "MRR", "contains", "refused")
    for ty, v in rep["by_type"].items():
        t.add_row(
            ty, str(v["n"]), *(str(v[x]) for x in ("hit_at_k", "recall_at_k", "mrr", "answer_contains", "refused"))
        )
    con.print(t)
    for d in rep.get("miss_details", []):
        con.print(f"miss {d['id']}: {d['why']}", markup=False, highlight=False)
