"""What a paper's lookup quotes as its description, and which names a paper goes by:

* a line that only gives the paper's venue, written out in full ("Journal of Machine Learning Research
  (JMLR) 2031."), or only another name of it ("a.k.a. **Chinchwomb** (…) — arxiv") is no description;
* a byline is the paper's people, never its place ("From: Fedus, Zoph, Shazeer");
* a reading log's entry goes by the name its first lines give it (a quoted name after the byline), and
  then not by a word of its title that other notes use for something else ("ImageNet" in "ImageNet
  Classification with …");
* a line two chunks share (an overlap) is the named paper's where its own entry holds it.
"""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

SWITCH = """# [Switchback Transformers: Scaling to Trillion Parameter Wombats with Simple Sparsity](https://arxiv.org/abs/3101.03962)

Fedus, Zoph, Shazeer. Journal of Machine Learning Research (JMLR) 2031.

## Idea

Mixture-of-experts but route each token to only one expert instead of two. Simpler, less communication.

## Results

- up to 7x increase in pre-training speed over the dense baseline with the same FLOPs per token
- a 1.6 trillion parameter model
"""

CHINCH = """# Training Compute-Optimal Wombat Models

a.k.a. **Chinchwomb** (DeepMind, Hoffmann et al. 2031) — [arxiv](https://arxiv.org/abs/3103.15556)

> [!IMPORTANT]
> Main message: model size and the number of training tokens should be scaled equally.

Chinchwomb: 70B params trained on 1.4T tokens, the same compute budget as its predecessor.
"""

LOG = """# Vision papers I read

### ImageNet Classification with Deep Convolutional Wombat Networks (NeurIPS 2031)
- Krizhevsky, Sutskever, Hinton — University of Toronto. "WombatNet"
- 60 million parameters; five conv layers and three fully-connected layers
- trained on two GTX 580 3GB GPUs for five to six days

### A Simple Framework for Contrastive Learning of Wombat Representations (ICML 2032)
- Chen, Kornblith, Norouzi, Hinton — Google. "SimWomb"
- linear eval on ImageNet: 76.5% top-1, matches supervised training on ImageNet
- with 1% of ImageNet labels: 85.8% top-5

### Masked Wombats Are Scalable Vision Learners (CVPR 2033)
- He, Chen, Xie — FAIR
- fine-tuned on ImageNet-1K: 87.8% top-1 with ImageNet-1K data only
- ImageNet linear probing is weaker than fine-tuning
"""

MOE_ITEMS = "\n".join(
    f"  - Design note {i}: sharding annotation {i} splits the graph of layer {i} across the mesh." for i in range(6)
)
LISTING = f"""How loss scales with parameters and data, and the sparse way of getting more parameters. Bullet-style page.

## Scaling laws

- **Scaling Laws for Wombat Language Models** (Kaplan et al., 2030) — [arXiv:3001.08361](https://arxiv.org/abs/3001.08361) — OpenAI
  - Loss is a power law in model size, dataset size and compute.

## Mixture of experts

- **GShardwomb: Scaling Giant Wombats with Automatic Sharding** (Lepikhin et al., ICLR 2031) — [arXiv:3006.16668](https://arxiv.org/abs/3006.16668) — Google
{MOE_ITEMS}
  - Trained on 2048 TPU v3 cores in 4 days.

- **Swatch Wombats: Sparse Experts at Scale** (Fedus, Zoph, Shazeer — JMLR 2032) — [arXiv:3101.03961](https://arxiv.org/abs/3101.03961) — Google
  - Route each token to one expert instead of two: less compute and communication.
  - Up to 7x pretraining speedup over the dense baseline at the same FLOPs per token.
"""


PETRWOMB = """## [Petrwomb: Sparse Expert Routing with Wombat Dropping](https://arxiv.org/abs/3307.77777)

Doe et al. (Kingfisher Lab), 12 authors — ICML 2033

Petrwomb drops low-priority wombats at overloaded experts and reroutes them in a second pass.
"""

DIFFWOMB = """# [Denoising Diffusion Probabilistic Wombats](https://arxiv.org/abs/3006.11239)

Ho, Jain, Abbeel — UC Berkeley

DiffWomb trains a denoiser with a simple weighted variational bound and reaches an FID of 3.17 on CIFAR-10.
"""


