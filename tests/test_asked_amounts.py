"""Questions that ask for an amount without an amount interrogative: a measure noun heading the
compound asked for ("zebra compression ratio?", "batch size / lr"), a percent or currency sign, the
Romance and German "how many". Such a question is answered by a sentence stating the amount — a line
of bare values counts ("1.5B, 7B, 70B"), a four-digit count is no year ("2048 tokens"), "one" counting
what is asked is an amount but no factor ("by one minibatch") — and refused
when the named paper's notes state none. Also: a word read as a misspelt name must agree with the venue
the question places it at, and a versioned name ("gnu-r1") names what a pronoun refers to."""

from __future__ import annotations

import pytest
from conftest import assert_answered, named_titles, notes_from_texts

from papernotes.retrieval.evidence import bare_values, has_number
from papernotes.retrieval.prompts import REFUSAL
from papernotes.retrieval.question import asks_quantity

ZEBRA = """# Zebra: Lossless Weight Compression for LLM Serving

- Venue: ASPLOS 2031
- Link: https://arxiv.org/abs/3101.00001

Zebra compresses model weights losslessly with a hardware-aware entropy code.
The decoder runs inside the GEMM kernel, so weights stay compressed in GPU memory.
Zebra is evaluated on Llama models served with vLLM.
"""

OCELOT = """# Ocelot: Streaming KV Cache Compression

- Venue: SIGCOMM 2031
- Link: https://arxiv.org/abs/3102.00002

Ocelot encodes KV cache tensors into compact bitstreams for streaming between servers.
Ocelot reaches a 3.2x compression ratio with negligible quality loss.
Ocelot cuts time-to-first-token by 2.4x over sending raw KV tensors.
"""

MARMOT = """# Marmot: Open Foundation Language Models

- Venue: arXiv 2032
- Link: https://arxiv.org/abs/3203.00003

* Marmot is trained on public data only.
* Model sizes
  * 1.5B, 7B, 70B
"""

GNU3 = """# Gnu-3: Language Models Are Few-Shot Herders

- Venue: NeurIPS 2032
- Link: https://arxiv.org/abs/3204.00004

* context window 2048 tokens
* Gnu-3 herds from a few examples in the prompt, with no gradient updates.
* Compared with Gnu-R1, a reasoning model trained with reinforcement learning.
"""

QUOKKA = """# Quokka: Just-in-Time Checkpoints for Training Failures

- Venue: EuroSys 2032
- Link: https://arxiv.org/abs/3206.00006

* After a failure, Quokka rolls the distributed job back by one minibatch instead of to the last checkpoint.
* Quokka prefetches one layer ahead of the optimizer step.
"""

MUXPILOT = """# MuxPilot: Multiplexing Models on Shared Accelerators

- Venue: ICML 2031
- Link: https://arxiv.org/abs/3105.00005

MuxPilot colocates models by popularity to multiplex accelerator memory.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(
        tmp_path_factory.mktemp("asked-amounts"),
        {
            "zebra.md": ZEBRA,
            "ocelot.md": OCELOT,
            "marmot.md": MARMOT,
            "gnu3.md": GNU3,
            "muxpilot.md": MUXPILOT,
            "quokka.md": QUOKKA,
        },
        models_cache,
    )


@pytest.mark.parametrize(
    ("q", "amount"),
    [
        ("zebra compression ratio?", True),  # a measure noun heads the compound asked for
        ("orca eval batch size?", True),
        ("hydraserve cold start reduction numbers?", True),
        ("ugache cache hit rate number?", True),
        ("aegis false positive rate?", True),
        ("what learning rate did they use", True),
        ("rollpacker what batch size / lr did they train with", True),
        ("what max batch size did orca use", True),  # the interrogative's focus
        ("what is the batch size of orca", True),
        ("pollux avg jct reduction exact %", True),  # a percent or currency sign
        ("sysspec total api cost in $?", True),
        ("¿cuántos parámetros tiene zebra?", True),  # the Romance and German "how many"
        ("combien de GPUs pour ocelot ?", True),
        ("wie viele GPUs nutzt Ocelot?", True),
        ("clipper dynamic batch size scheme?", False),  # the measure noun heads no phrase
        ("which scheduler tunes the batch sizes of co-located jobs?", False),  # the focus is the scheduler
        ("how does orca pick the batch size", False),
        ("do they share the kv cache", False),  # a verb after a pronoun
        ("what is the idea of orca's batch size tuning", False),
        ("what is zebra", False),
    ],
)
def test_a_question_asks_an_amount_by_its_form(q, amount):
    assert asks_quantity(q) is amount


@pytest.mark.parametrize(
    ("sentence", "bare"),
    [("1.5B, 7B, 70B", True), ("**24**", True), ("24 layers", False), ("Model sizes", False)],
)
def test_a_line_of_bare_values_states_nothing_else(sentence, bare):
    assert bare_values(sentence) is bare


@pytest.mark.parametrize(
    ("sentence", "amount"),
    [
        ("context window 2048 tokens", True),  # a four-digit count is no year
        ("published in 2024", False),
        ("attention inside shifted windows of 7x7 patches", True),  # dimensions
        ("at least half of the activations can be offloaded", True),  # a fraction written out
        ("trained in half-precision", False),
        ("the GPT4 model", False),
    ],
)
def test_what_states_an_amount(sentence, amount):
    assert has_number(sentence) is amount


@pytest.mark.parametrize(
    "q", ["zebra compression ratio?", "zebra compression ratio - what %?", "what's zebra's compression ratio"]
)
def test_an_amount_the_notes_do_not_state_is_refused(notes, q):
    """Zebra's notes say it compresses, never by how much: quoting its description is no answer."""
    assert notes.ask(q, use_llm=False).answer.startswith(REFUSAL)


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("ocelot compression ratio?", "3.2x"),
        ("original marmot model sizes?", "70B"),  # a line of bare values under "Model sizes"
        ("gnu-3 context window size", "2048"),  # a count, not a year
        ("ocelot ttft reduction numbers?", "2.4x"),  # "numbers" only says an amount is asked
    ],
)
def test_an_amount_the_notes_state_is_quoted(notes, q, expected):
    assert_answered(notes, q, expected)


