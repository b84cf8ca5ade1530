"""Papers named in a question, resolved through the catalog.

Every catalog record contributes its names — the system name ("Mooncake"), the short title prefix
before ":" and the full title — in the one normalized form of :mod:`papernotes.corpus.normalize`, so
"sarathi serve", "Sarathi-Serve" and "SARATHI-SERVE" all name the same paper, and "DeepSeekV3.2" names
"DeepSeek-V3.2". A question names a paper when a run of its words, joined, equals one of those names.

A name that is also an ordinary word or phrase of the notes ("Flash", "Echo", "Face", "Speculative
Decoding" for "Speculative Decoding: Performance or Illusion?") is only taken when
the question writes it in the name's own casing, when it stands next to the paper's own venue the way a
citation is written ("focus hpca26", "HPCA 2026 Focus"), or when the word occurs in few chunks besides the
paper's own (:data:`COMMON_NAME_CHUNKS`), and so is a one-word name written as several ordinary words
("serverless LLM" for "ServerlessLLM"); one that is a term of the whole field ("LLMs", in more than
:data:`~papernotes.retrieval.terms.FIELD_TERM_SHARE` of the chunks) never names a paper: a name has to single out a paper.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

import numpy as np

from papernotes.corpus.models import PaperRecord
from papernotes.corpus.normalize import CJK_CHARS, normalize, tokens, word_parts
from papernotes.corpus.paper_links import paper_id, written_url_spans
from papernotes.corpus.papers import title_key
from papernotes.corpus.short_names import SHORT_NAME_WORDS
from papernotes.corpus.venues import VenueMention
from papernotes.retrieval.abbreviations import FUNCTION_WORDS, TitleAbbreviations, coined, definitions, shortens
from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.filters import Filters, at_venue
from papernotes.retrieval.terms import (
    CHAT_WORDS,
    COMPARING,
    english_word,
    field_term_chunks,
    foreign_stop_words,
    lexical_terms,
    question_words,
    stem_term,
    stop_words,
)

#: A one-word name found in more than this many chunks that are not about the paper is an ordinary
#: word of the notes; the question must then write it in the name's own casing ("FACE", "Echo").
COMMON_NAME_CHUNKS = 3
#: A name a paper's summary coins (:meth:`PaperIndex._defined_name`) is the paper's even when other notes
#: use it often (they compare against it: "ELMo"), unless more than this share of the papers' notes use
#: it: then it is a term of the field that the summary spells out ("Large Language Models (LLMs)").
COINED_NAME_NOTE_SHARE = 0.25
#: ... and never fewer notes than this (in a small collection, the paper's own and two comparing with it).
COINED_NAME_MIN_NOTES = 3
#: Occurrences of a one-word name in other chunks read to tell how the notes write it
#: (:meth:`PaperNames._written_as_name`).
CASING_SAMPLE = 20
#: A question with this many stop words of another language ("gab es auf der …") is in that language:
#: its lower-case words abbreviate no title.
FOREIGN_WORDS = 2
#: Longest name, in words, looked for in a question.
MAX_NAME_WORDS = 8


@dataclass
class PaperMention:
    """A paper the question names: catalog positions of the record(s) with that name (several papers
    can share a name), the name as written in the catalog, and the span of question words it covers."""

    records: list[int]
    name: str
    words: tuple[int, int]
    #: for a model variant written as one word ("ViT-H/14" for ViT), how many of its parts are the name;
    #: the rest ("h", "14") is the variant, which the question still asks about
    name_parts: int = 0


@dataclass
class _Name:
    display: str
    records: set[int] = field(default_factory=set)
    single: bool = False  # one word (a common-word check applies)
    from_file_name: bool = True  # only the words of a deep note's file name give it


def words_of(text: str, skip: Iterable[tuple[int, int]] = ()) -> list[tuple[str, list[str]]]:
    """The words of ``text`` as (original word, normalized parts); words inside a ``skip`` span (a
    venue mention: "FAST 2026" names no paper FAST) have no parts."""
    out = []
    spans = list(skip)
    for m in re.finditer(r"\S+", text):
        raw = m.group(0)
        inside = any(a < m.end() and m.start() < b for a, b in spans)
        parts = [] if inside else word_parts(normalize(raw))
        if parts or inside:
            out.append((_bare(raw), parts))
    return out


def clause_starts(text: str, skip: Iterable[tuple[int, int]] = ()) -> set[int]:
    """Positions, in :func:`words_of` numbering, of the words of ``text`` that begin a new clause: those
    after a dash, colon, comma, semicolon, question or exclamation mark, standing apart or ending the word
    before ("dfvg spec decoding - drafts on what hw": "drafts")."""
    spans = list(skip)
    out: set[int] = set()
    n, pending = 0, False
    for m in re.finditer(r"\S+", text):
        raw = m.group(0)
        inside = any(a < m.end() and m.start() < b for a, b in spans)
        if inside or word_parts(normalize(raw)):
            if pending or raw[0] in _CLAUSE_MARKS:
                out.add(n)
            n += 1
            pending = raw.rstrip(")]}\"'”’")[-1:] in _CLAUSE_MARKS
        else:
            pending = pending or any(ch in _CLAUSE_MARKS + "-" for ch in raw)
    return out


#: Marks that end a clause of a question when they end a word or stand apart (with "-" standing apart).
_CLAUSE_MARKS = ":,;?!—–|"


def _bare(raw: str) -> str:
    """A question word as written, without surrounding punctuation or a possessive ``'s``."""
    return re.sub(r"['’]s$", "", raw.strip('?!.,;:()[]{}"“”‘’'))


def _next_to_venue(question: str, venues: Sequence[VenueMention]) -> dict[str, set[str]]:
    """Words standing right before or after a venue mention with a year, as written (punctuation
    stripped as in :func:`_words`) → the :func:`title_key` of the venues beside them."""
    out: dict[str, set[str]] = {}
    for m in venues:
        if not m.venue:
            continue
        before = [w for w in map(_bare, re.findall(r"\S+", question[: m.span[0]])) if w][-1:]
        after = [w for w in map(_bare, re.findall(r"\S+", question[m.span[1] :])) if w][:1]
        for word in before + after:
            out.setdefault(word, set()).add(title_key(m.venue))
    return out


