"""Short names a note gives its paper (corpus/short_names.py), the addresses an opening presents as its
paper's (note_links.presented_urls), and the small readings they rely on: MkDocs-Material icons, month
titles and author-year citations that name no venue, addresses written side by side; and the short name
a lead line shows (retrieval/extractive.py ``paper_line``)."""

from __future__ import annotations

import json

import pytest
from conftest import TESTS
from test_note_styles import catalog_of

from papernotes.corpus.author_year import author_year_citation
from papernotes.corpus.models import PaperRecord
from papernotes.corpus.note_links import presented_urls
from papernotes.corpus.note_syntax import normalize_note_syntax
from papernotes.corpus.note_titles import short_and_full, venue_decoration
from papernotes.corpus.paper_links import one_paper
from papernotes.corpus.papers import title_key
from papernotes.corpus.short_names import initials_match, opening_names, short_name_of
from papernotes.corpus.venues import normalize_venue, stated_venues
from papernotes.retrieval.extractive import paper_line

ACRONYM_ALIASES = TESTS / "fixtures" / "families" / "acronym_aliases"


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("Dosovitskiy et al., Google Research — ViT", ["ViT"]),
        # a name in capitals after the authors and their affiliation is the paper's, as a camel-cased one is
        ("Mnih et al., DeepMind — DQN", ["DQN"]),
        ("Goodfellow et al., Université de Montréal — GAN", ["GAN"]),
        ('Krizhevsky, Sutskever, Hinton — University of Toronto. "AlexNet"', ["AlexNet"]),
        ("We present the Segment Anything Model (SAM) and a data set.", ["SAM"]),
        ("a.k.a. **StreamingLLM**. Xiao, Tian, Chen, Han, Lewis. ICLR 2024.", ["StreamingLLM"]),
        ("“Chinchilla” — Hoffmann et al., DeepMind · https://arxiv.org/abs/2203.15556", ["Chinchilla"]),
        # affiliations and venues are no names of the paper
        ("Edward J. Hu, Yelong Shen, Weizhu Chen (Microsoft)", []),
        ("Hoffmann et al. — DeepMind", []),
        # ... not after a year: the affiliation is what follows it
        ("Zhang et al., 2023 — MIT", []),
        ("Tim Dettmers, Artidoro Pagnoni — UW — NeurIPS 2023 (oral)", []),
        ("Gyeong-In Yu, Byung-Gon Chun — Seoul National University / FriendliAI", []),
        ('He said "this is a very long quoted sentence that is no name at all".', []),
    ],
)
def test_opening_names(line, names):
    assert opening_names([line]) == names


def test_names_listed_beside_one_the_title_holds():
    title = "Efficient Memory Management for Large Language Model Serving with PagedAttention"
    assert opening_names(["vLLM, PagedAttention"], title) == ["vLLM"]
    assert opening_names(["PyTorch, TensorFlow"], title) == []  # none of them is the title's
    assert opening_names(["Kwon, Li, PagedAttention"], title) == []  # an author list is no list of names


@pytest.mark.parametrize(
    ("title", "short"),
    [
        ("1. SnapKV", "SnapKV"),
        ("EAGLE：在特征层做投机采样", "EAGLE"),
        ("Splitwise —— 把 LLM 推理的两个阶段拆开", "Splitwise"),
        ("2305.13245 — GQA", "GQA"),
        ("GPTQ (2210.17323)", "GPTQ"),
        ("2310.06825", None),
        ("Megatron 序列并行 & 选择性激活重计算", None),
    ],
)
def test_short_name_of_a_post_title(title, short):
    assert short_name_of(title) == short


def test_initials_match_the_words_they_abbreviate():
    assert initials_match("GAN", "Generative Adversarial Nets", leading=True)
    assert initials_match("RLHF", "we use Reinforcement Learning from Human Feedback")
    assert not initials_match("MIT", "Song Han")


@pytest.mark.parametrize(
    ("title", "pair"),
    [
        (
            'MQA — "Fast Transformer Decoding: One Write-Head is All You Need"',
            ("MQA", "Fast Transformer Decoding: One Write-Head is All You Need"),
        ),
        (
            "ViT - An Image is Worth 16x16 Words: Transformers for Image Recognition at Scale",
            ("ViT", "An Image is Worth 16x16 Words: Transformers for Image Recognition at Scale"),
        ),
        ("Orca: A Distributed Serving System for Transformer-Based Generative Models", (None, None)),
        ("Batch Normalization - ICML 2015", (None, None)),
        ("2305.13245 — GQA", (None, None)),
        ("OSDI 2022 — Orca: A Distributed Serving System", (None, None)),
    ],
)
def test_short_and_full(title, pair):
    assert short_and_full(title) == pair


