"""Families of answer failures on a small collection written like other people's notes
(tests/fixtures/families/answer_cases/notes: front-matter paper notes whose bullets start in lower case,
other notes citing a system by name, a paper whose name is an ordinary word of the notes, a reading
queue of to-dos, a listing table): each case is a family, tested through several members."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_settings, notes_from_texts, notes_of, seed_models

from papernotes.corpus.papers import is_todo
from papernotes.retrieval.evaluate import aggregate, is_answerable, score_one

CASES = Path(__file__).resolve().parent / "fixtures" / "families" / "answer_cases" / "notes"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_of(CASES, tmp_path_factory.mktemp("answer-cases-index"), models_cache)


def ask(notes, q: str):
    return notes.ask(q, use_llm=False)


@pytest.mark.parametrize(
    "question, figure",
    [
        ("by how much does hexa reduce time to first token", "87%"),
        ("hexa time to first token improvement?", "87%"),
        ("how much faster is loom's time between tokens at p99", "4.2x"),
        ("quill latency gain at batch size 1", "2.4x"),
    ],
)
def test_a_chunk_starting_with_a_lower_case_bullet_keeps_that_bullet(notes, question, figure):
    """A note's section that starts with a lower-case bullet ("- time to first token reduced by up to
    87%") was read as the tail of a sentence cut by chunking and dropped: the figure was never quoted."""
    a = ask(notes, question)
    assert not a.refused and figure in a.answer, a.answer


@pytest.mark.parametrize(
    "text, todo",
    [
        ("[ ] routing in Mixtral of Experts", True),
        ("TODO: read Tree of Thoughts", True),
        ("[ ] to read: Orca", True),
        ("[x] Loom", False),
        ("time to first token reduced by up to 87%", False),
        ("Today we read Loom", False),
        ("LATER Paxos Made Simple", True),  # Logseq's task keywords, in capitals
        ("WAITING Bigtable", True),
        ("NEXT The Google File System", True),
        ("DONE Raft", False),
        ("Later we read Loom", False),
    ],
)
def test_to_dos_are_told_apart(text, todo):
    assert is_todo(text) is todo


@pytest.mark.parametrize(
    "question",
    ["what did the mixtral of experts paper find about routing?", "summarize tree of thoughts for me"],
)
def test_a_to_do_is_no_evidence(notes, question):
    """A paper only on the reading queue is not read: its to-do line answers nothing."""
    a = ask(notes, question)
    assert "[ ]" not in a.answer and "TODO" not in a.answer, a.answer


@pytest.mark.parametrize(
    "question, expected",
    [
        ("what conference was hexa at", "NeurIPS 2024"),
        ("url for hexa", "https://arxiv.org/abs/2401.00001"),
        ("pdf of the loom paper?", "https://www.usenix.org/conference/osdi24/presentation/loom"),
        ("which venue did tarn end up at", "FAST 2025"),
        ("what year was vale published", "2025"),
        ("who are the authors of loom", "Ada Byron"),
    ],
)
def test_a_question_for_a_field_of_the_record_is_a_lookup(notes, question, expected):
    """Asking for the record's venue, year, link or authors ("conference", "url", "pdf") is answered
    from the catalog record, although the notes use those words elsewhere."""
    a = ask(notes, question)
    assert a.kind == "lookup" and expected in a.answer, (a.kind, a.answer)


@pytest.mark.parametrize(
    "question", ["hexa key technique?", "whats the key idea of hexa", "hexa core contribution", "Flash key insight?"]
)
def test_a_papers_key_idea_or_technique_is_a_lookup(notes, question):
    """ "key idea", "core technique", "key contribution" ask what the paper is about — the lookup answer —
    although "key" is a word the notes use (key-value stores, "key" of a prefix tree)."""
    assert ask(notes, question).kind == "lookup"


@pytest.mark.parametrize("question", ["hexa main trick?", "how does hexa work", "loom in a nutshell?", "quill's trick"])
def test_the_gist_asked_in_an_idiom_is_a_lookup(notes, question):
    """ "main trick", "how does X work", "in a nutshell" ask for the gist in words no summary uses: the
    lookup part's description names these ways of asking, since the embedder reads an idiom only as close
    as its words."""
    assert ask(notes, question).kind == "lookup"


@pytest.mark.parametrize("question", ["who are the authors of hexa", "hexa authors?"])
def test_a_field_the_record_lacks_is_not_a_lookup(notes, question):
    """Hexa's note names no authors: the lookup answer does not hold them, so it is not the answer."""
    assert ask(notes, question).kind != "lookup"