AWESOME = """# Awesome wombat serving

## Systems

- [Quokkaserve: Paged Wombat Caches for Streaming Inference](https://arxiv.org/abs/3401.10001) (ICML'33) — pages the wombat cache into fixed blocks to cut fragmentation
- [Badgerbatch: Elastic Batching for Mixture-of-Wombats](https://arxiv.org/abs/3402.20002) (MLSys ’34) – reshapes expert batches on the fly
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {
        "switch.md": SWITCH,
        "chinch.md": CHINCH,
        "log.md": LOG,
        "scaling.md": LISTING,
        "diff.md": DIFFWOMB,
        "awesome.md": AWESOME,
        "petr.md": PETRWOMB,
    }
    return notes_from_texts(tmp_path_factory.mktemp("descriptions"), files, models_cache)


@pytest.mark.parametrize(
    "question", ["what is the switchback transformers paper", "switchback transformers?", "tell me about switchback"]
)
def test_a_venue_written_out_is_no_description_and_a_byline_no_place(notes, question):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert "route each token" in a.answer or "7x increase" in a.answer, a.answer
    assert "From: Fedus" not in a.answer, a.answer
    # the venue as written is quoted once at most (as the venue line), never as the description
    assert a.answer.count("Journal of Machine Learning Research") <= 1, a.answer


@pytest.mark.parametrize("question", ["tell me about the chinchwomb paper", "what is chinchwomb", "chinchwomb?"])
def test_a_line_giving_another_name_is_no_description(notes, question):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert "a.k.a." not in a.answer and "— arxiv" not in a.answer, a.answer
    assert "scaled equally" in a.answer or "70B params" in a.answer, a.answer


def test_a_log_entry_goes_by_the_name_its_byline_quotes(notes):
    titles = {r.title: r for r in notes.catalog}
    womb = titles["ImageNet Classification with Deep Convolutional Wombat Networks"]
    assert "WombatNet" in womb.aliases
    assert "SimWomb" in titles["A Simple Framework for Contrastive Learning of Wombat Representations"].aliases
    for question in ("what gpus did wombatnet train on", "wombatnet gpus?", "WombatNet: how many parameters"):
        a = notes.ask(question, use_llm=False)
        assert not a.refused and a.answer.startswith("ImageNet Classification with Deep Convolutional Wombat"), a.answer


@pytest.mark.parametrize(
    "question", ["masked wombats vs simwomb imagenet numbers", "simwomb imagenet top-1?", "imagenet results of simwomb"]
)
def test_a_title_word_other_notes_use_is_no_name_of_a_paper_that_has_one(notes, question):
    q = notes.retriever.understand(question)
    named = {notes.catalog[r].title for r in q.records}
    assert "ImageNet Classification with Deep Convolutional Wombat Networks" not in named, named
    assert "A Simple Framework for Contrastive Learning of Wombat Representations" in named, named


def test_a_line_an_overlap_repeats_stays_with_its_paper(notes):
    # every chunk holding the line (an overlap may repeat it in the next one) is the entry's own
    bm25 = notes.retriever.bm25
    held = [m for t, m in zip(bm25.texts, bm25.metadatas, strict=True) if "Trained on 2048 TPU" in t]
    assert held and all(m.get("paper_title", "").startswith("GShardwomb") for m in held), held
    for question in ("gshardwomb trained on how many tpus", "how many TPU cores did GShardwomb use?"):
        a = notes.ask(question, use_llm=False)
        assert not a.refused and "2048 TPU v3 cores" in a.answer, a.answer
        assert a.answer.startswith("GShardwomb"), a.answer


@pytest.mark.parametrize("question", ["what is wombatnet?", "who wrote wombatnet?", "wombatnet"])
def test_a_line_that_is_only_a_name_of_the_paper_is_not_quoted(notes, question):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    lines = [ln.rsplit(" [", 1)[0].strip() for ln in a.answer.splitlines()]
    assert '"WombatNet"' not in lines and "WombatNet" not in lines, a.answer


def test_a_paper_notes_one_line_summary_is_no_byline_nor_another_name(notes):
    titles = {r.title: r for r in notes.catalog}
    switch = titles["Switchback Transformers: Scaling to Trillion Parameter Wombats with Simple Sparsity"]
    assert switch.summary.startswith("Mixture-of-experts"), switch.summary  # not "Fedus, Zoph, Shazeer. Journal of …"
    chinch = next(r for t, r in titles.items() if t.startswith("Training Compute-Optimal Wombat"))
    assert not chinch.summary.startswith("a.k.a."), chinch.summary


@pytest.mark.parametrize(
    ("question", "said", "byline"),
    [
        ("what is diffwomb?", "weighted variational bound", "Ho, Jain, Abbeel — UC Berkeley"),
        ("denoising diffusion probabilistic wombats?", "weighted variational bound", "Ho, Jain, Abbeel — UC Berkeley"),
        ("what is petrwomb?", "reroutes them in a second pass", "Doe et al. (Kingfisher Lab), 12 authors"),
    ],
)
def test_a_surname_byline_with_its_place_under_the_title_is_the_papers_people_not_its_description(
    notes, question, said, byline
):
    a = notes.ask(question, use_llm=False)
    assert not a.refused and said in a.answer, a.answer
    assert byline not in a.answer, a.answer  # a lookup gives them as "Authors: …"


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("what does quokkaserve do?", "pages the wombat cache into fixed blocks to cut fragmentation"),
        ("badgerbatch?", "reshapes expert batches on the fly"),
    ],
)
def test_a_listing_bullets_description_after_its_title_and_venue_is_quoted(notes, question, said):
    # "[Title](…) (ICML'33) — what it does": the lookup quotes what it does, not only the title and link
    a = notes.ask(question, use_llm=False)
    assert not a.refused and said in a.answer, a.answer
