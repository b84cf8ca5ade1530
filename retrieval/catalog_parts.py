"""The paper catalog merged part by part, so a re-ingest merges only the records its changes touch.

The catalog's entries fall into *parts*: groups of entries joined (transitively) by a shared
:func:`~papernotes.corpus.catalog.link_keys` key (a title, a notes link, a paper identity, …). Entries of
different parts never affect each other's records, so :func:`~papernotes.corpus.catalog.merge_group` of
each part, put in catalog order and finished by :func:`~papernotes.corpus.catalog.finish_catalog`, is
the catalog :func:`~papernotes.corpus.catalog.build_catalog` makes of all entries at once. Each part's
records are cached under a key of its entries' ids and their precedence order, so an unchanged part is
read back instead of merged; entries' link keys are cached by entry id (:class:`PartCache`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson

from papernotes.corpus.catalog import finish_catalog, link_keys, merge_group, precedence
from papernotes.corpus.models import PaperEntry, PaperRecord
from papernotes.retrieval import json_load


def catalog_parts(entries: list[tuple[str, PaperEntry]]) -> list[list[int]]:
    """Partition ``(entry id, entry)`` pairs (ingest order) into parts joined by shared link keys:
    lists of positions in ``entries``, each ascending, parts ordered by their first position."""
    return _parts([link_keys(e) for _, e in entries])


def _parts(keys: list[set[str]]) -> list[list[int]]:
    parent = list(range(len(keys)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[str, int] = {}
    for i, ks in enumerate(keys):
        for k in ks:
            j = first.setdefault(k, i)
            if j != i:
                a, b = root(i), root(j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for i in range(len(keys)):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


class PartCache:
    """The part-wise merge's cache, the JSON file ``path`` (read and written whole by orjson: a 10x
    corpus's parts load in a tenth of a second, much faster than unpickling them), valid for one code
    ``version``: ``keys`` (entry id → its link keys) and ``parts`` (part key → the part's records, each
    with its place, and its warnings)."""

    def __init__(self, path: Path, version: str):
        self.path = path
        self.version = version

    def load(self) -> tuple[dict[str, list[str]], dict[str, Any]]:
        """``(keys, parts)``; both empty when the file is absent, unreadable or of another version."""
        try:
            data = json_load.loads(self.path.read_bytes())
            if data["version"] == self.version:
                return data["keys"], data["parts"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return {}, {}

    def save(self, keys: dict[str, list[str]], parts: dict[str, Any]) -> None:
        """Replace the file's contents (through a temporary file, replaced atomically)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_bytes(orjson.dumps({"version": self.version, "keys": keys, "parts": parts}))
        tmp.replace(self.path)


def merge_catalog(
    entries: list[tuple[str, PaperEntry]], cache: PartCache | None, warnings: list[str] | None = None
) -> tuple[list[PaperRecord], int]:
    """The catalog of ``entries`` (``(entry id, entry)`` in ingest order; equal ids stand for equal
    entries), equal to ``build_catalog`` of the entries, merging only the parts the ``cache`` lacks (all
    parts without a cache). Warnings (papers sharing a link) are appended to ``warnings`` part by part
    (the same messages as ``build_catalog``; their order may differ). Returns ``(records, number of
    parts merged)``."""
    held_keys, held = cache.load() if cache else ({}, {})
    keys = [held_keys.get(i) for i, _ in entries]
    fresh = {i: sorted(k) if k is not None else sorted(link_keys(e)) for (i, e), k in zip(entries, keys, strict=True)}
    parts = _parts([set(fresh[i]) for i, _ in entries])
    order = precedence([e for _, e in entries])
    used: dict[str, Any] = {}
    placed: list[tuple[tuple[float, int], dict[str, Any]]] = []
    merged = 0
    for part in parts:
        ranks = sorted(range(len(part)), key=lambda j: order[id(entries[part[j]][1])])
        h = hashlib.sha1(repr(ranks).encode())
        for j in part:
            h.update(entries[j][0].encode("utf-8", "surrogatepass"))
            h.update(b"\x1f")
        key = h.hexdigest()
        value = held.get(key)
        if value is None:
            group = [entries[j][1] for j in part]
            local = {id(group[j]): r for r, j in enumerate(ranks)}
            part_warnings: list[str] = []
            value = {
                "records": [[kind, j, r.to_dict()] for (kind, j), r in merge_group(group, local, part_warnings)],
                "warnings": part_warnings,
            }
            merged += 1
        used[key] = value
        placed += [((kind, part[j]), d) for kind, j, d in value["records"]]
        if warnings is not None:
            warnings += value["warnings"]
    if cache is not None and (used.keys() != held.keys() or fresh.keys() != held_keys.keys()):
        cache.save(fresh, used)
    # records are made from their dicts after the save: the catalog-wide passes change them
    out = [PaperRecord(**d) for _, d in sorted(placed, key=lambda x: x[0])]
    finish_catalog(out)
    return out, merged