@pytest.mark.parametrize("question", ["what is hexa", "hexa paper?", "what does hexa keep in its prefix tree"])
def test_a_name_other_notes_cite_resolves_in_lower_case(notes, question):
    """Hexa is cited by four other notes, always written "Hexa": typed in lower case it still names the
    paper (it was taken for an ordinary word)."""
    an = notes.analyze(question)
    assert [notes.catalog[r].title for r in an.question.records] == [
        "Hexa: Serving Structured LLM Programs with a Prefix Tree"
    ]


def test_a_name_the_notes_write_as_an_ordinary_word_needs_its_casing(notes):
    """ "flash" is written in lower case by the notes that are not about Flash: in lower case it is the
    word, in the name's casing the paper."""
    assert not notes.analyze("what goes on flash storage").question.records
    assert [notes.catalog[r].title for r in notes.analyze("what is Flash?").question.records] == [
        "Flash: A Log-Structured Key-Value Store for Persistent Memory"
    ]


def test_the_lookup_description_skips_table_rows(notes):
    a = ask(notes, "what is hexa")
    assert a.kind == "lookup" and "|" not in a.answer and "Link: https://arxiv.org/abs/2401.00001" in a.answer, a.answer


def test_a_detail_the_notes_lack_about_a_paper_they_hold_is_unanswerable():
    """A question of type ``unanswerable`` may keep its paper as a gold title (for retrieval); it is
    still scored as one the notes do not answer."""
    row = {"id": "x", "type": "unanswerable", "question": "q", "gold_titles": ["Hexa"], "answer_must_contain": []}
    assert not is_answerable(row)
    scored = score_one(row, [{"paper_title": "Hexa"}], "The notes don't cover this.", True, 5)
    agg = aggregate([scored], [1.0])
    assert agg["refusal_accuracy"] == 1.0 and agg["false_refusal_rate"] is None


@pytest.mark.parametrize(
    "question, title",
    [
        ("which OSDI papers have I written notes on", "Loom: Weaving Prefill and Decode on Shared GPUs"),
        ("what fast papers have i got", "Tarn: Tiered KV Cache Storage for Long Contexts"),
        ("eurosys papers in my notes?", "Vale: Admission Control for LLM Serving"),
        ("which sosp papers have i saved", "Flash: A Log-Structured Key-Value Store for Persistent Memory"),
    ],
)
def test_words_about_my_notes_frame_a_list_they_are_not_its_topic(notes, question, title):
    """ "have I written notes on", "have i got", "in my notes" ask for the venue's papers in the notes;
    taken as the topic ("written", "got"), they matched no paper and the list was refused."""
    a = ask(notes, question)
    assert not a.refused and [c.paper_title for c in a.citations] == [title], a.answer


@pytest.mark.parametrize(
    "question, expected",
    [
        ("hexa who/where", "NeurIPS 2024"),
        ("tarn venue/award?", "FAST 2025"),
        ("loom conf + auth?", "Ada Byron"),
        ("vale - conf?", "EuroSys 2025"),
    ],
)
def test_slashed_and_truncated_field_words_ask_for_the_record(notes, question, expected):
    """ "who/where" is two framing words, "venue/award" two words; "conf", "auth", "affils" are the
    record's field nouns truncated: each question is a lookup answered from the record."""
    a = ask(notes, question)
    assert a.kind == "lookup" and expected in a.answer, (a.kind, a.answer)


@pytest.mark.parametrize("question", ["kblock paper?", "what does kblock page", "kblocks?"])
def test_a_name_typed_in_the_other_number_names_the_paper(notes, question):
    """ "kblock" for KBlocks: the plural or singular of a name is the name."""
    an = notes.analyze(question)
    assert [notes.catalog[r].title for r in an.question.records] == [
        "KBlocks: Paged KV Blocks for Hybrid CPU/GPU Inference"
    ]


@pytest.mark.parametrize(
    "question, title",
    [
        ("what did fast 2025 have on tiered storage", "Tarn: Tiered KV Cache Storage for Long Contexts"),
        ("icml 2024 - anything published on drafters", "Quill: Speculative Decoding with Tiny Drafters"),
        ("anything osdi 2024 did about prefill", "Loom: Weaving Prefill and Decode on Shared GPUs"),
    ],
)
def test_a_venue_and_a_topic_its_papers_are_about_ask_for_those_papers(notes, question, title):
    """No list word, but a venue, no paper named, and words that a paper of that venue is about: the
    question asks for the venue's papers on that topic."""
    a = ask(notes, question)
    assert a.kind == "list" and title in [c.paper_title for c in a.citations], (a.kind, a.answer)


