"""Answers on questions typed the way people type them (issue: one question path, venues as people write
them, calibrated answerability, sentence-level evidence). The notes are tests/fixtures/answers: a small
collection with a deep note (Mooncake), bullet-only papers on conference pages (SOSP 2024, FAST 2026),
a topic page with non-breaking hyphens ("Llama‑3‑8B"), a note saved in decomposed Unicode (macOS NFD),
a Chinese note, a note without the detail a question asks, and four near-copies of one note."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from conftest import make_settings, notes_of, seed_models

from papernotes.corpus.normalize import compact, normalize, tokens
from papernotes.retrieval.filters import detect_filters, normalize_filters
from papernotes.retrieval.prompts import REFUSAL
from papernotes.retrieval.question import understand
from papernotes.retrieval.terms import lexical_terms

ANSWERS = Path(__file__).resolve().parent / "fixtures" / "answers"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_of(ANSWERS, tmp_path_factory.mktemp("answers-index"), models_cache)


def ask(notes, q: str):
    return notes.ask(q, use_llm=False)


def cited_titles(a) -> list[str]:
    return [c.paper_title or c.page_title or "" for c in a.citations]


# --- one normalization ------------------------------------------------------------------------------


def test_normalization_unifies_spellings():
    assert normalize("Mooncake’s") == normalize("Mooncake's") == "mooncake"
    assert normalize(unicodedata.normalize("NFD", "Café Router")) == normalize("Café Router") == "cafe router"
    assert normalize("Llama\u20113\u20118B") == normalize("Llama-3-8B")  # non-breaking hyphens
    assert normalize("KV\u00a0cache") == "kv cache"  # no-break space
    # letter/digit boundaries: LLaMA3, Llama-3 and llama 3 share their parts
    for spelling in ("LLaMA3 8B", "Llama-3-8B", "llama 3 8b"):
        assert {"llama", "3", "8", "b"} <= set(tokens(spelling))
    assert compact("DeepSeekV3.2") == compact("DeepSeek-V3.2") == "deepseekv32"
    assert "deepseekv32" in tokens("DeepSeekV3.2") and "deepseekv32" in tokens("DeepSeek-V3.2")
    # CJK text becomes character bigrams instead of being dropped
    assert tokens("预填充与解码") == ["预填", "填充", "充与", "与解", "解码"]


@pytest.mark.parametrize(
    ("written", "typed"),
    [
        ("β2 = 0.999", "beta2"),
        ("Adam (β₁, β₂)", "beta 1"),
        ("weight decay λ=0.1", "lambda"),
        ("ϵ-greedy exploration", "epsilon greedy"),
        ("ΔW = BA", "delta w"),
        ("π_θ over π_ref", "pi theta"),
        ("Ω(N²) memory", "omega"),
    ],
)
def test_a_greek_letter_matches_its_name_as_typed(written, typed):
    """Notes write the symbol, people type its name: every token of the typed form is one of the
    written form's (case folded, subscripts as digits)."""
    assert set(tokens(typed)) <= set(tokens(written)), (tokens(written), tokens(typed))


def test_greek_letters_are_named_and_nothing_else_changes():
    assert normalize("a;b") == "a;b" and normalize("Café β") == "cafe beta-"
    assert normalize("α") == normalize("Α") == "alpha-"  # small and capital alike


@pytest.mark.parametrize(
    "text, words",
    [
        ("where'd it appear", ["where", "it", "appear"]),
        ("who’re the authors", ["who", "the", "authors"]),  # curly apostrophe
        ("what've they built", ["what", "they", "built"]),
        ("they'll ship it", ["they", "ship", "it"]),
        ("it didn't scale", ["it", "didn", "scale"]),
        ("O'Reilly's notes", ["o", "reilly", "oreilly", "notes"]),  # a name's apostrophe is no clitic
    ],
)
def test_contraction_clitics_are_not_part_of_the_word(text, words):
    assert tokens(text) == words


@pytest.mark.parametrize(
    "text, words",
    [
        ("le surcoût d'AEGIS", ["le", "surcout", "aegis"]),
        ("l'algorithme de DistServe", ["algorithme", "de", "distserve"]),
        ("qu'est-ce que c'est", ["est", "ce", "estce", "que", "est"]),
        ("jusqu’à 8 GPU", ["a", "8", "gpu"]),  # curly apostrophe
        ("rock 'n' roll, O'Brien", ["rock", "n", "roll", "o", "brien", "obrien"]),  # no elision in English
    ],
)
def test_an_elided_french_article_is_not_part_of_the_word(text, words):
    assert tokens(text) == words


@pytest.mark.parametrize(
    "text, typed",
    [("$$E^3$$ (Efficient Early-Exits)", "E3"), ("O(n^2) memory", "n2"), ("x^{2}", "x2"), ("E³", "E3")],
)
def test_a_caret_superscript_is_part_of_the_word_as_typed(text, typed):
    """TeX's "E^3" in a note is found by "E3" typed in a question (and by "E³", which NFKC reads so)."""
    assert normalize(typed) in tokens(text)
    assert tokens("a ^ b") == ["a", "b"]  # a caret between spaces joins nothing


