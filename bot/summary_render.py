"""A conference summary (:class:`~papernotes.retrieval.summarize.ConferenceSummary`) for people: rich
text for the terminal (``papernotes summarize``) and Markdown for Discord (``/summarize``)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from papernotes.retrieval.summarize.results import ConferenceSummary, PaperItem, plural
from papernotes.retrieval.tokens import one_line


def header_lines(s: ConferenceSummary) -> list[str]:
    """Plain header facts: ``When: … · Where: … · Acceptance rate: …`` (when known), then the counts
    line ``N papers on TOPIC (of M papers of VENUE in the notes), K groups · mode: MODE``."""
    facts = []
    if s.when:
        facts.append(f"When: {s.when}")
    if s.where:
        facts.append(f"Where: {s.where}")
    if s.acceptance_rate:
        facts.append(f"Acceptance rate: {s.acceptance_rate}")
    lines = [" · ".join(facts)] if facts else []
    lines.append(
        f"{plural(s.paper_count, 'paper')} on {s.topic_label} "
        f"(of {plural(s.total_papers, 'paper')} of {s.venue} in the notes), "
        f"{plural(len(s.groups), 'group')} · mode: {s.mode}"
    )
    return lines


def paper_line(p: PaperItem, markdown: bool = False) -> str:
    """``- [n] System — Title (Affiliations): one-line summary`` (the system in bold with ``markdown``;
    the summary cut to 200 characters)."""
    name = p.system if p.system and not p.title.lower().startswith(p.system.lower()) else None
    head = f"**{name}** — {p.title}" if (markdown and name) else (f"{name} — {p.title}" if name else p.title)
    aff = f" ({', '.join(p.affiliations)})" if p.affiliations else ""
    summ = f": {one_line(p.summary)}" if p.summary else ""
    return f"- [{p.n}] {head}{aff}{summ}"


def summary_markdown(s: ConferenceSummary) -> str:
    """The summary as Markdown (Discord-friendly: one line per paper, short lines, ``<url>`` links so
    they do not unfurl): a heading, the header facts, the overview, the groups, then the Sources."""
    out = [f"## {s.topic_label} at {s.venue}"]
    if s.message:
        out += ["", s.message]
        return "\n".join(out)
    out += [""] + header_lines(s)
    if s.note:
        out.append(f"_note: {s.note}_")
    out += ["", "### Overview", s.overview]
    for g in s.groups:
        out += ["", f"### {g.name} ({len(g.papers)})"]
        if g.summary:
            out.append(g.summary)
        for p in g.papers:
            out.append(paper_line(p, markdown=True))
    out += ["", "### Sources"]
    for p in s.papers:
        out.append(f"[{p.n}] {p.title}" + (f" <{p.url}>" if p.url else ""))
    return "\n".join(out)


def render_summary(con: Console, s: ConferenceSummary) -> None:
    """Print the summary to a rich console: header, overview, groups (one :func:`paper_line` per
    paper), then the Sources list with URLs."""
    con.print(f"[bold]{escape(s.topic_label)} at {escape(s.venue)}[/]")
    if s.message:
        con.print(s.message, markup=False)
        return
    for line in header_lines(s):
        con.print(f"[dim]{escape(line)}[/]")
    if s.homepage:
        con.print(f"[dim]Homepage: {escape(s.homepage)}[/]")
    if s.note:
        con.print(f"[yellow]note[/]: {escape(s.note)}")
    con.print("\n[bold]Overview[/]")
    con.print(s.overview, markup=False)
    for g in s.groups:
        con.print(f"\n[bold cyan]{escape(g.name)}[/] [dim]({len(g.papers)})[/]")
        if g.summary:
            con.print(g.summary, markup=False)
        for p in g.papers:
            con.print(paper_line(p), markup=False)
    con.print("\n[bold]Sources[/]")
    for p in s.papers:
        con.print(f"[{p.n}] {p.title}" + (f" {p.url}" if p.url else ""), markup=False)