def test_an_attribute_of_a_venue_is_not_a_topic_list(notes):
    assert ask(notes, "osdi 2024 acceptance rate").kind != "list"


@pytest.mark.parametrize("question", ["notes on the TiME paper?", "what does StorAGE do", "summarize the TrEE paper"])
def test_a_name_cased_as_no_note_writes_it_is_a_name_the_notes_lack(notes, question):
    """A common word with an inner capital ("ZeRO") names something; when no note writes it so cased,
    the notes lack it, however often they use the word."""
    assert ask(notes, question).refused


@pytest.mark.parametrize(
    "venue, message",
    [
        ("", "empty"),
        ("SOSP 2024 OSDI 2024", "several venues"),
        ("NSDI 2026, OSDI 2024", "several venues"),
        ("OSDI 2024/SOSP 2024", "several venues"),
    ],
)
def test_a_venue_flag_that_is_empty_or_names_several_is_an_error(venue, message):
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval.filters import normalize_filters

    with pytest.raises(BadInputError, match=message):
        normalize_filters(venue=venue)


@pytest.mark.parametrize("venue", ["ATC", "atc", "USENIX ATC"])
def test_a_series_named_by_its_short_name_filters_every_year(venue):
    from papernotes.retrieval.filters import normalize_filters

    assert normalize_filters(venue=venue).series == "USENIX ATC"


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"topic": "no-such-topic"}, "no topic"),
        ({"source": "no-such-source"}, "no source"),
        ({"venue": "OSDI 2024", "year": 2023}, "contradict"),
    ],
)
def test_filters_the_notes_cannot_meet_are_errors(notes, kwargs, message):
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval.filters import normalize_filters

    with pytest.raises(BadInputError, match=message):
        notes.ask("what is loom", filters=normalize_filters(**kwargs), use_llm=False)


def test_a_lookup_names_the_authors_beside_the_affiliations(tmp_path, models_cache):
    """A record with affiliations and authors: "who wrote X" gets both."""
    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.service import Notes

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "wren.md").write_text(
        "---\ntitle: 'Wren: Sharing GPUs Between Containers'\nvenue: HPDC 2020\n"
        "link: https://doi.org/10.1145/1111111.2222222\nauthors: [Ada Byron, Alan Church]\n---\n\n# Wren\n\n"
        "**Affiliations:** National Tsing Hua University\n\n## Idea\n\n- shares one GPU between containers by API remoting\n",
        encoding="utf-8",
    )
    seed_models(models_cache, tmp_path / "data")
    s = make_settings(tmp_path / "data")
    ingest(s, [str(tmp_path / "notes")])
    a = Notes(s).ask("who wrote the wren paper", use_llm=False)
    assert "Ada Byron" in a.answer, a.answer


def test_a_to_read_section_is_no_paper():
    """A reading log's "## To read" section whose only link is a to-do's is no paper section."""
    from papernotes.corpus.models import Page
    from papernotes.corpus.note_sections import logged_sections

    md = (
        "# Reading log\n\n## Segment Anything (ICCV 2023)\n- https://arxiv.org/abs/2304.02643\n- 1.1B masks.\n\n"
        "## Attention Is All You Need (NeurIPS 2017)\n- https://arxiv.org/abs/1706.03762\n- the Transformer.\n\n"
        "## To read\n- [ ] TODO read: Sarathi-Serve [arXiv](https://arxiv.org/abs/2403.02310)\n"
    )
    page = Page(title="Reading log", source="log.md", origin="notes", markdown=md)
    assert [s.entry.title for s in logged_sections(page)] == ["Segment Anything", "Attention Is All You Need"]


@pytest.mark.parametrize("question", ["osdi papers we read", "which fast papers have we read?"])
def test_we_frames_a_list_as_i_does(notes, question):
    a = ask(notes, question)
    assert a.kind == "list" and not a.refused, a.answer


def test_a_one_word_label_is_no_description(notes):
    """ "Idea" / "Results" style one-word lines label the bullets below them; they describe nothing."""
    a = ask(notes, "what is tarn")
    assert a.kind == "lookup" and all(len(line.split()) > 2 for line in a.answer.splitlines()), a.answer