@pytest.mark.parametrize(
    "plural, singular",
    [
        ("GPUs", "GPU"),  # the stemmer keeps an "s" after a vowel ("gpus" could be "bus")
        ("LLMs", "llm"),
        ("SLOs", "SLO"),
        ("MLLMs", "MLLM"),
        ("DNNs", "dnn"),
        ("llms", "LLM"),  # typed in lower case: no vowel, so an acronym's plural
        ("vms", "VM"),
        ("gpus", "GPU"),  # a vowel before the "s": singular when the word is no English word ("bus" is)
        ("slos", "SLO"),
        ("tpus", "TPUs"),
        ("serving LLMs", "LLM serving"),
    ],
)
def test_an_acronyms_plural_is_its_singular(plural, singular):
    assert sorted(lexical_terms(plural)) == sorted(lexical_terms(singular))


@pytest.mark.parametrize("word", ["bus", "gas", "plus", "status", "corpus", "thus"])
def test_english_words_ending_in_s_after_a_vowel_are_kept(word):
    assert tokens(word) == [word]


# --- venues as people write them --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, venue, series",
    [
        ("which SOSP papers study storage?", None, "SOSP"),
        ("sosp24 llm training papers?", "SOSP 2024", None),
        ("what was fast 2026's acceptance rate", "FAST 2026", None),
        ("FAST '26 papers on file systems", "FAST 2026", None),
        ("atc'25 best papers", "USENIX ATC 2025", None),
        ("perseus (sosp 24) - what's it do?", "SOSP 2024", None),
        ("mlsys 24 accept rate", "MLSys 2024", None),
        ("osdi 24 keynote?", "OSDI 2024", None),
    ],
)
def test_venues_written_casually_become_filters(text, venue, series):
    f = detect_filters(text, ["SOSP 2024", "FAST 2026", "USENIX ATC 2025", "MLSys 2024", "OSDI 2024"])
    assert (f.venue, f.series) == (venue, series)


def test_a_number_before_a_plural_noun_is_a_count_not_a_year():
    assert detect_filters("we ran SC 25 nodes", ["SC 2025"]).venue is None
    assert detect_filters("we ran SC 24 gpus", ["SC 2024"]).venue is None  # jargon plural
    assert detect_filters("SC 24 hours of traces", ["SC 2024"]).venue is None
    assert detect_filters("osdi 24 papers on storage", ["OSDI 2024"]).venue == "OSDI 2024"


@pytest.mark.parametrize(
    "text, venue",
    [
        # a verb or a contraction typed without its apostrophe after the number: it counts nothing
        ("dandelion sosp 25 whats it about", "SOSP 2025"),
        ("golgi socc 23 predicts function perf with what model", "SoCC 2023"),
        ("nsdi 26 lets see, any papers on rdma?", "NSDI 2026"),
        ("the osdi 24 one gets what speedup", "OSDI 2024"),
        ("mlsys 25 thats the one on sharding", "MLSys 2025"),
        # the lexicon reads "hows", "wheres" as plural nouns; typed so, they are "how's", "where's"
        ("lithos sosp 25 hows it work", "SOSP 2025"),
        ("sosp 25 wheres lithos from", "SOSP 2025"),
        # a part of the venue is no count of it
        ("mlsys 25 workshops", "MLSys 2025"),
        ("nsdi 26 tutorials?", "NSDI 2026"),
    ],
)
def test_a_number_before_a_verb_or_contraction_stays_a_year(text, venue):
    f = detect_filters(text, ["SOSP 2025", "SoCC 2023", "NSDI 2026", "OSDI 2024", "MLSys 2025"])
    assert f.venue == venue


def test_ordinary_word_fast_is_not_a_venue():
    assert not detect_filters("How fast is Mooncake at prefill?", ["FAST 2026"])
    assert not detect_filters("a fast and cheap scheduler", ["FAST 2026"])
    assert detect_filters("papers at fast?", ["FAST 2026"]).series == "FAST"


def test_series_flag_filters_every_year():
    assert normalize_filters("SOSP").series == "SOSP"
    assert normalize_filters("sosp").series == "SOSP"
    assert normalize_filters("sosp24").venue == "SOSP 2024"


# --- answers ----------------------------------------------------------------------------------------


def test_possessive_and_of_forms_get_the_same_answer(notes):
    a1 = ask(notes, "What's Mooncake's KV cache design?")
    a2 = ask(notes, "What is the KV cache design of Mooncake?")
    for a in (a1, a2):
        assert not a.refused
        assert "multi-layer KVCache pool" in a.answer
        assert all(t.startswith("Mooncake") for t in cited_titles(a))


