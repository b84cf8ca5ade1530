"""Summarize a conference's papers on a topic: complete (every catalog paper of the venue on the topic),
grouped by the notes' own headings, cited by ``[n]`` markers.

The rooms, in the order :func:`summarize` uses them:

* ``topics`` — the topic table (heading and text patterns per topic, aliases, free-text topics);
* ``selection`` — the venue's catalog records on the topic, grouped and ordered like the notes;
* ``venue_facts`` — dates, place, acceptance rate and homepage from the indexed chunks;
* ``overview`` — the offline overview built from the data;
* ``map_reduce`` — the model-written overview (per-group summaries, then one synthesis);
* ``results`` — :class:`ConferenceSummary` and its parts (the ``summarize --json`` contract);
* ``pipeline`` — :func:`summarize`, which wires them together.

Rendering a summary for a terminal or Discord is the bot's job (``papernotes.bot.summary_render``).
"""

from papernotes.retrieval.summarize.pipeline import summarize
from papernotes.retrieval.summarize.results import ConferenceSummary

__all__ = ["ConferenceSummary", "summarize"]