def test_each_paper_of_a_reading_log_owns_its_sections_chunks(tmp_path, models_cache):
    """Every section of a week file is a paper's deep note; its chunks are that paper's, not the file's
    last paper's (which took every chunk, so the others had none to cite or list)."""
    log = CASES.parent.parent / "sectioned_logs" / "notes"
    n = notes_of(log, tmp_path / "data", models_cache)
    logged = [i for i, r in enumerate(n.catalog) if r.deep_note]
    assert len(logged) >= 4
    assert all(n.retriever.papers.chunks.get(i) for i in logged), [
        n.catalog[i].title for i in logged if not n.retriever.papers.chunks.get(i)
    ]


BLITZGATE = """# ConfX 2031

## Papers

### Serving

* Blitzgate: Live Autoscaling of Model Servers [[Paper](https://example.org/blitzgate.pdf)]
  * Emu Institute
  * Objective: start new model-server instances in seconds when load spikes.
  * Keep one host-memory copy of the weights per machine and share it between instances.
  * Load parameters over the network from running instances rather than from local disk.
  * Pipeline the loading with serving, so a half-loaded instance already answers requests.
  * Fast-link-first forwarding order: prefer the scale-up network (NVLink) over the scale-out network (RDMA).
* Driftwood: Caching Prompts Across Tenants [[Paper](https://example.org/driftwood.pdf)]
  * Wombat Labs
  * Shares prompt prefixes between tenants with per-tenant quotas.
"""


@pytest.mark.parametrize(
    "question", ["blitzgate forwarding order, which link does it prefer first", "blitzgate: which link first?"]
)
def test_a_lookup_asked_in_words_of_the_papers_description_quotes_the_lines_holding_them(
    tmp_path, models_cache, question
):
    """A question whose words describe the paper or name a field of its record ("link") is a lookup; its
    answer quotes the description lines holding those words ("Fast-link-first …: prefer the scale-up
    network (NVLink)"), not only the opening ones and the paper's link."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "confx-2031.md").write_text(BLITZGATE, encoding="utf-8")
    n = notes_of(tmp_path / "notes", tmp_path / "index", models_cache)
    a = n.ask(question, use_llm=False)
    assert "NVLink" in a.answer, a.answer


def test_a_lookup_in_a_log_of_several_papers_quotes_only_that_papers_lines(tmp_path, models_cache):
    """A month's log holds several papers in one chunk (with an overlap from the entry before): "what
    is X" quotes X's own lines, never its neighbours'; and a byline with a link after it still gives
    the authors."""
    entries = [
        (
            "Gossip Trees: Epidemic Broadcast at Scale",
            "Ames et al.",
            "2301.00001",
            "Trees of gossipers; fanout 3 halves delivery time.",
        ),
        (
            "Learned Bloom Sketches",
            "Brook et al.",
            "2301.00002",
            "A model in front of a Bloom filter cuts memory by 40% on URL sets.",
        ),
        (
            "Quorum Leases: Fast Local Reads",
            "Cole et al.",
            "2301.00003",
            "Leases granted to quorums serve reads locally at 2.1x lower latency.",
        ),
        (
            "Tidal Batching for Streaming Joins",
            "Dunn et al.",
            "2301.00004",
            "Batches sized by the tide of input rates; 3x higher throughput.",
        ),
    ]
    log = "# May 2031\n\nMixed bag this month.\n\n" + "\n".join(
        f"- **{t}** (NSDI 2031) — {who}\n  https://arxiv.org/abs/{aid}\n  {what} The {who.split()[0]} group "
        f"keeps the artifact at release {k + 1}, and the talk ran long.\n"
        for k, (t, who, aid, what) in enumerate(entries)
    )
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "2031-05.md").write_text(log, encoding="utf-8")
    (tmp_path / "notes" / "sketch.md").write_text(
        "# Count Sketch Cascades for Heavy Hitters\n\nAda Byron & Alan Church — Example University — **SIGMOD 2031**\n"
        "DOI: https://doi.org/10.1145/9999999.0000001\n\n## TL;DR\n\nA cascade of count sketches finds heavy hitters "
        "in one pass with 5x less memory.\n\n## Numbers\n\n- 5x less memory than a single sketch.\n",
        encoding="utf-8",
    )
    n = notes_of(tmp_path / "notes", tmp_path / "data", models_cache)
    for i, (title, _who, _aid, what) in enumerate(entries):
        a = n.ask(f"what is {title.split(':')[0].lower()}", use_llm=False)
        assert a.kind == "lookup" and what.split(";")[0].split(".")[0] in a.answer, a.answer
        others = [e[3].split(".")[0] for j, e in enumerate(entries) if j != i]
        assert not any(o in a.answer for o in others), a.answer
    a = n.ask("who wrote count sketch cascades for heavy hitters?", use_llm=False)
    assert "Ada Byron" in a.answer and "Alan Church" in a.answer, a.answer


def _notes_from(tmp_path: Path, models_cache: Path, files: dict[str, str]):
    """Notes over ``files`` (relative path → text) written under ``tmp_path/notes``, ingested."""
    return notes_from_texts(tmp_path, files, models_cache)


@pytest.mark.parametrize("q", ["what is qlora", "did i read qlora?", "mamba paper?", "QLoRA's main idea"])
def test_a_paper_named_only_in_a_to_do_line_is_not_covered(tmp_path, models_cache, q):
    """A reading log names papers not read yet in to-do lines ("- [ ] QLoRA"): they state nothing about
    them, so a question about such a paper is refused rather than answered with the log's other lines."""
    from papernotes.retrieval.prompts import REFUSAL

    notes = _notes_from(
        tmp_path,
        models_cache,
        {
            "log.md": "# Reading log\n\n- [x] Attention Is All You Need — read twice\n- [x] LoRA\n"
            "- [ ] TODO read: Mamba: Linear-Time Sequence Modeling with Selective State Spaces\n"
            "- [ ] QLoRA (NeurIPS 2023)\n",
            "lora.md": "# LoRA: Low-Rank Adaptation of Large Language Models\n\nPresented at ICLR 2022.\n\n## TL;DR\n\n"
            "Freeze the pretrained weights and train a low-rank update BA next to each weight matrix.\n",
        },
    )
    assert notes.ask(q, use_llm=False).answer == REFUSAL
    assert "low-rank" in notes.ask("what is lora", use_llm=False).answer  # a read paper is still answered