@pytest.mark.parametrize("spelling", ["LLaMA3 8B", "Llama-3-8B", "llama 3 8b"])
def test_model_name_spellings_find_the_note(notes, spelling):
    a = ask(notes, f"Which paper improves the Chinese ability of {spelling}?")
    assert not a.refused
    assert cited_titles(a)[0].startswith("Llama-3-SynE")


@pytest.mark.parametrize("spelling", ["DeepSeekV3.2", "DeepSeek-V3.2", "deepseek v3.2"])
def test_version_spellings_find_the_note(notes, spelling):
    a = ask(notes, f"What does {spelling} introduce?")
    assert not a.refused
    assert "DeepSeek Sparse Attention" in a.answer


@pytest.fixture(scope="module")
def versioned(tmp_path_factory, models_cache):
    root = tmp_path_factory.mktemp("versioned-notes")
    (root / "flashkern-4.md").write_text(
        "# [FlashKern-4: Attention Kernels for Asymmetric GPUs](https://arxiv.org/abs/2604.00001)\n\n"
        "FlashKern-4 pipelines softmax and matmul on Blackwell GPUs. It reaches a 3x speedup over cuDNN and\n"
        "keeps 2 warps per tile busy.\n",
        encoding="utf-8",
    )
    return notes_of(root, tmp_path_factory.mktemp("versioned-index"), models_cache)


@pytest.mark.parametrize("question", ["flashkern 3 speedup?", "what does flashkern 2 pipeline", "flashkern 3 paper?"])
def test_a_version_the_notes_lack_is_refused(versioned, question):
    """ "flashkern 3" is FlashKern-3, as "deepseek v3.2" is DeepSeek-V3.2: a version the notes do not have,
    not FlashKern and any "3" ("a 3x speedup")."""
    assert versioned.ask(question, use_llm=False).refused


def test_the_version_the_notes_have_is_answered(versioned):
    a = versioned.ask("flashkern 4 speedup over cudnn?", use_llm=False)
    assert not a.refused and "3x speedup" in a.answer, a.answer


def test_nfd_note_found_by_nfc_question(notes):
    a = ask(notes, "What does Café Router do?")
    assert not a.refused
    assert "shortest queue" in a.answer


@pytest.mark.parametrize(
    "question",
    # typed with or without a space: CJK text puts none between words, so a name may touch the text
    ["DistServe 是什么?", "DistServe是什么", "DistServeとは何ですか", "DistServe는 무엇인가요", "什么是DistServe？"],
)
def test_cjk_question_naming_a_system(notes, question):
    a = ask(notes, question)
    assert not a.refused, question
    assert cited_titles(a)[0].startswith("DistServe")
    assert [m.name for m in notes.retriever.understand(question).papers] == ["DistServe"]


@pytest.mark.parametrize(
    "question",
    ["Quels sont les auteurs d'Apparate ?", "C'est quoi l'idée d'Apparate ?", "Où a été publié l'Apparate ?"],
)
def test_a_french_question_names_a_paper_after_an_elided_article(notes, question):
    """An elided article ("d'Apparate"): the elided article is no part of the name (Lucene's French elisions)."""
    assert [m.name for m in notes.retriever.understand(question).papers] == ["Apparate"]
    a = ask(notes, question)
    assert not a.refused and cited_titles(a)[0].startswith("Apparate"), a.answer


@pytest.mark.parametrize(
    "question", ["Was ist die Idee von Apparate?", "Wer hat Apparate gebaut?", "Was ist die Grundidee hinter Apparate?"]
)
def test_a_german_question_names_a_paper_beside_capitalized_nouns(notes, question):
    """German writes every noun with a capital ("die *Idee*"): there a capital marks no name the notes lack,
    so the question is read as naming Apparate, not refused for a name no note writes."""
    a = ask(notes, question)
    assert not a.refused and cited_titles(a)[0].startswith("Apparate"), a.answer


@pytest.mark.parametrize("question", ["Was ist die Idee von Moonfake?", "Wer hat Moonfake gebaut?"])
def test_a_german_question_naming_nothing_in_the_notes_is_refused(notes, question):
    assert ask(notes, question).refused


@pytest.mark.parametrize(
    "question", ["DistServe 发表在哪个会议？", "DistServe 发表在哪", "DistServe 的链接", "DistServe 作者单位"]
)
def test_a_lookup_asked_in_chinese_field_words(notes, question):
    """作者 / 单位 / 发表 / 会议 / 链接 are the record's fields as Chinese notes label them (the notes' label
    list): a lookup, answered from the record (its link, its affiliations), not refused for words no
    English note uses."""
    a = ask(notes, question)
    assert not a.refused and "zhong-yinmin" in a.answer and "PKU & UCSD" in a.answer, a.answer


def test_chinese_question_on_a_chinese_note(notes):
    a = ask(notes, "哪个系统将预填充和解码分离?")
    assert not a.refused
    assert "DistServe" in a.answer and "分布式推理笔记" in cited_titles(a)


def test_what_is_a_bullet_only_paper(notes):
    a = ask(notes, "What is PowerInfer?")
    assert not a.refused and a.kind == "lookup"
    assert "GPU-CPU hybrid inference engine" in a.answer and "SOSP 2024" in a.answer


