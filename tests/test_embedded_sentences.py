"""Which candidate sentences the embedder reads (retrieval/evidence.py ``embed_best``): a question that
names a paper is answered from that paper's own sentences, so they are embedded before other papers'
sentences however many words those share with the question; and a named paper's sentence in a listing
chunk is read under the paper's name, as the question reads it. The embedder here is a recording stub:
what is asserted is which texts reach it, not any similarity."""

from __future__ import annotations

from papernotes.retrieval.evidence import Sentence, embed_best
from papernotes.retrieval.search import Hit

LISTING = "SOSP 2025 › Papers › GPU › GPU OS\n* Kestrel: An OS for GPUs\n  * Built in Rust."


def _sentences(own: int, others: int) -> list[Sentence]:
    listing = Hit(id="a", text=LISTING, metadata={}, score=1.0, rank=2, record=7)
    deep = Hit(id="b", text="Other paper › Implementation\nlines of code", metadata={}, score=1.0, rank=1, record=3)
    out = [Sentence(f"own bullet {i}", listing, i + 1, named=True) for i in range(own)]
    # other papers' sentences sharing every asked word: they win on lexical overlap alone
    out += [Sentence(f"other {i}", deep, i, lexical=1.0, asked=1.0) for i in range(others)]
    return out


class Recorder:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.texts += texts
        return [[1.0, 0.0] for _ in texts]


def test_named_papers_sentences_are_embedded_first():
    sents = _sentences(own=4, others=6)
    embed = Recorder()
    embed_best(sents, [1.0, 0.0], embed, n=4, names={7: "Kestrel"})
    assert all(s.cos is not None for s in sents if s.named)
    assert all(s.cos is None for s in sents if not s.named)


def test_other_sentences_fill_what_the_named_paper_leaves():
    sents = _sentences(own=2, others=6)
    embed_best(sents, [1.0, 0.0], Recorder(), n=4, names={7: "Kestrel"})
    assert sum(s.cos is not None for s in sents if not s.named) == 2


def test_without_a_named_paper_lexical_overlap_decides():
    sents = _sentences(own=4, others=6)
    for s in sents:
        s.named = False
    embed_best(sents, [1.0, 0.0], Recorder(), n=4)
    assert sum(s.cos is not None for s in sents if s.text.startswith("other")) == 4


def test_a_listing_entry_is_read_under_the_named_papers_name():
    sents = _sentences(own=1, others=1)
    embed = Recorder()
    embed_best(sents, [1.0, 0.0], embed, n=4, names={7: "Kestrel"})
    own = next(t for t in embed.texts if t.endswith("own bullet 0"))
    assert own.startswith("SOSP 2025 › Papers › GPU › GPU OS › Kestrel: ")
    # another paper's sentence is read under its own heading line alone
    other = next(t for t in embed.texts if t.endswith("other 0"))
    assert other == "Other paper › Implementation: other 0"


def test_a_heading_that_names_the_paper_is_kept_as_it_is():
    sents = _sentences(own=1, others=0)
    embed = Recorder()
    embed_best(sents, [1.0, 0.0], embed, n=4, names={7: "GPU OS"})
    assert embed.texts == ["SOSP 2025 › Papers › GPU › GPU OS: own bullet 0"]
