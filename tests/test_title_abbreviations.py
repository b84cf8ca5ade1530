"""Papers named the way people name them, not by their titles: an abbreviation of the title ("dlfm",
"SimSR", "moqt"), the short name of a citekey-style file name ("tessel" of okafor2024-tessel.md); and
bylines, which say who wrote a paper, not what it is (tests/fixtures/families/short_names/notes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_answered, notes_from_texts, notes_of

from papernotes.retrieval.abbreviations import TitleAbbreviations, abbreviates
from papernotes.retrieval.extractive import is_byline

NOTES = Path(__file__).resolve().parent / "fixtures" / "families" / "short_names" / "notes"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_of(NOTES, tmp_path_factory.mktemp("short-names-index"), models_cache)


def named(notes, question: str) -> list[str]:
    return [notes.catalog[i].title for i in notes.analyze(question).question.records]


@pytest.mark.parametrize(
    "short, title",
    [
        ("ddpm", "Denoising Diffusion Probabilistic Models"),
        ("SimCLR", "A Simple Framework for Contrastive Learning of Visual Representations"),
        ("moco", "Momentum Contrast for Unsupervised Visual Representation Learning"),
        ("yolo", "You Only Look Once: Unified, Real-Time Object Detection"),
        ("cot", "Chain-of-Thought Prompting Elicits Reasoning in Large Language Models"),
        ("dpo", "Direct Preference Optimization: Your Language Model is Secretly a Reward Model"),
        ("byol", "Bootstrap Your Own Latent: A New Approach to Self-Supervised Learning"),
        # every word of a short name run together, however much of each
        ("batchnorm", "Batch Normalization: Accelerating Deep Network Training by Reducing Internal Covariate Shift"),
        ("LayerNorm", "Layer Normalization"),
        ("groupnorm", "Group Normalization"),
        # the parts of a name written in camel case, and its version ("FlashAttention-4")
        ("fa4", "FlashAttention-4: Algorithm and Kernel Pipelining Co-Design for Asymmetric Hardware Scaling"),
        ("pak", "PagedAttention Kernels: A Study"),
    ],
)
def test_an_abbreviation_of_a_title(short, title):
    assert abbreviates(short, title)


@pytest.mark.parametrize(
    "short, title",
    [
        ("mask", "Masked Autoencoders Are Scalable Vision Learners"),  # one word's start, no abbreviation
        ("deep", "Deep Residual Learning for Image Recognition"),  # a word of the title
        ("apple", "Ansor: Generating High-Performance Tensor Programs for Deep Learning"),  # skips 4 words
        ("evalute", "Evaluation of Text-to-Video Generation Models"),  # a misspelt word, not evalu|te
        ("raft", "Resilient Distributed Datasets: A Fault-Tolerant Abstraction for In-Memory Cluster Computing"),
        ("gu", "Generating Unit tests"),  # too short
        ("nics", "The NIC should be part of the OS"),  # a whole word is no piece: nic|s
        ("normbatch", "Batch Normalization: Accelerating Deep Network Training"),  # out of order
        ("batchtrain", "Batch Normalization: Accelerating Deep Network Training"),  # words left out
        ("layernormalization", "Layer Normalization"),  # the words themselves, not a contraction
        ("gpipe", "GraphPipe: Improving Performance and Scalability of DNN Training"),  # one word, two capitals
        ("faas", "FaaScale: Unlocking Fast LLM Scaling for Serverless Inference"),
    ],
)
def test_not_an_abbreviation(short, title):
    assert not abbreviates(short, title)


#: titles of several shapes: a colon (the part before it is a long form too), a leading article, hyphens,
#: digits, one word, function words, titles sharing first letters
TITLES = [
    "Denoising Diffusion Probabilistic Models",
    "A Simple Framework for Contrastive Learning of Visual Representations",
    "You Only Look Once: Unified, Real-Time Object Detection",
    "Chain-of-Thought Prompting Elicits Reasoning in Large Language Models",
    "Direct Preference Optimization: Your Language Model is Secretly a Reward Model",
    "Resilient Distributed Datasets: A Fault-Tolerant Abstraction for In-Memory Cluster Computing",
    "Masked Autoencoders Are Scalable Vision Learners",
    "The NIC should be part of the OS",
    "Llama 2: Open Foundation and Fine-Tuned Chat Models",
    "Transformers",
    "Distributed Data Parallel Models",
    "Denoising Diffusion Implicit Models",
    "Batch Normalization: Accelerating Deep Network Training by Reducing Internal Covariate Shift",
    "Layer Normalization",
    "GraphPipe: Improving Performance and Scalability of DNN Training",
    "FlashAttention-4: Algorithm and Kernel Pipelining Co-Design",
    "",
]


@pytest.mark.parametrize(
    "short",
    [
        "ddpm",
        "DDIM",
        "SimCLR",
        "yolo",
        "cot",
        "dpo",
        "rdd",
        "mae",
        "ddp",
        "l2",
        "llama",
        "nics",
        "deep",
        "xyz",
        "a",
        "dd",
        "batchnorm",
        "layernorm",
        "gpipe",
        "fa4",
        "gp",
    ],
)
def test_titles_read_once_give_what_each_title_gives(short):
    index = TitleAbbreviations(TITLES)
    assert index.abbreviated(short) == [i for i, t in enumerate(TITLES) if abbreviates(short, t)]


def test_a_word_abbreviating_two_titles_gives_both():
    assert TitleAbbreviations(TITLES).abbreviated("ddpm") == [0, 10]


@pytest.mark.parametrize(
    "question, title",
    [
        ("dlfm fid on cifar?", "Denoising Latent Flow Models"),
        ("what's the MRR of SimSR", "A Simple Framework for Sparse Retrieval"),
        ("moqt throughput gain", "Momentum Quantized Training"),
        ("tessel speedup over flashattention-2?", "Tessellated Attention Kernels for Long Contexts"),
    ],
)
def test_a_short_name_people_use_names_the_paper(notes, question, title):
    assert named(notes, question) == [title]


@pytest.mark.parametrize(
    "question, figure",
    [
        ("dlfm fid on cifar?", "2.91"),
        ("how much training throughput does moqt gain?", "1.7x"),
        ("how much throughput does tessel get over flashattention-2?", "1.9x"),
    ],
)
def test_a_question_by_short_name_is_answered_from_that_paper(notes, question, figure):
    assert_answered(notes, question, figure)


@pytest.mark.parametrize(
    "question",
    [
        "what made the difference in the diffusion encoders paper",  # "made": an English word, no acronym
        "how long does tarn take to restore a blob",  # the notes' Tarn is another system
        "which papers did okafor write",  # an author in a file name is no paper's name
        "lol ok",  # a short word alone, nowhere written as an abbreviation ("lo" + "l" of nothing here)
        "welche papers gab es zu dlfm auf der neurips",  # a German question: its lower-case words are German
    ],
)
def test_a_word_that_only_looks_like_an_abbreviation_names_no_paper(notes, question):
    titles = named(notes, question)
    assert "Masked Adaptive Diffusion Encoders" not in titles or "diffusion encoders" in question
    assert "Tiered Adaptive Replica Navigation" not in titles
    assert "Tessellated Attention Kernels for Long Contexts" not in titles
    assert "Denoising Latent Flow Models" not in titles or "dlfm" in question


@pytest.mark.parametrize(
    "line, byline",
    [
        ("Ting Chen, Simon Kornblith, Mohammad Norouzi, Geoffrey Hinton (Google) — SimCLR", True),
        ('Radford et al., OpenAI — "CLIP"', True),
        ('Krizhevsky, Sutskever, Hinton — University of Toronto. "AlexNet"', True),
        ("J. Ho, A. Jain and P. Abbeel", True),
        ("MoCo, Kaiming He et al. — queue of negatives + momentum-updated key encoder", False),
        ("Touvron et al. show that LLaMA-13B outperforms GPT-3", False),
        ("Uses CUDA, Triton and NCCL", False),
        ("Marr Prize at ICCV 2017", False),
    ],
)
def test_bylines_are_told_apart(line, byline):
    assert is_byline(line) is byline


def test_a_comparison_quotes_what_each_paper_does_not_who_wrote_it(notes):
    a = notes.ask("dlfm vs moqt", use_llm=False)
    assert "Denoising Latent Flow Models" in a.answer and "Momentum Quantized Training" in a.answer
    assert "Okafor et al." not in a.answer and "Lena Lindqvist" not in a.answer, a.answer
    assert "latent space" in a.answer or "6x cheaper" in a.answer, a.answer


def test_who_wrote_it_is_answered_from_the_byline(notes):
    a = notes.ask("who wrote dlfm?", use_llm=False)
    assert not a.refused and "Amara Okafor" in a.answer, a.answer


def test_a_front_matter_note_whose_heading_gives_a_short_name(notes):
    """``title:`` gives the full title, ``# Sparrow paper`` the name people use: the record's system name,
    not a bold figure ("**41.2 BLEU**") of the note's body."""
    record = next(r for r in notes.catalog if r.title == "Sparse Routing Without Load Balancing Losses")
    assert record.system == "Sparrow"
    assert named(notes, "sparrow bleu score?") == ["Sparse Routing Without Load Balancing Losses"]


