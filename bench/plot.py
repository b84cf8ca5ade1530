"""The scale benchmark's plot and table: time and memory against corpus size (matplotlib PNG), and the
readable table of ``--scale`` results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table


def plot_scales(result: dict[str, Any], path: Path) -> None:
    """Write a two-panel PNG to ``path``: seconds (cold ingest, its embedding floor, no-op and one-edit
    re-ingest, keyword-index rebuild) and peak RSS in MiB, against the chunks of each scale; log-log on
    the left so the straight lines of linear growth have slope 1."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    rows = result["scales"]
    x = [r["chunks"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    series = {
        "cold ingest": [r["cold_ingest_s"] for r in rows],
        "embedding floor": [r["embed_floor_s"] if r["embed_floor_s"] is not None else float("nan") for r in rows],
        "time in the embedder (cold ingest)": [r["embed_in_ingest_s"] for r in rows],
        "no-op re-ingest": [r["noop_reingest_s"] for r in rows],
        "one-edit re-ingest": [r["edit_reingest_s"] for r in rows],
        "BM25 rebuild (cold)": [r["stages_cold"].get("bm25", 0.0) for r in rows],
    }
    for label, ys in series.items():
        left.plot(x, ys, marker="o", label=label)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("chunks in the index")
    left.set_ylabel("seconds")
    left.set_title("ingest time")
    left.legend(fontsize=8)
    right.plot(x, [r["peak_rss_mb"] for r in rows], marker="o", label="peak RSS, cold ingest")
    right.set_xscale("log")
    right.set_ylim(bottom=0)
    right.set_xlabel("chunks in the index")
    right.set_ylabel("MiB")
    right.set_title("memory")
    for r in rows:
        right.annotate(f"{r['scale']}x", (r["chunks"], r["peak_rss_mb"]), textcoords="offset points", xytext=(4, 4))
    # each scale's own load average at its start (other work on the machine slows every stage)
    load = ", ".join(f"{r['scale']}x: {r['loadavg_at_start'][0]:.1f}" for r in rows if r.get("loadavg_at_start"))
    fig.suptitle(f"papernotes at 1x-{rows[-1]['scale']}x the notes ({result['cpus']} CPUs; load average {load})")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def render_scales(result: dict[str, Any]) -> None:
    """Print one row per scale (rich table on stdout); the overhead is over the separate floor where
    it was measured, else over the cold ingest's own time in the embedder."""
    t = Table(title="papernotes scale bench")
    for col in (
        "scale",
        "chunks",
        "floor s",
        "embedder s",
        "cold s",
        "overhead",
        "peak RSS MiB",
        "no-op s",
        "edit s",
        "BM25 / catalog s",
        "search p50/p95 ms",
        "ask p50/p95 ms",
        "hit@5",
        "near-dups",
    ):
        t.add_column(col, justify="right")
    for r in result["scales"]:
        st = r["stages_cold"]
        t.add_row(
            f"{r['scale']}x",
            str(r["chunks"]),
            "–" if r["embed_floor_s"] is None else f"{r['embed_floor_s']:.1f}",
            f"{r['embed_in_ingest_s']:.1f}",
            f"{r['cold_ingest_s']:.1f}",
            f"{r['overhead_ratio'] or r['overhead_vs_embed_in_ingest']}",
            f"{r['peak_rss_mb']:.0f}",
            f"{r['noop_reingest_s']:.2f}",
            f"{r['edit_reingest_s']:.2f}",
            f"{st.get('bm25', 0):.2f} / {st.get('catalog', 0):.2f}",
            f"{r['search_ms']['p50']} / {r['search_ms']['p95']}",
            f"{r['ask_ms']['p50']} / {r['ask_ms']['p95']}",
            f"{r['hit_at_5']}",
            f"{r['near_duplicates']['near_duplicates']} (max cos {r['near_duplicates']['max_cosine']})",
        )
    c = Console()
    c.print(t)
    c.print(f"load average {result['loadavg_at_start']} → {result['loadavg_at_end']} on {result['cpus']} CPUs")