def test_what_is_a_deep_note_paper(notes):
    for q in ("What is Mooncake?", "mooncake paper?", "who built mooncake"):
        a = ask(notes, q)
        assert not a.refused, q
        assert "FAST 2025" in a.answer and "Moonshot AI" in a.answer, q


def test_detail_the_notes_lack_is_refused(notes):
    a = ask(notes, "What learning-rate schedule did Llama 3 use?")
    assert a.refused and a.answer == REFUSAL
    b = ask(notes, "How many tokens was Llama 3 pre-trained on?")  # the note does say this
    assert not b.refused and "15T" in b.answer


def test_comparison_cites_both_papers(notes):
    a = ask(notes, "How does E3 differ from Apparate?")
    assert not a.refused and a.kind == "comparison"
    titles = " ".join(cited_titles(a))
    assert "Apparate" in titles and "Per-Input Compute Adaptation" in titles


def test_near_copies_do_not_fill_the_top_5(notes):
    res = notes.search("speculative decoding with draft trees", k=5)
    raccoon = [h for h in res.hits if (h.get("page_title") or "").startswith("Raccoon")]
    assert len(raccoon) == 1
    assert len(raccoon[0].also) == 3  # the other three copies, noted
    assert len({h.get("page_title") for h in res.hits}) == 5


def test_list_question_answered_from_the_catalog(notes):
    a = ask(notes, "sosp24 llm training papers?")
    assert not a.refused and a.kind == "list"
    titles = " ".join(cited_titles(a))
    assert "Reducing Energy Bloat" in titles and "ReCycle" in titles
    assert "PowerInfer" not in titles


def test_query_on_an_index_built_with_older_term_rules_says_so(notes, tmp_path):
    import shutil
    import subprocess
    import sys

    from papernotes.retrieval.errors import IndexOutdatedError
    from papernotes.retrieval.indexing import ensure_index, ingest

    data = tmp_path / "old"
    shutil.copytree(notes.settings.data_dir, data)
    (data / "index.json").unlink()  # what a data dir written by the previous release looks like
    s = make_settings(data)
    with pytest.raises(IndexOutdatedError, match="papernotes ingest"):
        ensure_index(s)
    r = subprocess.run(
        [sys.executable, "-m", "papernotes.bot.cli", "ask", "What is PowerInfer?"],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "PAPERNOTES_DATA_DIR": str(data)},
    )
    assert r.returncode != 0 and r.stderr.count("\n") == 1 and "papernotes ingest" in r.stderr
    assert "Traceback" not in r.stderr
    rep = ingest(s, [str(ANSWERS)])
    assert rep.added == 0  # the keyword side is rebuilt; nothing is re-embedded
    ensure_index(s)


def test_readme_retriever_example_runs_and_composes(notes, monkeypatch, capsys):
    import re

    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnablePassthrough

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The retriever in your own LangChain chain", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    monkeypatch.setenv("PAPERNOTES_DATA_DIR", str(notes.settings.data_dir))
    scope: dict = {}
    exec(code.group(1), scope)  # the README's own lines, against the fixture index
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 5 and any(line.startswith("DistServe") for line in printed)

    retriever = scope["retriever"]
    prompt = ChatPromptTemplate.from_template("Sources: {context}\nQuestion: {question}")
    llm = FakeListChatModel(responses=["ok"])
    chain = {"context": retriever, "question": RunnablePassthrough()} | prompt
    filled = chain.invoke("Which systems disaggregate prefill and decode?").to_string()
    assert "DistServe" in filled or "Splitwise" in filled
    assert (chain | llm).invoke("Which systems disaggregate prefill and decode?").content == "ok"


# --- question understanding: framing words, acronyms, counts, names --------------------------------


@pytest.mark.parametrize(
    "q, framing",
    [
        ("How long does Mooncake keep a KVCache block?", "long"),
        ("how big was the Mooncake deployment", "big"),
        ("How often does Mooncake evict cache blocks?", "often"),
    ],
)
def test_amount_interrogatives_ask_for_a_number_and_are_not_keys(notes, q, framing):
    qq = notes.retriever.understand(q)
    assert qq.asks_quantity
    assert framing not in {k.word for k in qq.keys}
    assert "mooncake" not in {k.word for k in qq.asked}  # the name is the subject, not what is asked