class PaperIndex:
    """Name → catalog record lookup plus the chunks of each record.

    Parameters
    ----------
    records
        The catalog (``list[PaperRecord]``); positions in it identify papers.
    bm25
        The BM25 index: its chunk metadata (in its order) and term postings.
    """

    def __init__(self, records: list[PaperRecord], bm25: BM25Index):
        self.records = records
        self._by_title = {title_key(r.title): i for i, r in enumerate(records) if title_key(r.title)}
        for i, r in enumerate(records):  # a chunk written under another of the paper's names
            for a in r.aliases:
                self._by_title.setdefault(title_key(a), i)
        abbreviations = _long_forms(bm25.abbreviations.short_of) if len(records) else {}
        per_source = Counter(r.deep_note for r in records if r.deep_note)
        # a file that is one paper's note: its chunks are that paper's; a file of several (a reading log)
        # gives its sections' chunks their own papers by title, and a section about none ("## not papers
        # › tools") is about no paper, not the file's last one
        self._by_deep_note = {
            r.deep_note: i for i, r in enumerate(records) if r.deep_note and per_source[r.deep_note] == 1
        }
        # a page titled with one paper's name alone ("# SGLang", a note whose paper link sits in its text)
        systems = Counter(title_key(r.system) for r in records if r.system)
        self._by_page_name = {
            title_key(r.system): i for i, r in enumerate(records) if r.system and systems[title_key(r.system)] == 1
        }
        self.chunk_record: list[int | None] = [self.record_of(m) for m in bm25.metadatas]
        self.chunks: dict[int, list[int]] = {}
        for pos, rec in enumerate(self.chunk_record):
            if rec is not None:
                self.chunks.setdefault(rec, []).append(pos)
        self._names: dict[str, _Name] = {}
        skip = question_words() | stop_words()
        per_note: dict[str, int] = {}
        for r in records:
            if r.deep_note:
                per_note[r.deep_note] = per_note.get(r.deep_note, 0) + 1
        in_titles = Counter(t for r in records for t in set(lexical_terms(r.title)))  # term → titles holding it
        self._coined: set[str] = set()  # names a paper's summary coins (:meth:`_defined_name`)
        self._own_name_records: dict[str, set[int]] = {}  # a system name or title prefix → its papers
        for i, r in enumerate(records):
            for k in _own_names(r):
                self._own_name_records.setdefault(k, set()).add(i)
        for i, r in enumerate(records):
            named = _record_names(r)
            own_file = bool(r.deep_note) and per_note[r.deep_note or ""] == 1  # not a log of many papers
            prose = self._prose_name(i, r, named, in_titles.keys(), bm25) if own_file else None
            if prose:
                named.append(prose)
            for name in [*named, *(_file_name_words(r, named) if own_file else [])]:
                key = "".join(word_parts(normalize(name)))
                if len(key) < 2 or key.isdigit() or key in skip:
                    continue
                if (
                    name in _title_word_names(r)
                    and sum(ch.isupper() for ch in name) < 2
                    # a versioned word ("Qwen3") by its joined form: its parts ("3") are in many titles
                    and any(in_titles[t] > 1 for t in (lexical_terms(name) if name.isalpha() else [key]))
                ):
                    continue  # a word of other titles too ("Bayesian …" beside "… Bayesian Optimization")
                n = self._names.setdefault(key, _Name(display=name))
                n.records.add(i)
                n.single = n.single or len(name.split()) == 1
                n.from_file_name = n.from_file_name and name not in named
                for short_key in _abbreviated_keys(name, abbreviations):  # "fairness in serving llms"
                    self._names.setdefault(short_key, _Name(display=name)).records.add(i)
        for head, i in _compound_heads(records).items():  # "sarathi" for Sarathi-Serve
            key = "".join(word_parts(normalize(head)))
            if key not in self._names and key not in skip and not self._used_alone(head, i, bm25):
                self._names[key] = _Name(display=head, records={i}, single=True, from_file_name=False)
        self._bm25 = bm25
        self._first_authors: dict[str, set[int]] = {}  # a first author's surname → the papers
        for i, r in enumerate(records):
            surname = first_author_surname(r)
            if surname:
                self._first_authors.setdefault(surname, set()).add(i)
        self._titles = TitleAbbreviations(r.title for r in records)  # the titles a typed word abbreviates
        for n in self._names.values():
            if n.from_file_name:  # the notes' own casing of a file-name word ("RAG" for "lewis2020-rag")
                n.display = self._casing(n)
        self._field_names: dict[str, _Name] = {}
        self._common = self._common_names(bm25)
        self._by_link: dict[str, set[int]] = {}  # a link's paper identity (arXiv id, DOI, …) → its papers
        for i, r in enumerate(records):
            for url in r.links.values():
                if url:
                    self._by_link.setdefault(paper_id(url), set()).add(i)

    def _used_alone(self, head: str, i: int, bm25: BM25Index) -> bool:
        """True when a chunk about no paper or another paper writes ``head`` (a compound name's first
        part) as a word of its own: then it names something else too ("DeepSpeed", the framework, for
        DeepSpeed-Inference)."""
        alone = re.compile(rf"(?<![\w-]){re.escape(head)}(?![\w-])", re.IGNORECASE)
        terms = lexical_terms(head)
        return len(terms) == 1 and any(
            self.chunk_record[pos] != i and alone.search(bm25.texts[pos]) for pos in bm25.postings(terms[0])
        )

    def _prose_name(
        self, i: int, r: PaperRecord, named: list[str], title_terms: AbstractSet[str], bm25: BM25Index
    ) -> str | None:
        """The name a paper's own note calls it by when its title holds none ("The authors propose ELMo",
        "这篇论文提出了 Raft", "The InstructGPT paper." over "Training language models to follow
        instructions with human feedback"): of the words its one-line summary writes as names
        (:func:`_written_as_name_in`), the first that the note uses :data:`PROSE_NAME_MIN` times or more
        and mostly there (at least half of the chunks holding it are the note's), and that is no term of
        the field, of any title, or of the paper's authors or affiliations; else the name the summary coins
        (:meth:`_defined_name`). None for a paper with a short name (a system name, a title prefix) or when
        no word qualifies."""
        own = self.chunks.get(i, [])
        if not own or not r.summary or any(_short(n) for n in named):
            return None
        texts = [bm25.texts[pos] for pos in own]
        have = {t for n in [*named, *r.authors, *r.affiliations] for t in lexical_terms(n)}
        limit = field_term_chunks(len(bm25))
        own_set = set(own)
        for w in dict.fromkeys(_NAME_WORD_RE.findall(r.summary)):
            terms = lexical_terms(w)
            if len(terms) != 1 or terms[0] in have or terms[0] in title_terms or w.lower() in question_words():
                continue
            pattern = re.compile(rf"(?<![\w-]){re.escape(w)}(?![\w-])")
            if sum(len(pattern.findall(t)) for t in texts) < PROSE_NAME_MIN or not _written_as_name_in(w, texts):
                continue
            holding = bm25.postings(terms[0])
            mine = sum(1 for pos in holding if int(pos) in own_set)
            if len(holding) <= limit and 2 * mine >= len(holding):
                return w
        return self._defined_name(i, have, bm25)

    def _defined_name(self, i: int, have: AbstractSet[str], bm25: BM25Index) -> str | None:
        """The name a paper's one-line summary coins: a short form it defines by a long form written as
        a name ("This paper introduces ELMo (Embeddings from Language Models)"; Schwartz–Hearst,
        :func:`~papernotes.retrieval.abbreviations.definitions` and :func:`~papernotes.retrieval.
        abbreviations.coined`; not "… a deep Q-network (DQN)", a term). Such a name is the paper's even
        when other notes use it more (they compare against it), but not when more than
        :data:`COINED_NAME_NOTE_SHARE` of the papers' notes use it, nor when it is another paper's own
        name or a word of the paper's authors or affiliations (``have``). None when the summary coins
        none."""
        for short, long_form in definitions(self.records[i].summary).items():
            terms = lexical_terms(short)
            if len(terms) != 1 or terms[0] in have or not coined(long_form) or not _NAME_WORD_RE.fullmatch(short):
                continue
            if self._own_name_records.get(title_key(short), {i}) != {i}:
                continue  # another paper's name
            notes = {self.chunk_record[int(pos)] for pos in bm25.postings(terms[0])} - {None}
            if len(notes) <= max(COINED_NAME_MIN_NOTES, COINED_NAME_NOTE_SHARE * len(self.records)):
                self._coined.add("".join(word_parts(normalize(short))))
                return short
        return None

    @property
    def bm25(self) -> BM25Index:
        """The keyword index the names were checked against."""
        return self._bm25

    @cached_property
    def title_terms(self) -> dict[str, set[int]]:
        """Stemmed title term → catalog positions of the papers whose title holds it."""
        out: dict[str, set[int]] = {}
        for i, r in enumerate(self.records):
            for t in set(lexical_terms(r.title)):
                out.setdefault(t, set()).add(i)
        return out

    def record_of(self, meta: dict[str, Any]) -> int | None:
        """Catalog position of the paper a chunk is about (by its paper title, else as the paper's deep
        note, else — a chunk of no paper entry — by its page's title when that is one paper's system name,
        title or alias: "# SGLang"), or None for chunks about no one paper."""
        title = meta.get("paper_title")
        by_title = self._by_title.get(title_key(str(title))) if title else None
        if by_title is not None:  # a reading log's section: its own paper, not the file's last one
            return by_title
        by_note = self._by_deep_note.get(str(meta.get("source") or ""))
        if by_note is not None or title:
            return by_note
        page = title_key(str(meta.get("page_title") or ""))
        return self._by_page_name.get(page, self._by_title.get(page)) if page else None

    def _common_names(self, bm25: BM25Index) -> set[str]:
        """Names found in more than :data:`COMMON_NAME_CHUNKS` chunks not about the paper(s) of that name
        (chunks counted through the BM25 postings of the name's term; for a name of several words, the
        chunks writing them as a phrase, and never when it holds a digit); a one-word name found in more
        than :data:`~papernotes.retrieval.terms.FIELD_TERM_SHARE` of the chunks is dropped."""
        common = set()
        for key, n in list(self._names.items()):
            terms = lexical_terms(key) if n.single else list(dict.fromkeys(lexical_terms(n.display)))
            if not terms or (n.single and len(terms) != 1):
                continue
            if n.single:
                holding = bm25.postings(terms[0])
                others = sum(1 for pos in holding if self.chunk_record[int(pos)] not in n.records)
            elif any(ch.isdigit() for ch in n.display):
                continue  # a digit makes a name ("Llama 3")
            else:  # a name of several words: how often other chunks write it as a phrase
                others = self._phrase_elsewhere(bm25, n, terms)
            if others > field_term_chunks(len(bm25)):
                # a term of the field ("LLMs", "LoRA" in notes that build on it): a name only when nothing
                # else in a question that asks for no list is one (:meth:`resolve`, ``field_names``)
                if not n.from_file_name and (
                    key in self._coined or any(title_key(n.display) in _own_names(self.records[r]) for r in n.records)
                ):
                    self._field_names[key] = n  # a system name or title prefix ("LoRA"), not "… with LLMs"
                del self._names[key]
            elif others > COMMON_NAME_CHUNKS and n.from_file_name and n.display.islower():
                del self._names[key]  # an ordinary word of a file name ("notes", "review")
            elif others > COMMON_NAME_CHUNKS and not (n.single and self._written_as_name(bm25, n, holding)):
                common.add(key)
        return common

    def _written_as_name(self, bm25: BM25Index, n: _Name, holding: np.ndarray) -> bool:
        """True when the other chunks that use a one-word name write it mostly as a name — not in lower
        case ("SGLang", "Orca" cited by other papers' notes) — so a question typing it in lower case still
        names the paper; a word the notes mostly write in lower case ("flash", "echo") is an ordinary
        word there. Reads up to :data:`CASING_SAMPLE` of those chunks."""
        if n.display.islower():
            return False
        word = re.compile(rf"(?<![\w-]){re.escape(n.display)}(?![\w-])", re.IGNORECASE)
        lower = named = 0
        for pos in holding[: 4 * CASING_SAMPLE]:
            if self.chunk_record[int(pos)] in n.records:
                continue
            for m in word.finditer(bm25.texts[int(pos)]):
                lower += m.group(0).islower()
                named += not m.group(0).islower()
            if lower + named >= CASING_SAMPLE:
                break
        return named > lower or lower + named == 0  # only inside citekeys ("lewis2020-rag"): a citation

    def _phrase_elsewhere(self, bm25: BM25Index, n: _Name, terms: list[str]) -> int:
        """Chunks not about the name's paper(s) that write the name's words as a phrase ("speculative
        decoding" for "Speculative Decoding: Performance or Illusion?"), counted up to one past
        :data:`COMMON_NAME_CHUNKS`."""
        elsewhere = [int(pos) for pos in bm25.holding(terms) if self.chunk_record[int(pos)] not in n.records]
        if len(elsewhere) <= COMMON_NAME_CHUNKS:  # too few to be common, phrase or not: no text to read
            return len(elsewhere)
        phrase = f" {' '.join(tokens(n.display, compounds=False))} "
        count = 0
        for pos in elsewhere:
            if phrase in f" {' '.join(tokens(bm25.texts[pos], compounds=False))} ":
                count += 1
                if count > COMMON_NAME_CHUNKS:
                    break
        return count

    def _casing(self, n: _Name) -> str:
        """How the notes write a file-name word: its first spelling in the record's own chunks that is not
        all lower case ("RAG", "InstructGPT"), else the word as it is."""
        word = re.compile(rf"(?<![\w-]){re.escape(n.display)}(?![\w-])", re.IGNORECASE)
        for rec in sorted(n.records):
            for pos in self.chunks.get(rec, [])[:CASING_SAMPLE]:
                for m in word.finditer(self._bm25.texts[pos]):
                    if not m.group(0).islower():
                        return m.group(0)
        return n.display

    def rare(self, term: str) -> bool:
        """True when the notes hold the index term ``term`` in at most :data:`COMMON_NAME_CHUNKS` chunks
        (or in none): a word that names something rather than an ordinary word of the notes."""
        return len(self._bm25.postings(term)) <= COMMON_NAME_CHUNKS

    def abbreviated(self, raw: str, context: Sequence[str] = ()) -> list[int]:
        """The one record whose title the question word ``raw`` abbreviates ("ddpm", "SimCLR", "dpo";
        :func:`~papernotes.retrieval.abbreviations.abbreviates`), as ``[position]``; ``[]`` when none or
        several do, when the word is a term of the field (in more than :data:`~papernotes.retrieval.terms.FIELD_TERM_SHARE` of the
        chunks), when it is an English word ("mars", "Apple") that neither the question nor, mostly, the
        notes write as an acronym (two or more capitals), when other papers' chunks use the word and its
        own never do (there it names something else: "Pangu"; unless it spells the title's initials
        exactly, skipping no word, in at most :data:`COMMON_NAME_CHUNKS` chunks: "GFS" in MapReduce's
        notes, not "SLO" in 35), or when the notes write it as a word of its
        own rather than cased as an abbreviation ("Tarn", "Raft"). ``context`` are the question's other
        content terms found in the notes: at least half of them must occur in that paper's chunks ("ddpm
        cifar10 fid?"), unless the word spells the title's initials exactly ("gfs vs rdd fault
        tolerance": what is asked may be the other side's); with none, a word the notes never write must abbreviate the title without
        skipping a word ("dlfm" for "Denoising Latent Flow Models"; "ELMo" is no e|l|mo of "Enabling
        Tensor Language Model …"), and a word of three letters must be typed or written in the notes as
        an abbreviation ("lol ok" names nothing)."""
        terms = lexical_terms(raw)
        parts = word_parts(normalize(raw))
        versioned = len(parts) == 2 and parts[0].isalpha() and parts[1].isdigit()
        if versioned:
            terms = [stem_term("".join(parts))]  # letters and a version, one word ("FA4": f|a|4 of "FlashAttention-4")
        if len(terms) != 1 or terms[0] in question_words() | stop_words():
            return []
        if normalize(raw) in foreign_stop_words()[0] | CHAT_WORDS:
            return []  # "auf", "der", "lol": words of a question, not names
        holding = self._bm25.postings(terms[0])
        if len(holding) > field_term_chunks(len(self._bm25)):
            return []
        written: list[bool] = []  # whether the notes write the word as an acronym, read once

        def as_acronym() -> bool:
            if not written:
                written.append(bool(len(holding)) and self._written_as_acronym(raw, holding))
            return written[0]

        acronym_cased = sum(ch.isupper() for ch in raw) >= 2
        if not acronym_cased and english_word(raw) and not as_acronym():
            return []  # "take", "mars": words, unless the notes write them as abbreviations ("RAG")
        # typed alone and written in no note, only an exact abbreviation names a paper: a famous name the
        # notes lack ("ELMo") may spell out a title by skipping its words (e|l|mo of "Enabling Tensor
        # Language Model …")
        found = self._titles.abbreviated(raw, exact=not context and not len(holding))
        if len(found) != 1:
            return []
        own = self.chunks.get(found[0], [])
        exact = self._titles.abbreviated(raw, exact=True) == found  # the title's initials, no word skipped
        if context and not exact:  # the question's other words must point at that paper too
            told = sum(1 for t in context if np.intersect1d(self._bm25.postings(t), own).size)
            if 2 * told < len(context):
                return []
        elif not acronym_cased and len(raw) < 4 and not versioned and not as_acronym():
            return []  # a short word alone ("lol ok"), neither typed nor written as an abbreviation
        users = {self.chunk_record[int(pos)] for pos in holding} - {None}
        if users and found[0] not in users and (not exact or len(holding) > COMMON_NAME_CHUNKS):
            # other papers' notes use the word, its own never: it names something else ("Pangu"), unless
            # it spells the title's words' initials exactly and few chunks use it ("GFS" in MapReduce's
            # notes: the Google File System); a word many chunks use that way is their term ("SLO
            # attainment" in 35 chunks is no "S-LoRA", "AIME" scores no "AI Metropolis")
            return []
        if len(holding) and not as_acronym():
            return []  # the notes write it as a word of its own ("Tarn", "Raft"), not as an abbreviation
        return found

    def _field_shorthand(self, raw: str) -> bool:
        """True when the word ``raw``, typed in lower case, is short for a term of the field (a word of the
        notes in more than :data:`~papernotes.retrieval.terms.FIELD_TERM_SHARE` of the chunks,
        :meth:`~papernotes.retrieval.spelling.Vocabulary.shorthand`): "perf" for "performance". The reading a lower-case name has once it is
        such a term's usual shorthand, by the rule that keeps a term of the field from naming a paper."""
        return self._bm25.vocabulary.shorthand(raw) is not None

    def _written_as_acronym(self, raw: str, holding: np.ndarray) -> bool:
        """True when most of the notes' uses of ``raw`` (up to :data:`CASING_SAMPLE`) are cased as an
        abbreviation is, with two or more capitals ("DDPM", "SimCLR", "MoCo")."""
        word = re.compile(rf"(?<![\w-]){re.escape(raw)}(?![\w-])", re.IGNORECASE)
        acronym = other = 0
        for pos in holding[: 4 * CASING_SAMPLE]:
            for m in word.finditer(self._bm25.texts[int(pos)]):
                capitals = sum(ch.isupper() for ch in m.group(0))
                acronym += capitals >= 2
                other += capitals < 2
            if acronym + other >= CASING_SAMPLE:
                break
        return acronym > other

    def _written_lowercase(self, raw: str) -> bool:
        """True when most of the notes' uses of the word ``raw`` (up to :data:`CASING_SAMPLE` chunks) are
        in lower case, as an ordinary word is written ("real-world", "in real time"), not as a name
        ("BERT", "Gemma")."""
        terms = lexical_terms(raw)
        if len(terms) != 1:
            return False
        word = re.compile(rf"(?<![\w-]){re.escape(raw)}(?![\w])", re.IGNORECASE)
        lower = other = 0
        for pos in self._bm25.postings(terms[0])[: 4 * CASING_SAMPLE]:
            for m in word.finditer(self._bm25.texts[int(pos)]):
                lower += m.group(0).islower()
                other += not m.group(0).islower()
            if lower + other >= 4 * CASING_SAMPLE:
                break
        return lower > other

    def resolve(
        self,
        question: str,
        venues: Sequence[VenueMention] = (),
        variant: Callable[[str], str | None] | None = None,
        title_variant: Callable[[str], str | None] | None = None,
    ) -> list[PaperMention]:
        """Papers the question names, longest names first, in question order, without overlaps; the
        words of the ``venues`` mentioned are not names, and a common one-word name next to a mention
        of its paper's venue is one; a name typed in the other grammatical number ("ktransformer" for
        "KTransformers") is the name. ``variant(word)`` reads a misspelt word as the notes' word
        (:meth:`~papernotes.retrieval.spelling.Vocabulary.variant`): "kernelevovle" names KernelEvolve;
        in a name of several words, ``title_variant`` (by default ``variant``) does, which may read a
        capitalized word too: the whole name checks the reading ("Proximal Policy Optimizaton
        Algorithms").

        >>> # "What's Mooncake's KV cache design?" → [PaperMention(records=[…], name="Mooncake", …)]
        """
        skip = [m.span for m in venues]
        words = words_of(question, skip)
        cited = _next_to_venue(question, venues)
        foreign = foreign_stop_words()[0] - stop_words()
        in_english = sum(p in foreign for _, parts in words for p in parts) < FOREIGN_WORDS
        taken = [False] * len(words)
        found: list[PaperMention] = []
        held = self._held_terms(words)

        @cache
        def read(j: int, several: bool) -> list[str]:
            """Word ``j``'s parts, or those of the notes' word it misspells (in a name of ``several`` words
            by ``title_variant``)."""
            reader = (title_variant or variant) if several else variant
            meant = reader(normalize(words[j][0])) if reader is not None else None
            return word_parts(normalize(meant)) if meant else words[j][1]

        for size in range(min(MAX_NAME_WORDS, len(words)), 0, -1):
            for i in range(len(words) - size + 1):
                if any(taken[i : i + size]):
                    continue
                if not all(parts for _, parts in words[i : i + size]):
                    continue
                key = "".join(p for _, parts in words[i : i + size] for p in parts)
                n = (
                    self._names.get(key)
                    or self._names.get(_number_variant(key))
                    or self._names.get(_first_version(key))
                )
                if n is None and (variant or title_variant) is not None:
                    meant = "".join(p for j in range(i, i + size) for p in read(j, size > 1))
                    key, n = (meant, self._names.get(meant)) if meant != key else (key, None)
                    if n is not None and not self._at_named_venue(n, venues):
                        n = None  # "fluxserve osdi25 paper?": no misspelling of MuxServe (ICML 2024)
                if n is None and size == 1 and (variant_of := self._variant_of(words[i][1])) is not None:
                    n, cut = variant_of
                    found.append(PaperMention(sorted(n.records), n.display, (i, i + 1), cut))
                    taken[i] = True
                    continue
                if n is None and size == 1 and (in_english or sum(ch.isupper() for ch in words[i][0]) >= 2):
                    # the words of another name found are no context ("ddpm vs latent diffusion")
                    context = list(dict.fromkeys(t for j, ts in enumerate(held) if j != i and not taken[j] for t in ts))
                    by_abbreviation = self.abbreviated(words[i][0], context)
                    n = _Name(display=words[i][0], records=set(by_abbreviation)) if by_abbreviation else None
                if n is None:
                    continue
                raw = " ".join(w for w, _ in words[i : i + size])
                if key in self._common and raw != n.display and not self._cited(n, words, i, size, cited):
                    continue  # an ordinary word ("flash attention"), not the paper "FLASH"
                if (
                    size == 1
                    and raw != n.display
                    and self._field_shorthand(raw)
                    and not self._cited(n, words, i, size, cited)
                ):
                    continue  # "tpp perf gain": short for "performance", a term of the field, not the paper "PeRF"
                if size > 1 and n.single and raw != n.display and self._ordinary_phrase(words[i : i + size], n):
                    continue  # "serverless LLM serving" describes a field, it does not name "ServerlessLLM"
                found.append(PaperMention(sorted(n.records), n.display, (i, i + size)))
                for j in range(i, i + size):
                    taken[j] = True
        found += self._by_first_author(words, taken, venues)
        return sorted(found, key=lambda m: m.words)

    def _by_first_author(
        self, words: list[tuple[str, list[str]]], taken: list[bool], venues: Sequence[VenueMention]
    ) -> list[PaperMention]:
        """Papers a question names by their first author's surname, as people cite a paper ("the bahdanau
        attention paper", "kaplan scaling laws", "mnih 2013 atari paper", "vaswani et al"): a word no
        name took that is the surname of a record's first author, and refers to a paper: followed by "et
        al" or, within :data:`AUTHOR_CONTEXT_WORDS` words, by a year of the paper or a word of its title,
        or — a surname that is no English word — by the word "paper" or written possessive. Of the papers
        with that first author, the one whose title or year the question gives, else the only one; the
        paper must agree with a venue the question names. A person asked about ("papers by kaplan",
        "kaplan's papers") names no one paper."""
        found: list[PaperMention] = []
        for i, (raw, parts) in enumerate(words):
            recs = self._first_authors.get(parts[0]) if len(parts) == 1 and not taken[i] else None
            if not recs:
                continue
            before = words[i - 1][0].lower() if i else ""
            after = [w.lower() for w, _ in words[i + 1 : i + 1 + AUTHOR_CONTEXT_WORDS]]
            if before in {"by", "with", "from", "of"} or any(w.startswith("papers") for w in after):
                continue  # the person: "papers by kaplan", "kaplan papers"
            et_al = after[:2] == ["et", "al"] or (after[:1] == ["et"] and len(after) > 1 and after[1].startswith("al"))
            near = {t for w, ps in words[i + 1 : i + 1 + AUTHOR_CONTEXT_WORDS] for p in ps for t in lexical_terms(p)}
            near -= stop_words() | question_words()
            years = {int(w) for w in after if re.fullmatch(r"(?:19|20)\d\d", w)}

            def cited(r: int, near: set[str] = near, years: set[int] = years) -> bool:
                rec = self.records[r]  # the question gives its title's words or its year
                return bool(near & set(lexical_terms(rec.title))) or (rec.year is not None and rec.year in years)

            chosen = [r for r in recs if cited(r)] or (list(recs) if len(recs) == 1 else [])
            # (a surname that is also a word, "brown", "young", is one only where the paper is cited by it)
            marked = et_al or not english_word(parts[0]) and ("paper" in after or raw.lower().endswith(("'s", "’s")))
            if len(chosen) != 1 or not (marked or cited(chosen[0])):
                continue
            n = _Name(display=self._name_of(chosen[0]), records={chosen[0]})
            if not self._at_named_venue(n, venues):
                continue
            # the words that cite it are part of the mention ("kaplan *scaling laws paper*", "vaswani *et
            # al*"), not what is asked of it
            # (up to a "paper" that follows: the words between say which paper, "bahdanau *attention* paper")
            title = set(lexical_terms(self.records[chosen[0]].title))
            window = range(i + 1, min(len(words), i + 1 + AUTHOR_CONTEXT_WORDS))
            paper_at = next((j for j in window if words[j][0].lower() == "paper"), None)
            if paper_at is not None and not any(taken[i + 1 : paper_at + 1]):
                found.append(PaperMention([chosen[0]], n.display, (i, paper_at + 1)))
                taken[i : paper_at + 1] = [True] * (paper_at + 1 - i)
                continue
            end = i + 1  # else over "et al", its year and its title's words ("vaswani et al", "kaplan scaling laws")
            while end < min(len(words), i + 1 + AUTHOR_CONTEXT_WORDS) and not taken[end]:
                w, ps = words[end]
                cites = w.lower() in {"et", "al", "al.", *map(str, years)}
                if not (cites or (ps and all(set(lexical_terms(p)) <= title for p in ps))):
                    break
                end += 1
            found.append(PaperMention([chosen[0]], n.display, (i, end)))
            taken[i:end] = [True] * (end - i)
        return found

    def read_links(self, question: str) -> str:
        """``question`` with each web address written in it read as the name of the paper whose link it
        is (by the paper's identity, :func:`~papernotes.corpus.paper_links.paper_id`: any version or
        page of an arXiv paper, a DOI however linked), and any other address left out: an address is
        no words ("what does https://arxiv.org/abs/2205.14135 say about IO?" asks about FlashAttention
        when that is its notes' link)."""

        def name_of(url: str) -> str | None:
            found = self._by_link.get(paper_id(url), set())
            return self._name_of(next(iter(found))) if len(found) == 1 else None

        return _replace_links(question, name_of)

    def _name_of(self, i: int) -> str:
        """The shortest of record ``i``'s names that names it alone (a system name before its title)."""
        for name in _record_names(self.records[i]):
            n = self._names.get("".join(word_parts(normalize(name))))
            if n is not None and n.records == {i}:
                return name
        return self.records[i].title

    def field_mentions(self, question: str, venues: Sequence[VenueMention] = ()) -> list[PaperMention]:
        """Papers named by a name that is also a term of the field in these notes ("lora", "llama" in
        notes that build on them; dropped by :meth:`resolve`), for a question that names no other paper
        and asks for no list (the caller's part): "who wrote llama", "lora trainable params". Whole names
        only, longest first, in question order; a name the notes mostly write in lower case, as a word,
        only as the notes case it ("ReaL", not "real world")."""
        words = words_of(question, [m.span for m in venues])
        taken = [False] * len(words)
        found: list[PaperMention] = []
        for size in range(min(MAX_NAME_WORDS, len(words)), 0, -1):
            for i in range(len(words) - size + 1):
                if any(taken[i : i + size]) or not all(parts for _, parts in words[i : i + size]):
                    continue
                n = self._field_names.get("".join(p for _, parts in words[i : i + size] for p in parts))
                if n is None:
                    continue
                raw = " ".join(w for w, _ in words[i : i + size])
                if n.single and raw != n.display and self._written_lowercase(raw):
                    continue  # "real world" is no "ReaL": a word the notes mostly write as a word
                # of the papers sharing the name, those it names outright (system name, title prefix)
                own = [r for r in sorted(n.records) if title_key(n.display) in _own_names(self.records[r])]
                found.append(PaperMention(own or sorted(n.records), n.display, (i, i + size)))
                taken[i : i + size] = [True] * size
        return sorted(found, key=lambda m: m.words)

    def _held_terms(self, words: list[tuple[str, list[str]]]) -> list[list[str]]:
        """Each question word's content terms that the notes hold (no question or stop words, no chat
        words, no comparing words: "vs", "differ"): the context of the other words, for :meth:`abbreviated`."""
        skip = question_words() | stop_words() | CHAT_WORDS | COMPARING
        return [
            [t for p in parts if p not in skip for t in lexical_terms(p) if t not in skip and self._bm25.has(t)]
            for _, parts in words
        ]

    def _at_named_venue(self, n: _Name, venues: Sequence[VenueMention]) -> bool:
        """True when the question names no venue (``venues``) or one of the name's papers appeared at a
        named one (:func:`~papernotes.retrieval.filters.at_venue`: a series, or a series and year). A
        word read as a misspelt name must agree with the venue the question places it at: "fluxserve
        osdi25" misspells no paper of ICML 2024."""
        named = [Filters(venue=m.venue) if m.venue else Filters(series=m.series) for m in venues]
        return not named or any(at_venue(self.records[r], f) for r in n.records for f in named)

    def _cited(
        self, n: _Name, words: list[tuple[str, list[str]]], i: int, size: int, cited: dict[str, set[str]]
    ) -> bool:
        """True when the name's words ``words[i:i+size]`` stand right before or after the mention of a
        venue that one of the name's papers was published at (``cited``: raw word → venues beside it)."""
        venues = {title_key(self.records[r].venue or "") for r in n.records} - {""}
        near = cited.get(words[i][0], set()) | cited.get(words[i + size - 1][0], set())
        return bool(venues & near)

    def _ordinary_phrase(self, words: list[tuple[str, list[str]]], n: _Name) -> bool:
        """True when separate words that join into a one-word name are each an ordinary word of the notes
        (in more than :data:`COMMON_NAME_CHUNKS` chunks about other papers) and none holds a digit."""
        for _, parts in words:
            for part in parts:
                if any(ch.isdigit() for ch in part):
                    return False
                terms = lexical_terms(part)
                if not terms:
                    continue
                others = sum(1 for pos in self._bm25.postings(terms[0]) if self.chunk_record[int(pos)] not in n.records)
                if others <= COMMON_NAME_CHUNKS:
                    return False
        return True

    def name_terms(
        self, mentions: Iterable[PaperMention], question: str, skip: Iterable[tuple[int, int]] = ()
    ) -> list[str]:
        """The question's words that belong to the mentioned names (normalized parts)."""
        words = words_of(question, skip)
        return [
            p
            for m in mentions
            for _, parts in words[m.words[0] : m.words[1]]
            for p in (parts[: m.name_parts] if m.name_parts else parts)
        ]

    def within_longer_names(
        self, mentions: Sequence[PaperMention], question: str, skip: Iterable[tuple[int, int]] = ()
    ) -> list[PaperMention]:
        """``mentions`` without those the question types as the end of a longer name the notes write: a
        word right before the name (no stop or question word) that the notes write capitalized before it,
        as one name ("switch transformer" where the notes write "Switch Transformer": not the paper
        aliased "Transformer"; "code llama" where they write "Code Llama"). "the original transformer
        paper" keeps its paper: no note writes "Original Transformer"."""
        words = words_of(question, skip)
        filler = stop_words() | question_words() | CHAT_WORDS
        out = []
        for m in mentions:
            i = m.words[0]
            prev = words[i - 1][0] if i > 0 and words[i - 1][1] else ""
            name = " ".join(w for w, _ in words[m.words[0] : m.words[1]])
            if prev and normalize(prev) not in filler and self._writes_capitalized(prev, name):
                continue
            out.append(m)
        return out

    def _writes_capitalized(self, prev: str, name: str) -> bool:
        """True when a chunk writes the word ``prev`` capitalized right before ``name`` (as typed, in any
        casing; a plural too), as one name: "Switch Transformer(s)" for "switch" and "transformer"."""
        terms = lexical_terms(f"{prev} {name}")
        if prev[:1].upper() == prev[:1].lower() or not terms:
            return False  # a word without capitals ("和", "2") starts no name
        # the name as typed, singular or plural ("Switch Transformers" for the notes' "Switch Transformer")
        rest = r"[\s-]+".join(re.escape(w) for w in re.sub(r"(?<=\w\w)s$", "", name).split())
        pattern = re.compile(
            rf"(?<![\w-]){re.escape(prev[:1].upper())}(?i:{re.escape(prev[1:])}[\s-]+{rest}s?)(?![\w-])"
        )
        return any(pattern.search(self._bm25.texts[int(pos)]) for pos in self._bm25.holding(terms))

    def along_title(
        self, mentions: Sequence[PaperMention], question: str, skip: Iterable[tuple[int, int]] = ()
    ) -> list[PaperMention]:
        """``mentions`` with each one-paper mention's span extended over the question words right after it
        that go on with its paper's title in order ("rethinking checkpoint frequency - who wrote it":
        "Rethinking" names *Rethinking Checkpoint Frequency for Spot Training*, and the two words after it
        are the title's, not what is asked); stop words of the title may be left out. The words after that
        which describe the paper by its title, in any order and shortened, go with the name too
        (:meth:`_described`); a name several papers share names only those it describes that far ("vtc
        for fair llm serving" is *Fairness in Serving Large Language Models*, not the VTC compiler)."""
        words = words_of(question, skip)
        starts = clause_starts(question, skip)
        taken = {j for m in mentions for j in range(*m.words)}
        out = []
        for m in mentions:
            end = m.words[1]
            if len(m.records) == 1 and not m.name_parts:
                title = lexical_terms(self.records[m.records[0]].title)
                said = [t for _, parts in words[m.words[0] : end] for p in parts for t in lexical_terms(p)]
                at = next((i + len(said) for i in range(len(title)) if title[i : i + len(said)] == said), None)
                while at is not None and end < len(words) and end not in taken:
                    terms = [t for p in words[end][1] for t in lexical_terms(p)]
                    if not terms or title[at : at + len(terms)] != terms:
                        break
                    at, end = at + len(terms), end + 1
                end = self._described(m.records[0], words, end, taken, starts)
            records = m.records
            if len(m.records) > 1 and not m.name_parts:
                # a name several papers share, described as one of them ("vtc for fair llm serving")
                ends = {r: self._described(r, words, end, taken, starts, telling_apart=True) for r in m.records}
                furthest = max(ends.values())
                if furthest > end and (narrowed := [r for r in m.records if ends[r] == furthest]) != m.records:
                    records = narrowed
                    end = self._described(narrowed[0], words, end, taken, starts)
            out.append(PaperMention(records, m.name, (m.words[0], end), m.name_parts))
        return out

    def at_named_venues(self, mentions: Sequence[PaperMention], venues: Sequence[VenueMention]) -> list[PaperMention]:
        """``mentions`` with each name several papers share narrowed to those that appeared at a venue the
        question names (:func:`~papernotes.retrieval.filters.at_venue`; a series without a year: any of
        its years): "jenga 在 sosp25 上…" is Jenga of SOSP 2025, not JENGA of another venue. A name stays
        as it is when none of its papers or all of them are at those venues ("the two hawkeye papers
        (sigcomm'25 and mlsys'26)"), and when the question types it twice, telling them apart itself
        ("gemini sosp23 vs gemini the gpu sharing one")."""
        filters = [Filters(venue=v.venue) if v.year else Filters(series=v.series) for v in venues]
        times = Counter(tuple(m.records) for m in mentions)
        out = []
        for m in mentions:
            if len(m.records) > 1 and filters and times[tuple(m.records)] == 1:
                at = [r for r in m.records if any(at_venue(self.records[r], f) for f in filters)]
                if at and len(at) < len(m.records):
                    m = PaperMention(at, m.name, m.words, m.name_parts)
            out.append(m)
        return out

    def _described(
        self,
        record: int,
        words: list[tuple[str, list[str]]],
        end: int,
        taken: set[int],
        starts: set[int],
        telling_apart: bool = False,
    ) -> int:
        """Where a paper's name, ending at word ``end``, ends with the words typed right after it that
        describe the paper by its title in any order and however shortened (:func:`shortens`: "dfvg spec
        decoding - drafts on what hw", "mixnet moe training - uses what switching tech", "hotline (isca24)
        recsys training - what is it?"): those words name the paper, they are not what is asked. The
        description stops at a clause mark (``starts``), a question word or a word of no title; it must
        leave words after it (in "orca throughput?", what is asked is "throughput", title word or not)
        and be two words or more or end at a clause mark (one title word may be the question's own:
        "hlat trained with what learning rate", "sdchunter gpus were h100s?"); ``telling_apart`` papers
        that share the name, any description counts, also one word or one ending the question ("vtc
        fairness paper", "what's VTC for fair llm serving")."""
        title = self.records[record].title
        asking = question_words()
        j, described = end, 0
        while j < len(words) and j not in taken and (j == end or j not in starts):
            parts = words[j][1]
            if parts and all(p in FUNCTION_WORDS for p in parts):
                j += 1  # "vtc for fair llm serving": a joining word, whether the title has it or not
                continue
            if parts and not all(shortens(p, title) and not set(lexical_terms(p)) & asking for p in parts):
                break
            j, described = j + 1, described + len(parts)
        if telling_apart:
            return j if described else end
        if j == len(words) or not (described >= 2 or j in starts):
            return end
        return j

    def _variant_of(self, parts: list[str]) -> tuple[_Name, int] | None:
        """The paper a one-word model variant names, and how many of its parts are the name: a word of
        several parts ("ViT-H/14", "BERT-Large", "ResNet-50") whose leading parts are a paper's name and
        that the notes of that paper write whole (a variant the paper describes); ``None`` otherwise —
        the notes never write it, or it is itself a name ("Llama-2", a paper of its own), or its name is
        no paper's (:meth:`resolve` reads the word whole first)."""
        if len(parts) < 2 or not self._bm25.has(whole := stem_term("".join(parts))):
            return None
        for cut in range(len(parts) - 1, 0, -1):
            key = "".join(parts[:cut])
            n = self._names.get(key)
            if n is not None and not n.from_file_name and key not in self._common:
                written = {pos for r in n.records for pos in self.chunks.get(r, [])}
                if any(int(pos) in written for pos in self._bm25.postings(whole)):
                    return n, cut
        return None