@pytest.mark.parametrize(
    "q",
    ["quokka: on failure how far back does it roll the job", "how far back does quokka roll the job after a failure"],
)
def test_one_counting_what_is_asked_is_an_amount(notes, q):
    """ "one minibatch", in the clause of what is asked, answers "how far back"."""
    assert_answered(notes, q, "one minibatch")


def test_one_is_no_factor(notes):
    """ "prefetches one layer ahead" states no speedup."""
    assert notes.ask("quokka prefetch speedup?", use_llm=False).answer.startswith(REFUSAL)


def test_a_misspelt_name_must_agree_with_the_named_venue(notes):
    """ "fluxpilot" is two edits from MuxPilot (ICML 2031): read so without a venue or at ICML 2031,
    not when the question places it at another venue; then nothing is named and the notes don't
    cover it."""
    assert named_titles(notes, "fluxpilot paper?") == [MUXPILOT.splitlines()[0][2:]]
    assert named_titles(notes, "fluxpilot icml 2031 paper?") == [MUXPILOT.splitlines()[0][2:]]
    assert named_titles(notes, "fluxpilot osdi31 paper?") == []
    assert notes.ask("fluxpilot osdi31 paper?", use_llm=False).answer.startswith(REFUSAL)


@pytest.mark.parametrize("q", ["gnu-r1 how was it trained", "how was gnu-r1 trained", "and gnu-r1?"])
def test_a_versioned_name_is_what_the_pronoun_refers_to(notes, q):
    """ "gnu-r1" names a model (letters and a version), so the question needs no earlier turn: no
    request to name the paper."""
    assert not notes.retriever.understand(q).dangling


@pytest.mark.parametrize(
    "q", ["ocelot speedup numbers?", "zebra compression ratio numbers?", "the exact number for ocelot's ratio"]
)
def test_number_is_no_part_of_what_is_asked(notes, q):
    """In a question asking for an amount, "number(s)" names nothing the answer must say."""
    assert "number" not in {k.word.casefold().rstrip("s") for k in notes.retriever.understand(q).asked}


def test_an_amount_share_does_not_depend_on_the_order_the_chunks_were_ingested_in():
    """The amount share of a word is measured over a sample of the chunks holding it (and of all chunks,
    for the prior): an index built at once and one grown by incremental ingests hold the chunks in other
    orders, and the sample must not follow that order, or the same notes answer differently."""
    from papernotes.retrieval.bm25 import BM25Index
    from papernotes.retrieval.evidence import amount_share

    # every other chunk states an amount; an even spread over positions would see only those, or none
    texts = [
        f"# Note {i}\n\nThe model size is {i}B parameters."
        if i % 2 == 0
        else f"# Note {i}\n\nThe model design is simple."
        for i in range(240)
    ]
    ids = [f"{(i * 7919) % 1000:03d}-{i}" for i in range(240)]
    meta: list[dict] = [{} for _ in texts]
    built = BM25Index.build(ids, texts, meta)
    order = [*range(1, 240), 0]  # the first chunk re-ingested: now the last
    grown = BM25Index.build([ids[i] for i in order], [texts[i] for i in order], meta)
    for term in ("model", "size", "design"):
        assert amount_share(term, built) == amount_share(term, grown)
    assert amount_share("size", built) > amount_share("design", built)
