"""Abbreviations the notes define: a question's short form matches the long form the notes write, and
the long form matches the short form (retrieval/abbreviations.py, through question.match_keys and the
list answers)."""

from __future__ import annotations

import pytest
from conftest import make_settings, notes_from_texts, seed_models

from papernotes.retrieval.abbreviations import find_abbreviations, spelling_key, written_both_ways
from papernotes.retrieval.question import match_keys
from papernotes.retrieval.terms import lexical_terms

DEFINING = [
    "Serving Large Language Models (LLMs) is costly.",
    "* Each layer is a Mixture of Experts (MoE) with 64 experts.",
    "Retrieval-Augmented Generation (RAG) adds retrieved passages to the prompt.\nOther line (see below).",
    "We measure the time to first token (TTFT) of every request.",
]


def in_notes(term: str) -> bool:
    """The notes' terms: the words of :data:`DEFINING` (no joined word pairs)."""
    return term in {t for text in DEFINING for t in lexical_terms(text)}


def test_definitions_are_read_from_the_notes_text():
    abbr = find_abbreviations(DEFINING)
    assert abbr.long_of["llm"] == tuple(lexical_terms("large language model"))
    assert abbr.long_of["moe"] == tuple(lexical_terms("mixture of experts"))
    assert abbr.long_of["ttft"] == tuple(lexical_terms("time to first token"))
    assert abbr.short_of[tuple(lexical_terms("large language models"))] == "llm"
    assert "see" not in abbr.long_of and "below" not in abbr.long_of  # a parenthesis that is no abbreviation


@pytest.mark.parametrize(
    "texts",
    [
        [],
        ["No parentheses here at all."],
        ["A remark (not an abbreviation, just words) and a figure (Fig. 3)."],
        ["Latency fell (by 40%) in the tests (TPC-C)."],  # TPC-C's letters are not in the words before it
    ],
)
def test_text_without_definitions_defines_nothing(texts):
    assert not find_abbreviations(texts).long_of


@pytest.mark.parametrize(
    ("question", "word", "alternatives"),
    [
        ("llm serving papers", "llm", [("llm",), ("larg", "languag", "model")]),
        ("LLMs for serving", "llm", [("llm",), ("larg", "languag", "model")]),
        ("large language model serving", "large language model", [("llm",), ("larg", "languag", "model")]),
        ("serving large language models", "large language models", [("llm",), ("larg", "languag", "model")]),
        ("papers on mixture of experts", "mixture of experts", [("moe",), ("mixtur", "expert")]),
        ("what is the ttft of it", "ttft", [("ttft",), ("time", "first", "token")]),
    ],
)
def test_a_question_matches_the_short_or_the_long_form(question, word, alternatives):
    keys = match_keys(question, in_notes, frozenset(), None, find_abbreviations(DEFINING))
    key = next(k for k in keys if k.word == word)
    assert sorted(key.alternatives) == sorted(alternatives)
    assert key.covered(set(alternatives[0])) and key.covered(set(alternatives[1]))


HYPHENATED = ["Parameter-efficient fine-tuning (PEFT) trains a few extra weights.", "Uses a key-value (KV) cache."]


@pytest.mark.parametrize(
    ("question", "word"),
    [
        # a long form is found however its compounds are typed: joined, split or hyphenated
        ("papers on parameter efficient finetuning", "parameter efficient finetuning"),
        ("parameter efficient fine tuning papers?", "parameter efficient fine tuning"),
        ("which papers do parameter-efficient fine-tuning", "parameter-efficient fine-tuning"),
        ("Parameter-Efficient Finetuning methods", "Parameter-Efficient Finetuning"),
        ("key value cache size", "key value"),
    ],
)
def test_a_long_form_typed_with_its_compounds_joined_or_split_matches(question, word):
    vocab = {t for text in HYPHENATED for t in lexical_terms(text)}
    keys = match_keys(question, vocab.__contains__, frozenset(), None, find_abbreviations(HYPHENATED))
    key = next(k for k in keys if k.word.casefold() == word.casefold())
    # the short form the notes define is one of its readings: a note tagged only "peft" (or "kv") covers it
    assert any(len(alt) == 1 and alt[0] in {"peft", "kv"} for alt in key.alternatives), key


def test_words_the_notes_do_not_abbreviate_are_read_as_themselves():
    keys = match_keys("large scale model serving", in_notes, frozenset(), None, find_abbreviations(DEFINING))
    assert [k.word for k in keys] == ["large", "scale", "model", "serving"]


