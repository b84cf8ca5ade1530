"""The model-written overview of a conference summary: one summary per group (map), then one synthesis
(reduce), every request packed to fit the model's context window. Paper entries (note text) are fenced
as ``<source id="n">`` and group summaries as ``<summary>`` with their tags escaped, under the
data-only rule of :data:`~papernotes.retrieval.prompts.MAP_SYSTEM` / ``REDUCE_SYSTEM``."""

from __future__ import annotations

import re
from collections.abc import Callable

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from papernotes.retrieval.chat_model import generate
from papernotes.retrieval.citations import clean_markers
from papernotes.retrieval.errors import ModelUnavailableError
from papernotes.retrieval.prompt_builder import escape_tags, fence, messages_tokens, prompt_budget
from papernotes.retrieval.prompts import MAP_SYSTEM, MAP_USER, REDUCE_SYSTEM, REDUCE_USER
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.summarize.results import ConferenceSummary, Group, PaperItem
from papernotes.retrieval.tokens import count_tokens, fit_tokens

#: Called as ``progress(stage, calls done, calls planned so far)`` after each model call; stage is
#: "map" or "reduce".
Progress = Callable[[str, int, int], None]


def paper_prompt_line(p: PaperItem) -> str:
    """A paper as one prompt line: ``[n] System: Title (affiliations) — summary``."""
    name = f"{p.system}: " if p.system and not p.title.lower().startswith(p.system.lower()) else ""
    aff = f" ({', '.join(p.affiliations)})" if p.affiliations else ""
    summ = re.sub(r"\s+", " ", p.summary).strip()
    return f"[{p.n}] {name}{p.title}{aff}" + (f" — {summ}" if summ else "")