@pytest.mark.parametrize(
    ("text", "urls"),
    [
        (
            "ICLR 2022 · https://arxiv.org/abs/2106.09685 · code: https://github.com/microsoft/LoRA",
            ["https://arxiv.org/abs/2106.09685"],
        ),
        (
            "📄 https://arxiv.org/pdf/2305.14314.pdf  💻 https://github.com/a/b",
            ["https://arxiv.org/pdf/2305.14314.pdf", "https://github.com/a/b"],
        ),
        (
            "ICLR 2024 — https://openreview.net/forum?id=WsRHpHH4s0 (arXiv: 2310.01889)",
            ["https://openreview.net/forum?id=WsRHpHH4s0"],
        ),
        (
            "arXiv: https://arxiv.org/abs/2401.10774 · blog: https://example.com",
            ["https://arxiv.org/abs/2401.10774"],
        ),
        ("As argued in https://arxiv.org/abs/1607.06450 layer norm suits RNNs.", []),
        ("TODO: read this. https://arxiv.org/abs/2310.01889", []),
    ],
)
def test_presented_urls(text, urls):
    assert presented_urls(text) == urls


def test_addresses_written_side_by_side_are_not_one_paper():
    bare = [
        ("https://arxiv.org/abs/2005.14165", "https://arxiv.org/abs/2005.14165"),
        ("https://cdn.example.org/gpt2.pdf", "https://cdn.example.org/gpt2.pdf"),
    ]
    assert one_paper(bare) is None
    labelled = [
        ("USENIX", "https://www.usenix.org/conference/osdi22/presentation/yu"),
        ("arXiv", "https://arxiv.org/abs/2201.00001"),
    ]
    assert one_paper(labelled) == labelled[0][1]


def test_mkdocs_material_icons_are_no_text():
    text, _ = normalize_note_syntax(
        "[:material-file-pdf-box: PDF](https://arxiv.org/pdf/1.pdf) · [:fontawesome-brands-github: code](https://github.com/a/b)"
    )
    assert text == "[PDF](https://arxiv.org/pdf/1.pdf) · [code](https://github.com/a/b)"


def test_a_month_is_no_venue_and_a_cited_organisation_names_none():
    assert normalize_venue("January 2024") is None and normalize_venue("Sept 2023") is None
    assert normalize_venue("ToySys 2026") == "ToySys 2026"
    assert author_year_citation("Scaling Laws for Neural Language Models — Kaplan et al., OpenAI, 2020") == (
        "Scaling Laws for Neural Language Models",
        None,
        2020,
    )
    assert stated_venues("Wei et al. (NeurIPS 2022). https://arxiv.org/abs/2201.11903", byline=True) == ["NeurIPS 2022"]


@pytest.mark.parametrize(
    ("heading", "title"),
    [
        ("2024-06-03 · Proximal Policy Optimization Algorithms", "Proximal Policy Optimization Algorithms"),
        ("Mar 11 — Attention Is All You Need", "Attention Is All You Need"),
        ("03/14: Mixtral of Experts", "Mixtral of Experts"),
        ("19 Mar · Direct Preference Optimization", "Direct Preference Optimization"),
        ("May 2024 — notes on scaling", "May 2024 — notes on scaling"),
    ],
)
def test_a_logs_date_is_no_part_of_a_title(heading, title):
    assert venue_decoration(heading)[0] == title
    assert short_and_full(heading)[0] is None


def test_definition_lists_and_content_tabs_read_as_labelled_lines_and_sections():
    text, _ = normalize_note_syntax(
        '# Orca\n\nVenue\n:   OSDI 2022\n\n=== "Summary"\n\n    Iteration-level scheduling.\n'
    )
    assert "Venue: OSDI 2022" in text
    assert "## Summary" in text and "\nIteration-level scheduling." in text  # dedented: not code


@pytest.mark.parametrize(
    ("title", "bare"),
    [
        ("Attention Is All You Need, by Vaswani et al.", "Attention Is All You Need"),
        ("Mixtral of Experts (Jiang et al.)", "Mixtral of Experts"),
        ("Learning Representations by Back-propagating Errors", "Learning Representations by Back-propagating Errors"),
        ("Learning to Stand by Me", "Learning to Stand by Me"),
    ],
)
def test_authors_credited_after_a_title_are_no_part_of_it(title, bare):
    assert author_year_citation(title)[0] == bare


def test_a_status_after_a_dash_is_no_part_of_a_title():
    assert venue_decoration("Direct Preference Optimization — 👀 skimmed")[0] == "Direct Preference Optimization"


@pytest.mark.parametrize(
    ("line", "title", "names"),
    [
        ("We present the Segment Anything Model (SAM) and a data set.", "Segment Anything", ["SAM"]),
        ("Generative Adversarial Networks (GAN) pit two nets.", "Generative Adversarial Nets", ["GAN"]),
        # an acronym of a part the note names beside its paper is no name of the paper
        ("Tuned with RLHF and Ghost Attention (GAtt).", "Llama 2: Open Foundation and Fine-Tuned Chat Models", []),
        ("Supervised Fine-Tuning (SFT) comes first.", "Llama 2: Open Foundation and Fine-Tuned Chat Models", []),
        ("A U-Net with Group Normalization (GN).", "Denoising Diffusion Probabilistic Models", []),
        # set apart as the paper's name, it counts whatever it abbreviates
        ("Touvron et al., Meta — a.k.a. **L2C**", "Llama 2: Open Foundation and Fine-Tuned Chat Models", ["L2C"]),
    ],
)
def test_an_acronym_is_an_alias_only_when_it_names_the_paper(line, title, names):
    assert opening_names([line], title) == names