def test_a_list_question_finds_papers_by_either_form(tmp_path, models_cache):
    """One paper is listed as "LLM serving", another as "serving large language models": a list question
    typed either way lists both (the notes define the abbreviation once, elsewhere), and a paper on
    another topic stays out."""
    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.service import Notes

    notes_dir = tmp_path / "notes"
    notes_dir.mkdir()
    (notes_dir / "glossary.md").write_text(
        "# Glossary\n\nLarge Language Models (LLMs) are neural networks trained on text.\n", encoding="utf-8"
    )
    (notes_dir / "hotos-2030.md").write_text(
        "# HotOS 2030\n\n## Papers\n\n"
        "* Quokka: Elastic LLM Serving on Spot GPUs \\[[Paper](https://example.org/quokka)]\n"
        "  * Uni A\n  * Moves LLM serving replicas between spot GPUs before preemption.\n"
        "* Numbat: Cheaper Serving of Large Language Models with Shared Prefixes \\[[Paper](https://example.org/numbat)]\n"
        "  * Uni B\n  * Serves large language models from one shared prefix cache across tenants.\n"
        "* Dingo: Crash-Consistent Logging for Persistent Memory \\[[Paper](https://example.org/dingo)]\n"
        "  * Uni C\n  * Logs persistent memory writes so a crash loses no committed update.\n",
        encoding="utf-8",
    )
    data = tmp_path / "data"
    seed_models(models_cache, data)
    s = make_settings(data)
    ingest(s, [str(notes_dir)])
    notes = Notes(s)
    for q in ("hotos 2030 papers on llm serving?", "which HotOS 2030 papers are about serving large language models"):
        a = notes.ask(q, use_llm=False)
        titles = " ".join(c.paper_title or "" for c in a.citations)
        assert a.kind == "list" and "Quokka" in titles and "Numbat" in titles, (q, titles)
        assert "Dingo" not in titles, q


#: Chunks that use abbreviations without defining them: "KV" beside "key-value" in two chunks, "JIT"
#: beside "just-in-time" in two (the function word's initial optional), "UC" beside "user-controlled"
#: in one only (UC Berkeley), "PD" in two chunks but "prefill-decode" in one of them.
UNDEFINED = [
    "The KV cache grows with the context; key-value pairs of old tokens are evicted first.",
    "KV cache blocks are paged, so key-value memory is not fragmented.",
    "JIT compilation: kernels are built just-in-time for each shape.",
    "A just-in-time checkpoint is taken when a JIT handler sees the failure.",
    "UC Berkeley; the quota is user-controlled.",
    "PD disaggregation splits the phases; prefill-decode interference disappears.",
    "PD ratio is tuned per model.",
]


def test_abbreviations_written_beside_their_long_form_are_read_without_a_definition():
    assert written_both_ways(UNDEFINED) == {"KV": "key-value", "JIT": "just-in-time"}
    abbr = find_abbreviations(UNDEFINED)
    assert abbr.long_of["kv"][:2] == tuple(lexical_terms("key value"))
    assert "uc" not in abbr.long_of and "pd" not in abbr.long_of


@pytest.mark.parametrize("question", ["papers on kv cache", "kv cache eviction?", "who evicts kv pairs"])
def test_a_short_form_the_notes_only_use_matches_its_long_form(question):
    vocab = {t for text in UNDEFINED for t in lexical_terms(text)}
    keys = match_keys(question, vocab.__contains__, frozenset(), None, find_abbreviations(UNDEFINED))
    # a chunk that writes only "key-value" covers the key the question types as "kv"
    have = set(lexical_terms("key-value cache pairs"))
    kv = next(k for k in keys if "kv" in k.word)
    assert kv.covered(have), kv