class MapReduce:
    """Per-group summaries (:data:`~papernotes.retrieval.prompts.MAP_SYSTEM`), then one synthesis
    (:data:`~papernotes.retrieval.prompts.REDUCE_SYSTEM`). Every request is packed so that its tokens
    (:func:`~papernotes.retrieval.prompt_builder.messages_tokens`) stay within
    :func:`~papernotes.retrieval.prompt_builder.prompt_budget`; a group that does not fit one request
    is split into several map calls, and group summaries that do not fit one reduce request are first
    reduced in batches. Calls go through :func:`~papernotes.retrieval.chat_model.generate` (timeouts,
    retries, one-line :class:`ModelUnavailableError`). Map replies keep only markers of the papers in
    that request, the reduce reply only markers of papers in the summary
    (:func:`~papernotes.retrieval.citations.clean_markers`).
    """

    #: Rounds of batch reduction before the remaining group summaries are shortened to fit.
    MAX_REDUCE_ROUNDS = 3

    def __init__(self, settings: Settings, chat_model: BaseChatModel, progress: Progress | None = None):
        self.settings = settings
        self.model = chat_model
        self.progress = progress
        self.budget = prompt_budget(settings)
        self.count = count_tokens
        self.calls = 0
        self.planned = 0
        self.dropped = 0

    def messages(self, system: str, user: str) -> list[BaseMessage]:
        return [SystemMessage(content=system), HumanMessage(content=user)]

    def cost(self, system: str, user: str) -> int:
        """Tokens of the request ``system`` + ``user`` as
        :func:`~papernotes.retrieval.prompt_builder.messages_tokens` counts them."""
        return messages_tokens(self.messages(system, user), self.count)

    def _call(self, stage: str, system: str, user: str) -> str:
        text = generate(self.model, self.messages(system, user), self.settings)
        self.calls += 1
        if self.progress:
            self.progress(stage, self.calls, max(self.planned, self.calls))
        return text.strip()

    # -- map ----------------------------------------------------------------------------------------

    def _map_user(self, s: ConferenceSummary, group: str, lines: list[str]) -> str:
        return MAP_USER.format(venue=s.venue, topic=s.topic_label, group=group, papers="\n".join(lines))

    def pack_group(self, s: ConferenceSummary, g: Group) -> list[list[tuple[PaperItem, str]]]:
        """Split a group's papers into batches whose map request fits the budget (a paper line too
        long on its own is shortened): ``[[(paper, fenced prompt line), …], …]``.

        Raises
        ------
        ModelUnavailableError
            when the budget leaves no room for even one paper.
        """
        longest_label = f"{g.name} (part {len(g.papers)} of {len(g.papers)})"
        room = self.budget - self.cost(MAP_SYSTEM, self._map_user(s, longest_label, []))
        if room < 24:
            raise ModelUnavailableError(
                f"PAPERNOTES_LLM_CONTEXT_TOKENS={self.settings.llm_context_tokens} minus "
                f"PAPERNOTES_LLM_ANSWER_TOKENS={self.settings.llm_answer_tokens} leaves no room for papers"
            )
        batches: list[list[tuple[PaperItem, str]]] = [[]]
        used = 0
        wrap = self.count(fence(9999, "")) + 1  # the fence around each paper line
        for p in g.papers:
            line = fence(p.n, fit_tokens(paper_prompt_line(p), max(8, room - 2 - wrap), self.count))
            cost = self.count(line) + 1  # + the newline joining it to the previous line
            if batches[-1] and used + cost > room:
                batches.append([])
                used = 0
            batches[-1].append((p, line))
            used += cost
        return batches

    def map_group(self, s: ConferenceSummary, g: Group, batches: list[list[tuple[PaperItem, str]]]) -> str:
        """The group's summary: one map call per batch, replies joined."""
        parts = []
        for k, batch in enumerate(batches):
            label = g.name + (f" (part {k + 1} of {len(batches)})" if len(batches) > 1 else "")
            user = self._map_user(s, label, [line for _, line in batch])
            if self.cost(MAP_SYSTEM, user) > self.budget:  # packing is conservative; this is a guard
                raise ModelUnavailableError("a map request does not fit PAPERNOTES_LLM_CONTEXT_TOKENS")
            text, dropped = clean_markers(self._call("map", MAP_SYSTEM, user), {p.n for p, _ in batch})
            self.dropped += dropped
            if text:
                parts.append(text)
        return " ".join(parts)

    # -- reduce -------------------------------------------------------------------------------------

    def _reduce_user(self, s: ConferenceSummary, items: list[tuple[str, str]]) -> str:
        body = "\n\n".join(
            f"<summary>\n### {escape_tags(name)}\n{escape_tags(text)}\n</summary>" for name, text in items
        )
        return REDUCE_USER.format(venue=s.venue, topic=s.topic_label, summaries=body)

    def _fits(self, s: ConferenceSummary, items: list[tuple[str, str]]) -> bool:
        return self.cost(REDUCE_SYSTEM, self._reduce_user(s, items)) <= self.budget

    def reduce(self, s: ConferenceSummary, items: list[tuple[str, str]], allowed: set[int]) -> str:
        """One synthesis over ``(label, summary)`` items (see the class docstring); ``allowed`` are the
        paper numbers its markers may keep.

        Raises
        ------
        ModelUnavailableError
            when a call fails or the summaries cannot be shortened to fit one request.
        """
        room = self.budget - self.cost(REDUCE_SYSTEM, self._reduce_user(s, []))
        items = [(n, fit_tokens(t, max(8, room - self.count(f"### {n}") - 4), self.count)) for n, t in items]
        for _ in range(self.MAX_REDUCE_ROUNDS):
            if self._fits(s, items):
                break
            batches: list[list[tuple[str, str]]] = [[]]
            for it in items:
                if batches[-1] and not self._fits(s, batches[-1] + [it]):
                    batches.append([])
                batches[-1].append(it)
            if len(batches) >= len(items):
                break
            self.planned += len(batches)
            merged = []
            for b in batches:
                text, dropped = clean_markers(self._call("reduce", REDUCE_SYSTEM, self._reduce_user(s, b)), allowed)
                self.dropped += dropped
                label = b[0][0] if len(b) == 1 else f"{b[0][0].split(' … ')[0]} … {b[-1][0].split(' … ')[-1]}"
                merged.append((label, text))
            items = merged
        while not self._fits(s, items):  # share the room equally; shrink until it fits
            share = max(8, room // max(1, len(items)) - 16)
            shorter = [(n, fit_tokens(t, share, self.count)) for n, t in items]
            if shorter == items:
                raise ModelUnavailableError("the group summaries do not fit PAPERNOTES_LLM_CONTEXT_TOKENS")
            items = shorter
            room -= 16
        text, dropped = clean_markers(self._call("reduce", REDUCE_SYSTEM, self._reduce_user(s, items)), allowed)
        self.dropped += dropped
        return text

    def run(self, s: ConferenceSummary) -> str:
        """Fill each group's ``summary`` and return the overview.

        Raises
        ------
        ModelUnavailableError
            when a call fails or the model returns nothing usable.
        """
        packed = [(g, self.pack_group(s, g)) for g in s.groups]
        self.planned = sum(len(b) for _, b in packed) + 1
        for g, batches in packed:
            g.summary = self.map_group(s, g, batches) or None
        allowed = {p.n for p in s.papers}
        items = [
            (f"{g.name} (papers [{g.papers[0].n}]–[{g.papers[-1].n}])", g.summary or "(no summary)") for g in s.groups
        ]
        overview = self.reduce(s, items, allowed)
        if not overview:
            raise ModelUnavailableError("the model returned an empty overview")
        return overview