@pytest.mark.parametrize("q", ["resnet 是什么", "ResNet 是什么?", "resnet 论文讲了什么"])
def test_a_question_in_another_language_reads_the_name_it_resolves(tmp_path, models_cache, q):
    """A Chinese question naming a paper by its alias ("resnet", the note's ``aliases``) is answered, and
    the note about words no note uses does not name the alias it resolved."""
    notes = _notes_from(
        tmp_path,
        models_cache,
        {
            "resnet.md": "---\naliases: [ResNet]\ntags: [CVPR 2016]\n---\n# Deep Residual Learning for Image Recognition\n\n"
            "[Paper](https://arxiv.org/abs/1512.03385)\n\n## TL;DR\n\n"
            "Learn residual functions with identity shortcuts so that very deep networks train well.\n"
        },
    )
    a = notes.ask(q, use_llm=False)
    assert "Deep Residual Learning" in a.answer and "residual functions" in a.answer
    assert "resnet" not in (a.note or "").lower(), a.note


@pytest.mark.parametrize("label", ["Paper", "PDF", "arXiv", "Link"])
def test_a_link_label_alone_on_its_line_is_no_affiliation(tmp_path, models_cache, label):
    """A post opening with ``[Paper](…)`` on a line of its own: the lookup gives the byline as authors and
    never the link's label as where the paper is from ("From: Paper")."""
    notes = _notes_from(
        tmp_path,
        models_cache,
        {
            "_posts/2020-11-20-gpt3.md": f'---\nlayout: post\ntitle: "Reading: GPT-3"\ntags: [llm, NeurIPS 2020]\n---\n'
            f"[{label}](https://arxiv.org/abs/2005.14165)\n\n> **Language Models are Few-Shot Learners**\n\n"
            "Brown et al., OpenAI. GPT-3 is a 175 billion parameter autoregressive language model evaluated "
            "in zero-, one- and few-shot settings.\n"
        },
    )
    a = notes.ask("who wrote gpt-3", use_llm=False)
    assert "Language Models are Few-Shot Learners" in a.answer and "Brown et al." in a.answer
    assert f"From: {label}" not in a.answer, a.answer