def test_acronym_keys_need_the_x_of_y_form_and_the_notes_spelling():
    from papernotes.retrieval.question import match_keys

    stems = {"loc", "line", "code", "schedul", "long", "run", "applic", "sla", "distribut", "llm", "train", "dlt"}

    def everywhere(term: str) -> bool:  # the notes use each word (and each acronym), no joined pair
        return term in stems

    loc = match_keys("lines of code", everywhere, frozenset({"loc"}))
    assert [k.alternatives[0] for k in loc] == [("loc",)]
    # an acronym the notes do not write in capitals ("lie", "sla" as words) forms no key
    assert [k.word for k in match_keys("lines of code", everywhere, frozenset())] == ["lines", "code"]
    # three content words in a row are read as themselves, whatever their initials spell
    for phrase in ("scheduler long-running applications", "distributed llm training"):
        initials = "".join(w[0] for w in phrase.split())
        assert [k.word for k in match_keys(phrase, everywhere, frozenset({initials}))] == phrase.split()
    # the function word's letter is lower case where the notes write the acronym ("LoC"): "publish about
    # llm" is no "PAL" the notes write in capitals
    written = {"LoC", "PAL"}.__contains__
    stems |= {"publish", "pal"}
    keyed = match_keys("lines of code", everywhere, frozenset({"loc"}), writes=written)
    assert [k.alternatives[0] for k in keyed] == [("loc",)]
    pal = match_keys("publish about llm", everywhere, frozenset({"pal"}), writes=written)
    assert [k.word for k in pal] == ["publish", "llm"]


@pytest.mark.parametrize("q", ["How many papers did SOSP 2024 accept?", "how many papers at sosp24?"])
def test_how_many_papers_asks_for_a_count_not_a_list(notes, q):
    assert not notes.retriever.understand(q).is_list
    a = ask(notes, q)
    assert not a.refused and "248" in a.answer


def test_one_word_name_written_as_ordinary_words_names_no_paper():
    from papernotes.corpus.models import PaperRecord
    from papernotes.retrieval.bm25 import BM25Index
    from papernotes.retrieval.entities import PaperIndex

    records = [
        PaperRecord(title="ServerlessLLM: Low-Latency Serverless Inference for Large Language Models"),
        PaperRecord(
            title="Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve", system="Sarathi-Serve"
        ),
    ]
    texts = [f"Paper {i}: serverless LLM serving that scales model replicas" for i in range(8)]
    texts += [records[0].title, records[1].title]
    metas = [{"paper_title": f"Paper {i}"} for i in range(8)] + [{"paper_title": r.title} for r in records]
    index = PaperIndex(records, BM25Index.build([str(i) for i in range(len(texts))], texts, metas))
    for described in ("serverless LLM serving in public clouds?", "which serverless llm systems exist"):
        assert index.resolve(described) == [], described
    for named in ("what is ServerlessLLM?", "serverlessllm paper?"):
        assert [m.records for m in index.resolve(named)] == [[0]], named
    for named in ("sarathi serve?", "Sarathi-Serve's scheduler"):
        assert [m.records for m in index.resolve(named)] == [[1]], named


# --- answers: same-name papers, lookups, one-paper lists ---------------------------------------------


@pytest.mark.parametrize(
    "q", ["there are two Burrow papers - what does each one do?", "burrow (fast 2026 and sosp 2024) - the difference?"]
)
def test_one_name_two_papers_is_answered_for_both(notes, q):
    a = ask(notes, q)
    assert not a.refused and a.kind == "comparison"
    assert "atomic persistent-memory updates" in a.answer and "lossless tunnels" in a.answer


def test_lookup_gives_link_and_system_name(notes):
    a = ask(notes, "What is E3?")
    assert not a.refused
    assert "(E3; SOSP 2024" in a.answer  # the title does not hold the system name: the lead line does
    assert "split and replicate" in a.answer
    assert "https://dl.acm.org/doi/10.1145/3694715.3695978" in a.answer


def test_a_list_of_one_paper_says_what_it_is(notes):
    a = ask(notes, "fast 2026 journaling papers?")
    assert not a.refused and a.kind == "list"
    assert a.answer.startswith("Burrow: A Log-Free Journaling File System")
    assert "Replace the journal" in a.answer


@pytest.mark.parametrize(
    "q",
    [
        "How does E3 differ from Apparate?",
        "E3 vs Apparate?",
        "what's the difference between apparate and E3",
        "compare Apparate and E3",
    ],
)
def test_comparisons_typed_any_way_answer_both(notes, q):
    a = ask(notes, q)
    assert not a.refused and a.kind == "comparison", q
    titles = " ".join(cited_titles(a))
    assert "Apparate" in titles and "Per-Input Compute Adaptation" in titles, q


@pytest.mark.parametrize(
    "q",
    [
        "mooncake's distribued kv cache desgin?",
        "mooncake kv cache archtecture?",
        "what does mooncake pool in its kv cache desgn",
        "mooncake kv cahce design",  # a misspelt half of a word pair the notes write joined ("KVCache")
    ],
)
def test_misspelt_or_abbreviated_words_are_read_as_the_notes_words(notes, q):
    a = ask(notes, q)
    assert not a.refused, q
    assert "multi-layer KVCache pool" in a.answer, q


@pytest.mark.parametrize("q", ["What is Moonfake's KV cache design?", "How does Moonkake Serve pool KV caches?"])
def test_an_unknown_capitalized_name_near_a_known_one_is_not_corrected(notes, q):
    assert ask(notes, q).refused, q


