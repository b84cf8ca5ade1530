"""``summarize()``: a conference's papers on a topic, from the index to a :class:`ConferenceSummary`
(venue and topic resolved, papers selected and grouped, header facts, then the overview)."""

from __future__ import annotations

from collections import Counter

from langchain_core.language_models.chat_models import BaseChatModel

from papernotes.corpus.catalog import names_only
from papernotes.corpus.models import PaperRecord
from papernotes.corpus.venues import normalize_venue, resolve_venue
from papernotes.retrieval.errors import ModelUnavailableError
from papernotes.retrieval.index_health import read_bm25, read_catalog
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.summarize.map_reduce import MapReduce, Progress
from papernotes.retrieval.summarize.overview import extractive_overview
from papernotes.retrieval.summarize.results import ConferenceSummary, Group, PaperItem, plural
from papernotes.retrieval.summarize.selection import select_papers, venue_page_order, venue_records
from papernotes.retrieval.summarize.topics import TOPICS, Topic, resolve_topic
from papernotes.retrieval.summarize.venue_facts import venue_facts


def _groups(grouped: list[tuple[str, list[PaperRecord]]]) -> list[Group]:
    """Result groups with their papers numbered 1, 2, … across the whole summary."""
    groups: list[Group] = []
    n = 0
    for name, recs in grouped:
        items = []
        for r in recs:
            n += 1
            items.append(
                PaperItem(
                    n=n,
                    title=r.title,
                    system=r.system,
                    affiliations=list(r.affiliations),
                    # a one-liner that only names the paper says nothing the title line does not
                    summary="" if names_only(r.summary or "", r) else r.summary or "",
                    url=r.url,
                    sources=list(r.sources),
                    section=name,
                )
            )
        groups.append(Group(name=name, papers=items))
    return groups


def _nothing_message(t: Topic, venue: str, total: int) -> str:
    """The one-line message for a venue without papers on the topic."""
    known = (
        ""
        if t.known
        else (
            f" '{t.key}' is not a known topic (known: {', '.join(TOPICS)}), so it was "
            f"matched as a word in headings, titles and summaries."
        )
    )
    return f"No papers on {t.label} at {venue} in the notes; the notes list {plural(total, 'paper')} for {venue} in total.{known}"


def summarize(
    settings: Settings,
    venue: str,
    topic: str = "llm",
    use_llm: bool | None = None,
    chat_model: BaseChatModel | None = None,
    progress: Progress | None = None,
) -> ConferenceSummary:
    """Summarize ``venue``'s papers on ``topic``.

    Parameters
    ----------
    venue : any common spelling ("MLSys 2026", "mlsys26", "OSDI '26").
    topic : a key or alias of :data:`~papernotes.retrieval.summarize.topics.TOPICS` ("llm", "diffusion",
        "moe", "rl", …) or free text.
    use_llm : None → use a model when one is configured (``settings.llm_enabled``) or ``chat_model`` is
        given; False → never; True → use one (``chat_model`` or the configured endpoint).
    chat_model : a LangChain chat model to use instead of the configured endpoint (tests).
    progress : called as ``progress(stage, calls_done, calls_planned)`` after each model call.

    Returns
    -------
    ConferenceSummary; ``paper_count == 0`` with a one-line ``message`` when the venue has no papers on
    the topic. On a model failure the data overview is returned with a ``note`` (mode "extractive").

    Raises
    ------
    IndexMissingError
        without an index.
    BadInputError
        for an unknown venue (with suggestions, see :func:`~papernotes.corpus.venues.unknown_venue`) or an
        empty topic.
    """
    from papernotes.retrieval.index_health import ensure_index

    ensure_index(settings)
    t = resolve_topic(topic)
    catalog = read_catalog(settings)
    bm25 = read_bm25(settings)
    pages = {
        str(m.get("page_title"))
        for m in bm25.metadatas
        if m.get("page_title") and normalize_venue(str(m["page_title"])) == m["page_title"]
    }
    counts = Counter(r.venue for r in catalog if r.venue)
    v = resolve_venue(venue, [k for k, _ in counts.most_common()] + sorted(pages - set(counts)))
    facts = venue_facts(bm25.texts, bm25.metadatas, v)
    records = venue_records(catalog, v)
    grouped = select_papers(records, v, t, venue_page_order(settings, v) or facts.page_order)
    s = ConferenceSummary(
        venue=v,
        topic=t.key,
        topic_label=t.label,
        groups=_groups(grouped),
        overview="",
        mode="extractive",
        total_papers=len(records),
        when=facts.when,
        where=facts.where,
        acceptance_rate=facts.acceptance_rate,
        homepage=facts.homepage,
    )
    if not s.groups:
        s.message = s.overview = _nothing_message(t, v, len(records))
        return s
    if (settings.llm_enabled or chat_model is not None) if use_llm is None else use_llm:
        from papernotes.retrieval.chat_model import make_chat_model

        mr = MapReduce(settings, chat_model if chat_model is not None else make_chat_model(settings), progress)
        try:
            s.overview = mr.run(s)
            s.mode = "llm"
            return s
        except ModelUnavailableError as e:
            for g in s.groups:
                g.summary = None
            s.note = f"model not used: {e}"
        finally:
            s.model_calls, s.dropped_citations = mr.calls, mr.dropped
    s.overview = extractive_overview(s, t)
    return s