@pytest.mark.parametrize("q", ["tarka baselines?", "what baselines does Tarka compare against"])
def test_two_papers_of_one_name_are_each_answered_on_what_is_asked(tmp_path, models_cache, q):
    """One name that two papers share makes a comparison, answered for each paper: with its sentences on
    what is asked (its baselines) when its notes have them, else with its description."""
    notes = _notes_from(
        tmp_path,
        models_cache,
        {
            "tarka-serving.md": "# Tarka: Memory Management for Serving Mixed Attention Models\n\n"
            "[Paper](https://doi.org/10.1145/1111.5555)\n\nPresented at SOSP 2031.\n\n## TL;DR\n\n"
            "Tarka sizes KV pages per layer type so mixed attention models waste no memory.\n\n"
            "## Evaluation\n\n- Platforms: H100 and L4 GPUs.\n- Baseline: vLLM with only its memory manager replaced.\n"
            "- Models include Gemma-2 and Jamba.\n",
            "tarka-finetune.md": "# TARKA: Long-Context Fine-tuning with Token Sparsity\n\n"
            "[Paper](https://doi.org/10.1145/1111.6666)\n\nPresented at ATC 2031.\n\n## TL;DR\n\n"
            "TARKA skips unimportant tokens during long-context fine-tuning.\n",
        },
    )
    a = notes.ask(q, use_llm=False)
    assert "Baseline: vLLM with only its memory manager replaced." in a.answer, a.answer
    assert "TARKA skips unimportant tokens" in a.answer  # the other Tarka, by its description


@pytest.mark.parametrize(
    "question, elsewhere",
    [
        ("what is loom at sosp", "the notes place Loom at OSDI 2024, not at SOSP"),
        ("loom eurosys paper?", "the notes place Loom at OSDI 2024, not at EuroSys"),
        ("what does vale do at osdi", "the notes place Vale at EuroSys"),
    ],
)
def test_a_named_paper_placed_at_another_venue_is_described_with_where_the_notes_place_it(notes, question, elsewhere):
    """The venue may be misremembered: the answer still describes the paper, and says where the notes
    place it; at the venue the notes give, no such note."""
    a = ask(notes, question)
    assert not a.refused and a.citations
    assert elsewhere in (a.note or ""), a.note
    right = ask(notes, "what is loom at osdi")
    assert not right.refused and "the notes place" not in (right.note or "")


@pytest.mark.parametrize(
    "question, focus",
    [
        ("what learning rate did loom's training jobs use", ["learning", "rate"]),
        ("which cxl memory vendor did meta use", ["cxl", "memory", "vendor"]),
        ("hexa how many experts", ["experts"]),
        ("How many GPUs does Quill need?", ["gpu"]),
        ("what optimizer did the tarn paper use", ["optimizer"]),
    ],
)
def test_the_question_focus_is_the_noun_phrase_of_the_interrogative(notes, question, focus):
    q = notes.analyze(question).question
    assert [k.word.lower() for k in q.focus] == focus


@pytest.mark.parametrize(
    "question", ["what is loom", "who built hexa?", "loom vs hexa", "what is the main idea of quill"]
)
def test_a_question_without_an_interrogative_noun_has_no_focus(notes, question):
    assert notes.analyze(question).question.focus == []


def test_a_contracted_what_is_keeps_its_noun_as_focus_and_stays_a_lookup(notes):
    """ "whats the storage backend of quill" reads "what the storage backend …": the noun phrase is its
    focus; "whats the main idea of quill" has a general noun there, so no focus, and it still asks for
    a part of the lookup answer."""
    assert [k.word for k in notes.analyze("whats the storage backend of quill").question.focus] == [
        "storage",
        "backend",
    ]
    an = notes.analyze("whats the main idea of quill")
    assert an.question.focus == [] and an.lookup


@pytest.mark.parametrize(
    ("question", "focus"),
    [
        ("durinn what kind of bugs does it find", ["bugs"]),
        ("which type of scheduler does quill use", ["scheduler"]),
        ("what sort of a cache is it", ["cache"]),
        ("what tricks does quill use", []),
        ("what's the key trick in loom", []),
        ("what's the big deal about tarn", []),
        ("what batch size did quill use", ["batch"]),
        ("what fraction of requests does quill drop", []),
        ("what share of the cache does loom keep", []),
        ("which scheduler does quill use", ["scheduler"]),
        ("how does quill decide which cache entries to evict", []),  # an embedded "which": it asks how
        ("who built quill and what scheduler does it use", ["scheduler"]),
        ("quill - which scheduler?", ["scheduler"]),
    ],
)
def test_the_focus_is_what_the_answer_names(notes, question, focus):
    """The focus skips a classifier ("what *kind of* X" asks for an X) and is empty when the phrase's
    head is a general noun ("trick", "idea", "deal"): those name no kind of answer; a measure noun
    ("fraction", "size") asks for a number, which the notes state without the word."""
    assert [k.word for k in notes.analyze(question).question.focus] == focus