def test_a_name_other_notes_only_cite_by_file_name_is_no_ordinary_word(notes):
    """Four concept notes link ``[[voss2023-sparrow]]``: the lower-case "sparrow" there is a citation,
    so "sparrow" typed in lower case still names the paper."""
    a = notes.ask("sparrow paper?", use_llm=False)
    assert not a.refused and "Sparse Routing Without Load Balancing Losses" in a.answer, a.answer


def test_a_lookup_gives_the_notes_affiliation_line_apart_from_the_description(notes):
    a = notes.ask("sparrow paper?", use_llm=False)
    lines = a.answer.splitlines()
    assert any(line.startswith("From: Acme Research") for line in lines), a.answer
    assert not any(line.startswith("Acme Research") for line in lines), a.answer


def test_a_short_lead_in_is_quoted_with_the_lines_it_introduces(notes):
    a = notes.ask("what are sparrow's two tricks", use_llm=False)
    assert "Two tricks: expert capacity set per batch" in a.answer, a.answer


@pytest.mark.parametrize("question", ["how was it evaluated?", "who wrote it?", "what does it cost?"])
def test_a_pronoun_with_nothing_named_asks_which_paper(notes, question):
    assert notes.ask(question, use_llm=False).clarify


@pytest.mark.parametrize("question", ["the dlfm paper, who's it from", "moqt - how fast is it"])
def test_a_pronoun_beside_a_name_refers_to_that_name(notes, question):
    assert not notes.ask(question, use_llm=False).clarify