def _replace_links(question: str, name_of: Callable[[str], str | None]) -> str:
    """``question`` with each web address written in it (:func:`~papernotes.corpus.paper_links.written_url_spans`)
    replaced by ``name_of(url)``, or by a space when that is None."""
    spans = written_url_spans(question)
    if not spans:
        return question
    out, last = [], 0
    for start, end, url in spans:
        out += [question[last:start], name_of(url) or " "]
        last = end
    return "".join([*out, question[last:]])


def without_links(question: str) -> str:
    """``question`` with the web addresses written in it left out: an address is no words."""
    return _replace_links(question, lambda url: None)


def _number_variant(key: str) -> str:
    """The other grammatical number of a name key of five or more letters, by a final "s"
    ("ktransformer" ↔ "ktransformers"); ``""`` for a shorter one or one ending in a digit."""
    if len(key) < 5 or not key[-1].isalpha():
        return ""
    return key[:-1] if key.endswith("s") else key + "s"


def _first_version(key: str) -> str:
    """A name key with the first version's number ("llama1", "flashattentionv1") without it: the first
    version of a series goes by the bare name ("LLaMA", "FlashAttention"), the later ones are numbered;
    ``""`` when ``key`` ends in no "1" after a letter."""
    m = re.fullmatch(r"(.*?[^\W\d_])v?1", key)
    return m.group(1) if m and len(m.group(1)) >= 2 else ""