def test_a_list_question_typed_with_an_undefined_short_form_finds_the_long_form(tmp_path, models_cache):
    """Two notes write "KV cache" beside "key-value"; one paper of a venue writes only "key-value
    cache": "papers on kv cache" at that venue lists it, and not the venue's other papers (one of them
    about another cache)."""
    files = {
        "paging.md": "# Paging the cache\n\nThe KV cache is paged; key-value blocks are 16 tokens each.\n",
        "eviction.md": "# Eviction\n\nKV cache eviction drops key-value pairs of the least attended tokens.\n",
        "hotos-2031.md": "# HotOS 2031\n\n## Papers\n\n"
        "* Wombat: Elastic Long-Context Serving \\[[Paper](https://example.org/wombat)]\n"
        "  * Uni A\n  * Migrates key-value cache blocks between instances as sequences grow.\n"
        "* Dingo: Crash-Consistent Logging for Persistent Memory \\[[Paper](https://example.org/dingo)]\n"
        "  * Uni C\n  * Logs persistent memory writes so a crash loses no committed update.\n"
        "* Possum: A Page Cache for Disaggregated Storage \\[[Paper](https://example.org/possum)]\n"
        "  * Uni D\n  * Keeps hot file pages in a remote memory cache shared by the compute nodes.\n",
    }
    notes = notes_from_texts(tmp_path, files, models_cache)
    for q in ("hotos 2031 papers on kv cache", "which hotos31 papers deal with the KV cache"):
        a = notes.ask(q, use_llm=False)
        titles = " ".join(c.paper_title or "" for c in a.citations)
        assert a.kind == "list" and "Wombat" in titles, (q, a.answer)
        assert "Dingo" not in titles and "Possum" not in titles, (q, a.answer)


def test_an_abbreviation_does_not_run_across_a_titles_colon():
    from papernotes.retrieval.abbreviations import abbreviates

    assert not abbreviates("BERT", "ByteDance Jakiro: Enabling RDMA and TCP over VPC")  # b | e r t across ":"
    assert abbreviates("DPO", "Direct Preference Optimization: Your Language Model is Secretly a Reward Model")
    assert abbreviates("SimCLR", "A Simple Framework for Contrastive Learning of Visual Representations")


def test_an_acronym_ending_in_s_is_no_plural_for_the_title_it_abbreviates():
    """The one normalization reads "gfs" as the plural of "gf" (as "gpus" → "gpu"); as an abbreviation it
    is also tried with its "s": GFS is the Google File System, and "ddpms" still abbreviates DDPM."""
    from papernotes.retrieval.abbreviations import TitleAbbreviations, abbreviates

    assert abbreviates("gfs", "The Google File System") and abbreviates("GFS", "The Google File System")
    assert abbreviates("ddpms", "Denoising Diffusion Probabilistic Models")
    titles = TitleAbbreviations(["The Google File System", "Generative Flow Networks"])
    assert titles.abbreviated("gfs") == [0]


FAMOUS = {
    "routing.md": "# Bounded Elastic Sparse Routing Tables\n\n[Paper](https://arxiv.org/abs/3101.00011)\n\n"
    "The routing tables grow and shrink with the traffic; lookups stay under 40 ns.\n",
    "kernel.md": "# Tiered Memory Pages\n\n[Paper](https://arxiv.org/abs/3101.00012)\n\n"
    "Pages move between tiers; merged into Linux v5.18 with a TTL per page.\n",
}


def test_a_famous_name_no_note_writes_names_no_paper_alone(tmp_path, models_cache):
    """ "BERT paper?" where no note says BERT is refused, though b|e|r|t spells out "Bounded Elastic
    Routing Tables"; with words that point at that paper the abbreviation reads ("bert routing tables
    lookup time?"). A versioned name the notes lack ("T5") is not covered by its parts ("TTL", "5.18")."""
    from conftest import named_titles, notes_of

    from papernotes.retrieval.prompts import REFUSAL

    folder = tmp_path / "notes"
    folder.mkdir()
    for name, text in FAMOUS.items():
        (folder / name).write_text(text, encoding="utf-8")
    notes = notes_of(folder, tmp_path / "data", models_cache)
    for q in ("BERT paper?", "what is BERT", "what is T5", "GPT-2 paper?"):
        a = notes.ask(q, use_llm=False)
        assert a.refused and a.answer.startswith(REFUSAL), (q, a.answer)
    assert named_titles(notes, "bert routing tables lookup time?") == ["Bounded Elastic Sparse Routing Tables"]
    assert named_titles(notes, "BERT paper?") == []


def test_spelling_keys_join_compounds_and_stem_the_end():
    keys = {spelling_key(t) for t in ("fine-tuning", "fine tuning", "finetuning", "Fine-Tuning")}
    assert len(keys) == 1
    assert spelling_key("large language models") == spelling_key("Large-Language-Model")
    assert spelling_key("key value") != spelling_key("key values cache")
    assert spelling_key("—") == ""