VERSIONED = {
    "gridattention-4.md": "# [GridAttention-4: Tile Scheduling for Asymmetric Accelerators]"
    "(https://arxiv.org/abs/2605.01234)\n\n- MLSys 2026\n- Lumen Labs\n\n"
    "GridAttention-4 schedules attention tiles so tensor cores never wait on memory.\n",
    "gridattention-3.md": "# [GridAttention-3: Warp-Specialized Attention](https://arxiv.org/abs/2504.04321)\n\n"
    "- NeurIPS 2025\n- Lumen Labs\n\nGridAttention-3 overlaps softmax with matrix multiplies.\n",
}


@pytest.fixture(scope="module")
def versioned(tmp_path_factory, models_cache):
    return notes_from_texts(tmp_path_factory.mktemp("versioned-abbreviations"), VERSIONED, models_cache)


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("GA4 paper - venue + who", "GridAttention-4: Tile Scheduling for Asymmetric Accelerators"),
        ("what is ga4", "GridAttention-4: Tile Scheduling for Asymmetric Accelerators"),
        ("ga3 - what does it overlap", "GridAttention-3: Warp-Specialized Attention"),
    ],
)
def test_a_camel_cased_name_and_its_version_are_abbreviated(versioned, question, title):
    assert named(versioned, question) == [title]