#: A system name inside a title: a word with an inner capital or a capitalised acronym with lower-case
#: letters ("CrystalLLM", "vAttention"), at the end of the title or after "with"/"via"/"using".
_TITLE_NAME_RE = re.compile(
    r"(?:^|\b(?:with|via|using)\s+)([A-Za-z]*[a-z][A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z][A-Za-z0-9]*)\W*$"
)


def _record_names(r: PaperRecord) -> list[str]:
    """A record's names: system name, short title prefix before ":", a system name the title ends with
    ("… Emulation with CrystalLLM"), a name-like first or last word of a title without a colon
    (:func:`_name_like`), full title, and its aliases (with their prefixes)."""
    names = []
    m = _TITLE_NAME_RE.search(r.title)
    if m:
        names.append(m.group(1))
    if not _short_names(r):  # a name the notes give it comes before a word of its title ("AlexNet", not "ImageNet")
        names += _title_word_names(r)
    if r.system:
        names.append(r.system.strip())
    if ":" in r.title:
        prefix = r.title.split(":", 1)[0].strip()
        if 0 < len(prefix.split()) <= MAX_NAME_WORDS:  # "PIM is All You Need: A CXL-Enabled …"
            names.append(prefix)
    if len(r.title.split()) >= 2:
        names.append(r.title.strip())
    for a in r.aliases:  # front-matter aliases, a renamed system's other title
        prefix = a.split(":", 1)[0].strip() if ":" in a else ""
        names += [x for x in (prefix, a.strip()) if x and len(x.split()) <= MAX_NAME_WORDS]
    return list(dict.fromkeys(n for n in names if n))