@pytest.mark.parametrize(
    "q",
    [
        "how does FooBarServe schedule requests?",
        "What KV cache layout does Zanzibar-LLM use?",
        "is QuokkaDB faster than the prefill and decoding split?",
    ],
)
def test_a_name_the_notes_lack_is_the_subject_and_the_question_is_refused(notes, q):
    """Passages about other papers match the question's other words (KV cache, prefill), but the name it
    asks about is not in the notes: refused, whatever the evidence score."""
    a = ask(notes, q)
    assert a.refused and not a.citations, (q, a.answer)


@pytest.mark.parametrize(
    "q",
    [
        "who built mooncake",
        "Mooncake's main idea?",
        "where was PowerInfer published?",
        "powerinfer (sosp 24) gpu-cpu hybrid inference engine, who made it",  # words describing it, then who
        "apparate early exits paper - whose is it? pls",
    ],
)
def test_questions_asking_for_the_catalog_record_are_lookups(notes, q):
    a = ask(notes, q)
    assert not a.refused and a.kind == "lookup", q
    assert any(x in a.answer for x in ("FAST 2025", "SOSP 2024")), q


@pytest.mark.parametrize(
    "q",
    [
        "What baselines does PowerInfer compare against?",
        "what license is Apparate released under?",
        "which optimizer did Perseus use?",
    ],
)
def test_a_named_paper_with_an_attribute_its_notes_lack_is_not_a_lookup(notes, q):
    # not answered from the catalog record whatever the score: the calibrated answerability decides
    a = ask(notes, q)
    assert a.kind != "lookup", q
    assert notes.analyze(q).lookup is False, q


def test_a_venue_the_notes_lack_is_the_subject_of_a_question_naming_no_paper(notes):
    assert ask(notes, "osdi 2019 accept rate?").refused
    a = ask(notes, "what did mooncake at fast 2023 do")  # a named paper, its venue misremembered
    assert not a.refused and "FAST 2025" in a.answer and a.note and "FAST 2023" in a.note


def test_affiliations_are_quoted_as_the_notes_write_them(notes):
    a = ask(notes, "Apparate paper?")
    assert "Princeton & GaTech" in a.answer


@pytest.mark.parametrize(
    "q",
    [
        "sosp 24 llm training pappers",  # a misspelt list noun
        "sosp24 llm training paper(s)?",
        "sosp 2024 - anything on llm training?",  # a venue, no paper named, "anything on"
        "papers that study llm training at sosp 2024",  # the plural noun heads the question
        "ok so works on llm training from sosp24?",
        "SOSP 2024 的 LLM training 论文有哪些?",  # Chinese "which (ones)"
        "anything at sosp 2024 on llm training? list em",  # "em": the papers the question describes
    ],
)
def test_list_questions_typed_casually_are_lists(notes, q):
    a = ask(notes, q)
    assert not a.refused and a.kind == "list", q
    titles = " ".join(cited_titles(a))
    assert "Reducing Energy Bloat" in titles and "ReCycle" in titles, q


@pytest.mark.parametrize(
    "q",
    [
        "the early exit papers at sosp 2024?",
        "early exit works from sosp24",
        "remind me of the early-exit papers in sosp'24",
    ],
)
def test_a_plural_paper_noun_before_a_venue_asks_for_a_list(notes, q):
    a = ask(notes, q)
    titles = " ".join(cited_titles(a))
    assert a.kind == "list" and "Apparate" in titles and "Per-Input Compute Adaptation" in titles, (q, titles)


def test_any_about_a_named_paper_is_not_a_list(notes):
    assert ask(notes, "did Mooncake win any award at FAST?").kind != "list"


@pytest.mark.parametrize(
    "q",
    [
        "sosp 2024 papers on early exits or pipeline adaptation?",
        "which sosp24 papers are about early exits / pipeline adaptation",
    ],
)
def test_a_list_topic_with_alternatives_takes_papers_on_either(notes, q):
    a = ask(notes, q)
    titles = " ".join(cited_titles(a))
    assert a.kind == "list" and "Apparate" in titles and "ReCycle" in titles, q
    assert "Burrow" not in titles and "Fast Crash Recovery" not in titles, q


def test_topic_alternatives_share_the_words_before_the_alternation():
    from papernotes.retrieval.question import topic_alternatives
    from papernotes.retrieval.terms import Key

    def keys(*words):
        return [Key(w, ((w,),)) for w in words]

    def alts(text, *words):
        return [[k.word for k in alt] for alt in topic_alternatives(text, keys(*words))]

    assert alts(
        "papers that target wafer-scale chips or wafer-scale GPUs", "target", "wafer-scale", "chips", "gpu"
    ) == [
        ["target", "wafer-scale", "chips"],
        ["target", "wafer-scale", "gpu"],  # a key's word is normalized: "GPUs" reads "gpu"
    ]
    assert alts("anything on reasoning models / test-time scaling?", "reasoning", "models", "test-time", "scaling") == [
        ["reasoning", "models"],
        ["test-time", "scaling"],
    ]
    assert alts("I/O scheduling papers", "i/o", "scheduling") == [["i/o", "scheduling"]]  # no spaced slash


