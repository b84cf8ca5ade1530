"""A notes site's own table of contents: a GitBook ``SUMMARY.md`` (reading order and page titles) and
an MkDocs ``mkdocs.yml`` ``nav`` (page titles), for pages whose text gives no title of its own."""

from __future__ import annotations

import hashlib
import re
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import yaml

from papernotes.corpus.markdown import parse_tokens, render_inline


def summary_order(
    root: Path, cache: MutableMapping[str, Any] | None = None, used: set[str] | None = None
) -> dict[str, tuple[int, str]]:
    """``relative path → (position, title)`` from a GitBook ``SUMMARY.md`` (empty if none).

    ``cache`` (optional, mutated) keeps the order by a hash of the file's bytes, so an unchanged table
    of contents is not parsed again; the keys read or added go into ``used``."""
    summary = root / "SUMMARY.md"
    try:
        data = summary.read_bytes()
    except OSError:  # absent (or unreadable): no order
        return {}
    key = hashlib.sha1(b"SUMMARY.md\x1f" + data).hexdigest()
    if used is not None:
        used.add(key)
    if cache is not None and key in cache:
        return cache[key]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = None
    order: dict[str, tuple[int, str]] = {}
    for t in parse_tokens(text) if text is not None else []:
        if t.type != "inline":
            continue
        r = render_inline(t)
        for label, href in r.links:
            href = href.split("#")[0]
            if href and not re.match(r"^[a-z]+://", href) and href not in order:
                order[href] = (len(order), label)
    if cache is not None:
        cache[key] = order
    return order


class _NavLoader(yaml.SafeLoader):
    """A safe YAML loader that reads MkDocs' Python tags (``!!python/name:…``, ``!ENV``) as plain values."""


_NavLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def mkdocs_nav_titles(root: Path) -> dict[Path, str]:
    """``resolved page file → title`` from the ``nav`` of the MkDocs config at ``root`` (``mkdocs.yml``
    or ``mkdocs.yaml``; pages under its ``docs_dir``, "docs" by default), as MkDocs titles pages
    (https://www.mkdocs.org/user-guide/configuration/#nav): ``- "vLLM: Efficient Memory …":
    serving/vllm.md`` titles that page; sections (``- Serving: [...]``) and untitled entries give none.
    Empty when there is no config, it cannot be read, or it has no nav."""
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        config = root / name
        if config.is_file():
            break
    else:
        return {}
    try:
        data = yaml.load(config.read_text(encoding="utf-8-sig"), Loader=_NavLoader)  # noqa: S506 - a safe loader
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    if not isinstance(data, dict):
        return {}
    docs = root / str(data.get("docs_dir") or "docs")
    titles: dict[Path, str] = {}

    def walk(items: Any) -> None:
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict):
                continue
            for title, target in item.items():
                if isinstance(target, list):
                    walk(target)
                elif isinstance(target, str) and not re.match(r"^[a-z]+://", target) and str(title).strip():
                    titles.setdefault((docs / target.split("#")[0]).resolve(), str(title).strip())

    walk(data.get("nav"))
    return titles