def _title_word_names(r: PaperRecord) -> list[str]:
    """The name-like first or last word of a title without a colon (:func:`_name_like`): a title that
    opens or ends with its name, the colon left out ("Graphicionado A High Performance …", "ZeRO Memory
    Optimizations …", "… Using Megatron-LM", "Swin Transformer"). Such a word with one capital names
    the paper only when no other title holds it (:class:`PaperIndex`: "Bayesian Code Diffusion for …"
    is not named by the "Bayesian" of "… Multi-Objective Bayesian Optimization")."""
    words = r.title.split()
    if ":" in r.title or len(words) < 2:
        return []
    end = re.search(r"\b(?:with|via|using)\s+(\S+?)\W*$", r.title, re.IGNORECASE)
    return [w for w in (words[0], end.group(1) if end else "") if w and _name_like(w)]


#: A one-word name of two hyphenated parts: "Sarathi-Serve", "MegaScale-Infer", "DeepSeek-V3".
_COMPOUND_NAME_RE = re.compile(r"([A-Za-z][A-Za-z0-9]*)-([A-Za-z0-9][\w.]*)")


def _compound_heads(records: Sequence[PaperRecord]) -> dict[str, int]:
    """The first parts of one-word compound names that people type alone ("sarathi vs distserve" for
    Sarathi-Serve, "megatron" for Megatron-LM), each (as written) → its paper: the head of a system name,
    title prefix or alias "Head-Word" whose second part describes rather than versions it (an English
    word, or an acronym of capital letters: "LM"), when the head is no English word itself, has four letters or more, and heads no
    other paper's name ("MegaScale" heads MegaScale-Infer and MegaScale-Data; "DeepSeek" heads
    DeepSeek-Coder and DeepSeek-V3: neither is taken). A paper named exactly so keeps the name
    (:class:`PaperIndex` adds a head only when no name holds its key)."""
    found: dict[str, tuple[str, set[int], bool]] = {}  # head → (as written, papers, every tail English)
    for i, r in enumerate(records):
        prefix = r.title.split(":", 1)[0] if ":" in r.title else ""
        for name in (r.system or "", prefix, *r.aliases):
            m = _COMPOUND_NAME_RE.fullmatch(name.strip())
            if m is None:
                continue
            head, tail = m.groups()
            written, recs, english = found.get(head.lower(), (head, set(), True))
            # a descriptor, not a version: an English word ("Serve") or an acronym of letters ("LM")
            descriptor = (len(tail) >= 3 and english_word(tail)) or (tail.isalpha() and tail.isupper())
            english = english and tail.isalpha() and len(tail) >= 2 and descriptor
            found[head.lower()] = (written, recs | {i}, english)
    return {
        written: next(iter(recs))
        for written, recs, english in found.values()
        if len(recs) == 1 and english and len(written) >= 4 and not english_word(written)
    }