def test_a_paper_named_by_a_long_title_prefix_or_beside_its_venue_resolves():
    from papernotes.corpus.models import PaperRecord
    from papernotes.retrieval.bm25 import BM25Index
    from papernotes.retrieval.entities import PaperIndex
    from papernotes.retrieval.filters import venue_mentions

    records = [
        PaperRecord(title="PIM is All You Need: A CXL-Enabled GPU-Free System for LLM Inference", venue="ASPLOS 2025"),
        PaperRecord(title="Focus: A Streaming Concentration Architecture for VLMs", system="Focus", venue="HPCA 2026"),
        PaperRecord(title="KernelEvolve: Scaling Agentic Kernel Coding", system="KernelEvolve"),
    ]
    texts = [f"Paper {i}: the focus of this design is memory" for i in range(8)] + [r.title for r in records]
    metas = [{"paper_title": f"Paper {i}"} for i in range(8)] + [{"paper_title": r.title} for r in records]
    index = PaperIndex(records, BM25Index.build([str(i) for i in range(len(texts))], texts, metas))

    def named(q):
        return [m.records for m in index.resolve(q, venue_mentions(q, {"HPCA", "ASPLOS"}, ()))]

    assert named("pim is all you need - the gpu-free one, details?") == [[0]]  # a five-word prefix
    for q in ("focus hpca26 - which univ?", "the HPCA 2026 focus paper", "focus (hpca'26)"):
        assert named(q) == [[1]], q  # a common word beside its paper's venue is the name
    for q in ("papers whose focus is memory at hpca 2026", "focus asplos 2025", "what is the focus of hpca 2026"):
        assert named(q) == [], q  # elsewhere, or beside another venue, it is the ordinary word

    def misspelt(word):  # the notes' word a misspelling stands for (as the spelling vocabulary reads it)
        return {"kernelevovle": "kernelevolve", "kernalevolve": "kernelevolve", "focsu": "focus"}.get(word)

    for q in ("kernelevovle pass rate?", "kernalevolve - who built it"):
        assert [m.records for m in index.resolve(q, (), misspelt)] == [[2]], q
    assert index.resolve("focsu on memory", (), misspelt) == []  # read as an ordinary word, still no name


def test_code_block_lines_are_not_candidate_sentences():
    from papernotes.retrieval.evidence import split_sentences

    body = "Quokka is 4.2K LoC of Rust.\n\n```python\n# a comment\nblocks = 16\n```\n\nIt runs on GPUs.\n"
    assert split_sentences(body) == ["Quokka is 4.2K LoC of Rust.", "It runs on GPUs."]
    assert split_sentences("Set up as follows.\n~~~~\nbatch = 8\n~~~~\nThen it trains.") == [
        "Set up as follows.",
        "Then it trains.",
    ]
    assert split_sentences("Intro text here.\n```\nunclosed = 1") == ["Intro text here."]  # to the chunk's end


@pytest.mark.parametrize(
    "q",
    [
        "SOSP 2024 有哪些关于存储引擎的论文？",
        "列出 SOSP 2024 关于量子计算的论文",
    ],
)
def test_a_list_topic_no_note_uses_is_said_not_hidden(notes, q):
    """A topic typed in a language the notes do not use cannot be matched: the list is the venue's every
    paper, and the answer says which words went unread."""
    a = ask(notes, q)
    sosp = [r for r in notes.catalog if r.venue == "SOSP 2024"]
    assert a.kind == "list" and len(a.citations) == len(sosp) > 3, (q, a.answer)
    assert "every paper of SOSP 2024" in (a.note or "") and "no note uses" in (a.note or ""), a.note


def test_unread_words_are_named_as_typed(notes):
    a = ask(notes, "DistServe 上下文长度是多少")
    assert a.note and "'上下文长度是多少'" in a.note, a.note  # the run of the question, not a cut-up fragment
    assert not ask(notes, "DistServe 是什么?").note  # its words are framing or the notes' own