def test_the_focus_must_be_found_where_the_paper_is_described(notes):
    """``focus_cov`` is 0 for what the named paper's notes never mention (a word of the field, not a
    common English word the notes never use: its absence says nothing), 1 for what they do."""
    lacks = notes.analyze("which fpga did loom run on")
    has = notes.analyze("what storage does loom use for swapped-out requests")
    assert lacks.features["focus_cov"] == 0.0
    assert has.features["focus_cov"] == 1.0


@pytest.mark.parametrize(
    "question", ["loom paper what venue was it", "hexa - who built it?", "tarn paper, where was it published"]
)
def test_a_question_naming_its_subject_and_a_pronoun_is_not_a_follow_up(notes, question):
    """ "it" refers to the name the question gives: no clarifying question."""
    q = notes.analyze(question).question
    assert not q.dangling


@pytest.mark.parametrize(
    "question", ["bert paper what venue was it", "the roberta paper - who wrote it?", "xlnet papers, where were they"]
)
def test_a_word_typed_before_paper_names_the_subject_even_when_the_notes_lack_it(notes, question):
    """The name before "paper" is the question's subject (one the notes never mention here): the notes
    do not cover it; it is no follow-up asking which paper was meant."""
    assert not notes.analyze(question).question.dangling
    a = notes.ask(question, use_llm=False)
    assert a.refused, a.answer


@pytest.mark.parametrize(
    "question", ["deepspeed-ulysses how does it work", "tensorrt-llm - who built it?", "hydraserve-lite, what is it"]
)
def test_a_compound_name_the_notes_lack_is_the_subject_of_its_pronoun(notes, question):
    """A name written in parts ("deepspeed-ulysses") that the notes never use is what "it" refers to: the
    notes do not cover it — no clarifying question."""
    assert not notes.analyze(question).question.dangling
    assert ask(notes, question).refused


@pytest.mark.parametrize("question", ["the first paper what venue was it", "that paper - who wrote it?"])
def test_an_ordinal_or_a_demonstrative_before_paper_still_leans_on_an_earlier_turn(notes, question):
    assert notes.analyze(question).question.dangling


def test_a_comparison_asking_for_an_amount_is_no_lookup(notes):
    """ "X vs Y" is answered for each paper whatever the score; "how much faster is X than Y" asks for an
    amount, which no part of the lookup answer gives: the evidence decides."""
    assert notes.analyze("loom vs hexa").lookup
    assert not notes.analyze("how much faster is loom than hexa").lookup
    assert not notes.analyze("by how much does loom beat hexa").lookup


def test_a_one_word_line_is_evidence_when_it_is_what_is_asked(tmp_path_factory, models_cache):
    """A one-word bullet is a label ("Demo") unless the question asks for that word: "**Spotlight**"
    under a paper answers "spotlight or oral?"."""
    root = tmp_path_factory.mktemp("one-word-notes")
    (root / "icml-2031.md").write_text(
        "# ICML 2031\n\n## Agents\n\n"
        "* Thunderbolt: Fast Agentic Rollouts [[Paper](https://openreview.net/forum?id=abc)]\n"
        "  * Emu Institute\n  * **Spotlight**\n"
        "  * Schedules agent programs with unified KV-cache and tool metadata.\n"
        "* Lantern: Tool Calls Without Stalls [[Paper](https://openreview.net/forum?id=def)]\n"
        "  * Wombat Labs\n  * **Oral**\n  * Overlaps tool calls with decoding.\n",
        encoding="utf-8",
    )
    n = notes_of(root, tmp_path_factory.mktemp("one-word-index"), models_cache)
    for q, said, not_said in (
        ("thunderbolt - spotlight or oral?", "Spotlight", "Oral"),
        ("lantern: oral or spotlight?", "Oral", "Spotlight"),
    ):
        a = n.ask(q, use_llm=False)
        assert said in a.answer and not_said not in a.answer, (q, a.answer)