#: Fewest uses of a word in a paper's own note that make it the note's name for the paper
#: (:meth:`PaperIndex._prose_name`): a name is used again and again, a word in passing is not.
PROSE_NAME_MIN = 3
#: A capitalized word (letters, digits, inner hyphens): a candidate name in a note's prose.
_NAME_WORD_RE = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]{2,})(?![\w-])")
#: A sentence's start before a word: its capital says nothing there.
_SENTENCE_START_RE = re.compile(r"(?:^|[.!?。！？:：›]\s*|\n\s*(?:[-*+>#|]+\s*)?)$")


def _written_as_name_in(word: str, texts: Sequence[str]) -> bool:
    """True when ``texts`` write ``word`` as a name: with an inner capital or two capitals ("ELMo",
    "CLIP", "vLLM"), or capitalized and never in lower case: a word of no English ("Marrowcache"), or an
    English word used at least twice inside a sentence ("Raft", "Dynamo"; not "Figure" or "Results",
    which start sentences and headings)."""
    if sum(ch.isupper() for ch in word) >= 2 or (word[0].islower() and any(ch.isupper() for ch in word)):
        return True
    lower = re.compile(rf"(?<![\w-]){re.escape(word.lower())}(?![\w-])")
    if any(lower.search(t) for t in texts):
        return False
    if not english_word(word.lower()):
        return True  # a coinage: "Marrowcache"
    pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])")
    inside = sum(
        1
        for t in texts
        for m in pattern.finditer(t)
        if not _SENTENCE_START_RE.search(t[max(0, m.start() - 8) : m.start()])
    )
    return inside >= 2