def _note(title: str, venue: str, body: str) -> str:
    return f'---\ntitle: "{title}"\nvenue: "{venue}"\n---\n\n# {title}\n\n{body}\n'


@pytest.mark.parametrize(
    "term, title",
    [
        ("SLO attainment", "S-LoRA: Serving Thousands of Concurrent LoRA Adapters"),  # S|Lo of S-LoRA
        ("AIME accuracy", "AI Metropolis: Scaling Multi-Agent Simulation with Out-of-order Execution"),  # AI|Me
        ("MFU", "Megatron Framework Updates"),  # M|F|U, the initials themselves
    ],
)
def test_a_term_many_notes_write_abbreviates_no_title(tmp_path, models_cache, term, title):
    """A word that spells a title's initials but that the notes write, as a term, in more than
    COMMON_NAME_CHUNKS chunks of other papers (never in that paper's own) names no paper."""
    systems = ["Zephyr", "Quokka", "Basalt", "Mistletoe", "Pelican"]
    files = {
        f"{s.lower()}.md": _note(
            f"{s}: Serving LLMs Faster",
            "OSDI 2024",
            f"{s} improves {term} by 2x over vLLM on a 16-GPU cluster. It keeps {term} above 90% under bursts.",
        )
        for s in systems
    }
    files["target.md"] = _note(title, "MLSys 2024", "A system described in its own words, on its own hardware.")
    notes = notes_from_texts(tmp_path, files, models_cache)
    word = term.split()[0]
    assert title not in named(notes, f"how much does quokka improve {word.lower()}?")
    assert named(notes, f"how much does Quokka improve {term}?") == ["Quokka: Serving LLMs Faster"]
    assert title in named(notes, f"what is {title.split(':')[0]}")  # its own name still names it


@pytest.mark.parametrize(
    "typed, name, term",
    [("perf", "PeRF", "performance"), ("impl", "IMPL", "implementation"), ("mgmt", "MGMT", "management")],
)
def test_a_name_typed_as_the_shorthand_of_a_field_term_is_that_term(tmp_path, models_cache, typed, name, term):
    """A paper whose name is also the usual shorthand of a term of the field ("PeRF"/"perf") is named
    when the name is typed as the notes write it, and not by the shorthand typed in lower case beside
    another paper's name: "quokka perf gain?" asks for Quokka's performance gain."""
    systems = [
        "Zephyr",
        "Quokka",
        "Basalt",
        "Mistletoe",
        "Pelican",
        "Heron",
        "Osprey",
        "Kestrel",
        "Falcon",
        "Condor",
        "Harrier",
        "Merlin",
    ]
    files = {
        f"{s.lower()}.md": _note(f"{s}: Serving LLMs Faster", "OSDI 2024", f"{s} raises {term} by {i + 2}x over vLLM.")
        for i, s in enumerate(systems)
    }
    files["target.md"] = _note(f"{name}: A Preemption-Enabled RDMA Framework", "ATC 2024", "A framework for RDMA.")
    notes = notes_from_texts(tmp_path, files, models_cache)
    target = f"{name}: A Preemption-Enabled RDMA Framework"
    assert named(notes, f"quokka {typed} gain?") == ["Quokka: Serving LLMs Faster"]
    assert named(notes, f"what is {name}") == [target]
    answer = notes.ask(f"quokka {typed} gain?")
    assert "3x" in answer.answer and not answer.refused