def test_acronym_aliases_family():
    expected = json.loads((ACRONYM_ALIASES / "expected_records.json").read_text())
    records, _ = catalog_of(ACRONYM_ALIASES / "notes")
    got = {title_key(r.title): r.aliases for r in records}
    assert got == {title_key(e["title"]): e["aliases"] for e in expected}


ENTRY_NAMES = TESTS / "fixtures" / "families" / "entry_defined_names"


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("MigrRDMA: a software-based RDMA live migration.", ["MigrRDMA"]),
        ("**LingXi**, a system for personalized adaptive video streaming.", ["LingXi"]),
        ("HiveD is a scheduler for shared GPU clusters.", ["HiveD"]),
        # a gloss in brackets between the name and its definition
        ("BiAn (狴犴), an LLM-based framework for efficient incident investigation.", ["BiAn"]),
        ("FlowKV (pronounced flow-kay-vee), a KV cache transfer layer.", ["FlowKV"]),
        ("Introduce MorphKernel, targeting dynamic and imbalanced GPU operators.", ["MorphKernel"]),
        ("Present Tessera, a pipeline-parallel training framework.", ["Tessera"]),
        # an ordinary label or word before a colon defines no name, nor does a generic plural
        ("GPUs: fast enough for the job.", []),
        ("Propose **localize-fix-validate** as a possible approach.", []),
        ("Motivation: a broadcast tree is fragile.", []),
        ("Note: the numbers are from the talk.", []),
    ],
)
def test_a_line_that_opens_by_defining_a_name(line, names):
    assert opening_names([line]) == names


def test_a_listing_entry_takes_the_name_its_own_lines_define():
    """A paper bullet whose title holds no one-word name takes the name its first lines define (a bold
    lead, "Name: a …", an acronym of title words); a title's own name before its colon is kept, and a
    component or a neighbouring technique the lines name is no name of the paper."""
    records, _ = catalog_of(ENTRY_NAMES)
    by_title = {r.title.split(":")[0]: r for r in records}
    assert by_title["Towards Tail-Free Replication"].system == "QuorumLite"
    assert "Towards Tail-Free Replication" in by_title["Towards Tail-Free Replication"].aliases
    assert by_title["Software-based Failover for Smart NICs"].system == "NicSwap"
    assert by_title["Enabling Graph Cost Model to Guide Kernel Fusion for Accelerators"].system == "GCM"
    # "Automatic Program Tuning (APT)" abbreviates words the title does not hold
    assert by_title["Automatic Index Tuning"].system == "AIT"
    assert "APT" not in by_title["Automatic Index Tuning"].aliases
    flowtap = by_title["FlowTap"]
    assert flowtap.system == "FlowTap" and not {"DPDK", "RSS"} & set(flowtap.aliases)
    assert by_title["Scaling Gossip with Epidemic Trees"].system is None
    assert by_title["Taming Skew in Sharded Caches"].system == "SkewCutter"


@pytest.mark.parametrize(
    ("record", "lead"),
    [
        # the system name is the title's head: the short name the notes call the paper by is shown
        (
            PaperRecord(
                title="Direct Preference Optimization: Your Language Model is Secretly a Reward Model",
                system="Direct Preference Optimization",
                venue="NeurIPS 2023",
                aliases=["DPO"],
            ),
            "Direct Preference Optimization: Your Language Model is Secretly a Reward Model (DPO; NeurIPS 2023)",
        ),
        # a system name the title does not hold comes first
        (
            PaperRecord(title="Optimizing Resource Allocation at Scale", system="Rebalancer", aliases=["RB"]),
            "Optimizing Resource Allocation at Scale (Rebalancer)",
        ),
        # beside a system name the title holds, a heading's name in another script is no short name
        (
            PaperRecord(
                title="LoRA: Low-Rank Adaptation of Large Language Models", system="LoRA", aliases=["LoRA 低秩适配"]
            ),
            "LoRA: Low-Rank Adaptation of Large Language Models",
        ),
        # without a system name, the name in Latin letters comes before a translated title
        (
            PaperRecord(
                title="In Search of an Understandable Consensus Algorithm",
                aliases=["寻找一种易于理解的共识算法", "Raft"],
            ),
            "In Search of an Understandable Consensus Algorithm (Raft)",
        ),
        # names the title holds are not repeated
        (
            PaperRecord(title="QLoRA: Efficient Finetuning of Quantized LLMs", system="QLoRA", aliases=["qlora"]),
            "QLoRA: Efficient Finetuning of Quantized LLMs",
        ),
    ],
)
def test_a_lead_line_shows_a_short_name_the_title_lacks(record, lead):
    assert paper_line(record) == lead