def _short(name: str) -> bool:
    """A short name in Latin script (a system name, a title prefix): not a full title, not a title's
    translation."""
    return len(name.split()) <= SHORT_NAME_WORDS and not re.search(f"[{CJK_CHARS}]", name)


def _name_like(word: str) -> bool:
    """True for a word written as a name rather than an English word: two or more capitals ("ZeRO",
    "KARMA", "Megatron-LM"), or capitalized letters that are no common English word ("Graphicionado"),
    also with a version number ("Qwen3", "Qwen2.5")."""
    if not re.fullmatch(r"[A-Z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*", word):
        return False
    letters = re.sub(r"\d+(?:\.\d+)*$", "", word)
    return sum(ch.isupper() for ch in word) >= 2 or (letters.isalpha() and not english_word(letters.lower()))


def _short_names(r: PaperRecord) -> list[str]:
    """The record's short names (:func:`_short`): its system name and its short aliases."""
    return [a for a in [r.system or "", *r.aliases] if a and _short(a)]


#: How many words after a first author's surname a question may give the paper's title words or year
#: in ("kaplan *scaling laws*", "mnih *2013* atari paper").
AUTHOR_CONTEXT_WORDS = 4


def first_author_surname(r: PaperRecord) -> str | None:
    """The normalized surname of a record's first author ("Jared Kaplan" → ``kaplan``; "Hoffmann et al."
    → ``hoffmann``), three letters or more; None without authors."""
    if not r.authors:
        return None
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", r.authors[0]) if w.lower().rstrip(".") not in ("et", "al")]
    if not words:
        return None
    surname = "".join(word_parts(normalize(words[-1])))
    return surname if len(surname) >= 3 and surname.isalpha() else None