def test_a_title_prefix_that_is_a_phrase_of_the_notes_names_no_paper_when_typed_as_a_topic(tmp_path, models_cache):
    """ "Speculative Decoding: Performance or Illusion?" gives the name "Speculative Decoding", which other
    papers' notes write as a phrase: typed in a question it is the topic (the list holds every paper on
    it), not that one paper; the whole title, or the prefix with a digit ("Llama 3"), still names it."""
    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.service import Notes

    bullets = [
        ("Speculative Decoding: Performance or Illusion?", "Measures when speculative decoding pays off in serving."),
        ("Wallaby: Tree-Based Drafts", "Speeds up speculative decoding with draft trees."),
        ("Quoll: Adaptive Drafters", "Trains small drafters online for speculative decoding."),
        ("Bilby: Parallel Verification", "Verifies speculative decoding drafts in parallel on GPUs."),
        ("Numbat: Draft Caching", "Caches drafts across requests for speculative decoding."),
        ("Potoroo: Lossless Acceleration", "Lossless speculative decoding for long prompts."),
        ("Dingo: Crash-Consistent Logs", "Logs persistent memory writes so a crash loses nothing."),
        ("Llama 3: Herd Notes", "Notes on the Llama 3 models."),
    ]
    page = "# HotOS 2031\n\n## Papers\n\n" + "".join(
        f"* {t} \\[[Paper](https://example.org/p{i})]\n  * Uni {i}\n  * {d}\n" for i, (t, d) in enumerate(bullets)
    )
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "hotos-2031.md").write_text(page, encoding="utf-8")
    data = tmp_path / "data"
    seed_models(models_cache, data)
    s = make_settings(data)
    ingest(s, [str(tmp_path / "notes")])
    retriever = Notes(s).retriever
    for q in ("hotos 2031 papers on speculative decoding?", "which papers do speculative decoding"):
        assert retriever.understand(q).papers == [], q
    listed = " ".join(
        c.paper_title or "" for c in Notes(s).ask("hotos 2031 papers on speculative decoding?", use_llm=False).citations
    )
    assert "Wallaby" in listed and "Quoll" in listed and "Dingo" not in listed, listed
    for q, name in (
        (
            "Speculative Decoding: Performance or Illusion? who wrote it",
            "Speculative Decoding: Performance or Illusion?",
        ),
        ("llama 3 paper?", "Llama 3"),
    ):
        assert [m.name for m in retriever.understand(q).papers] == [name], q


@pytest.mark.parametrize(
    "q",
    [
        "hi",
        "thanks!",
        "ok",
        "hello there",
        "thx",
        "pls",
        "42",
        "3.14?",
        "what is 42",
        "1e-6",
        "10x",
        "k",
        "x?",
        "--k",
        "what is 2+2",
        "what is 3 * 7?",
        "10/4",
    ],
)
def test_chat_words_alone_ask_nothing_and_are_refused(notes, q):
    """Chat words, numbers or a lone letter (each is in many notes) name nothing to answer about."""
    a = ask(notes, q)
    assert a.refused and a.answer == REFUSAL and not a.citations, (q, a.answer)


def test_chat_words_around_a_question_do_not_stop_it(notes):
    a = ask(notes, "hi! what is mooncake?")
    assert not a.refused and "Mooncake" in " ".join(cited_titles(a))


@pytest.mark.parametrize(
    "q",
    [
        "how does Mooncake decide which KVCache entries to reuse?",
        "how does mooncake know which cached entries a request can reuse",
        "How does Mooncake store which KVCache entries a request shares?",
    ],
)
def test_an_embedded_which_under_another_interrogative_is_no_list(notes, q):
    # "which … entries" inside a clause that "how"/"why" governs asks how, not for several papers
    qq = notes.retriever.understand(q)
    assert not qq.is_list
    assert [m.name for m in qq.papers] == ["Mooncake"]
    a = ask(notes, q)
    assert a.citations and all("Mooncake" in (c.paper_title or "") for c in a.citations)


@pytest.mark.parametrize("q", ["which sosp 2024 papers are there?", "tell me which papers fast 2026 has"])
def test_an_opening_which_still_asks_for_a_list(notes, q):
    assert notes.retriever.understand(q).is_list


@pytest.mark.parametrize(
    ("q", "listed"),
    [
        ("nsdi 2026 fault tolerance papers for llm training", True),
        ("osdi 2024 llm serving works that use disaggregation", True),
        ("sosp 2024 kv cache systems", True),
        ("what did the osdi 2024 keynote say about papers on serving", False),  # another phrase
        ("how does the osdi 2024 committee pick papers to accept", False),
    ],
)
def test_a_venue_opening_the_noun_phrase_a_list_noun_heads_asks_for_a_list(notes, q, listed):
    """ "VENUE topic papers for …": the venue and the topic words modify the list noun; a venue in
    another phrase than the list noun's asks for no list."""
    assert notes.retriever.understand(q).is_list is listed


@pytest.mark.parametrize(
    ("q", "amount"),
    [
        ("AEGIS 一共检测到多少次 SDC 事件？", True),
        ("Splitwise 比基线快多少?", True),
        ("SDCHunter 表征了几块有缺陷的 GPU?", True),
        ("训练要多久?", True),
        ("Splitwise 是谁做的?", False),
        ("这几乎是 AEGIS 的全部设计吗?", False),  # 几乎 ("almost") asks no amount
    ],
)
def test_a_chinese_amount_interrogative_asks_an_amount(q, amount):
    assert understand(q).asks_quantity is amount


@pytest.mark.parametrize("q", ["osdi 2024 best paper winners in here?", "which sosp 2024 finalists are in the notes"])
def test_award_winners_are_papers_asked_for(notes, q):
    assert notes.retriever.understand(q).is_list