def test_a_line_of_the_papers_own_names_is_no_description():
    """ "vLLM, PagedAttention" under "… with PagedAttention" (system vLLM) only names the paper: the lead
    line already does; a line naming something else, or one name alone in a sentence, is kept."""
    from papernotes.corpus.models import PaperRecord
    from papernotes.retrieval.extractive import _names_only

    r = PaperRecord(
        title="Efficient Memory Management for Large Language Model Serving with PagedAttention", system="vLLM"
    )
    assert _names_only("vLLM, PagedAttention", r) and _names_only("vLLM / PagedAttention.", r)
    assert not _names_only("vLLM, Orca", r)
    assert not _names_only("vLLM pages the KV cache", r)


@pytest.mark.parametrize("question", ["gpt-3 paper which conference was it at", "llama3 - who built it?"])
def test_a_versioned_name_is_the_subject_a_pronoun_refers_to(notes, question):
    assert not notes.analyze(question).question.dangling


def test_a_title_typed_with_the_notes_abbreviation_names_its_paper(tmp_path_factory, models_cache):
    """The notes define "Large Language Models (LLMs)": "the fairness in serving llms paper" names "Fairness
    in Serving Large Language Models" (system name Virtual Token Counter), as its full title does; an
    abbreviation the notes do not define is no such name."""
    root = tmp_path_factory.mktemp("abbreviated-title-notes")
    (root / "osdi.md").write_text(
        "# OSDI 2031\n\n## Serving\n\n"
        "* Fairness in Serving Large Language Models [[Paper](https://www.usenix.org/osdi31/fair)]\n"
        "  * Emu Institute\n  * Schedules clients by the tokens served to each.\n"
        "  * Propose a fair-serving algorithm called **Virtual Token Counter**.\n"
        "* Tidal: Elastic Batching for Graph Neural Networks [[Paper](https://www.usenix.org/osdi31/tidal)]\n"
        "  * Wombat Labs\n  * Batches graph neural network jobs elastically.\n",
        encoding="utf-8",
    )
    (root / "glossary.md").write_text(
        "# Glossary\n\nLarge Language Models (LLMs) are served by many systems in these notes.\n", encoding="utf-8"
    )
    n = notes_of(root, tmp_path_factory.mktemp("abbreviated-title-index"), models_cache)
    for q in ("who wrote the fairness in serving llms paper", "fairness in serving LLMs?"):
        assert [m.name for m in n.analyze(q).question.papers], q
        assert "Emu Institute" in n.ask(q, use_llm=False).answer, q
    assert not n.analyze("who wrote the elastic batching for gnns paper").question.papers


ROUTER_NOTES = {
    "moerouter.md": "# Stoatroute: Balanced Routers for Mixture-of-Experts Serving\n\n"
    "[Paper](https://arxiv.org/abs/3105.01234)\n\n## TL;DR\n\n"
    "The router sends each token to two experts and rebalances the experts every 100 steps.\n"
    "A router that drops tokens loses 2% accuracy.\n",
}


@pytest.mark.parametrize(
    "q",
    ["Wie setze ich meinen Router zurück?", "¿Cómo reinicio mi router?", "Comment je redémarre mon router ?"],
)
def test_a_question_in_another_language_read_only_in_an_ordinary_word_is_refused(tmp_path, models_cache, q):
    """Only "router" of "Wie setze ich meinen Router zurück?" is a word of the notes (an ordinary one: they
    write it in lower case); what the question asks is in the words no note uses, so no passage answers
    it, and the note names them."""
    from papernotes.retrieval.prompts import REFUSAL

    notes = _notes_from(tmp_path, models_cache, ROUTER_NOTES)
    a = notes.ask(q, use_llm=False)
    assert a.answer == REFUSAL and "no note uses" in (a.note or ""), (a.answer, a.note)


@pytest.mark.parametrize(
    "q",
    [
        "Wie funktioniert der Router von Stoatroute?",
        "¿Cómo funciona el router de Stoatroute?",
        "Wer hat Stoatroute gebaut?",  # one stop word of another language beside a word no note uses
        "¿Quién creó Stoatroute?",
        "Qu'est-ce que Stoatroute ?",  # interrogatives that bm25s's stop-word lists lack
        "Wann wurde Stoatroute veröffentlicht?",
    ],
)
def test_a_question_in_another_language_naming_a_paper_is_still_answered(tmp_path, models_cache, q):
    notes = _notes_from(tmp_path, models_cache, ROUTER_NOTES)
    a = notes.ask(q, use_llm=False)
    assert not a.refused and "Stoatroute" in a.answer, a.answer