def _own_names(r: PaperRecord) -> set[str]:
    """The :func:`title_key` of a record's system name and of its title's prefix before ":"."""
    prefix = r.title.split(":", 1)[0] if ":" in r.title else ""
    return {title_key(x) for x in (r.system or "", prefix) if x}


def _file_name_words(r: PaperRecord, names: list[str]) -> list[str]:
    """Words of the record's deep-note file name that its other names and its authors do not hold: the
    short name of a citekey-style name ("chinchilla" of ``hoffmann2022-chinchilla.md``, "dpr" of
    ``karpukhin2020-dpr.md``); letters only, three or more of them."""
    if not r.deep_note:
        return []
    stem = re.sub(r"\.[A-Za-z0-9]+$", "", r.deep_note.replace("\\", "/").rsplit("/", 1)[-1])
    have = {p for name in names for p in word_parts(normalize(name))}
    have |= {t for name in [*names, *r.authors] for t in tokens(name)}  # "okafor" of okafor2024-…: a person
    words = [p for p in re.findall(r"[^\W\d_]+", normalize(stem)) if len(p) >= 3]
    return list(dict.fromkeys(w for w in words if w not in have))


def _abbreviated_keys(name: str, by_first: Mapping[str, list[tuple[tuple[str, ...], str]]]) -> list[str]:
    """Name keys of a title of three or more words with each long form the notes define written as its
    abbreviation ("Fairness in Serving Large Language Models" → the key of "fairness in serving llm";
    ``by_first``: :func:`_long_forms`), so a title typed with the notes' abbreviation names its paper;
    ``[]`` when none applies."""
    parts = word_parts(normalize(name))
    if len(parts) < 3 or not by_first:
        return []
    stems = [lexical_terms(p) for p in parts]
    out: list[str] = []
    for i, st in enumerate(stems):
        for long, short in by_first.get(st[0], []) if len(st) == 1 else []:
            n = len(long)
            run = stems[i : i + n]
            if len(run) == n and all(len(x) == 1 and x[0] == t for x, t in zip(run, long, strict=True)):
                out.append("".join([*parts[:i], short, *parts[i + n :]]))
    return out


def _long_forms(short_of: Mapping[tuple[str, ...], str]) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """The notes' long forms of two or more terms with their abbreviations, by first term."""
    out: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for long, short in short_of.items():
        if len(long) >= 2:
            out.setdefault(long[0], []).append((long, short))
    return out
