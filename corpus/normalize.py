"""One text normalization for every matcher: BM25 terms, paper names, venues and answerability.

:func:`normalize` makes two spellings of the same text equal: Unicode NFKC (full-width forms, ligatures,
the NFD "Café" of macOS file names), every dash/hyphen variant as ``-``, every space variant as a space,
zero-width characters and soft hyphens removed, curly apostrophes as ``'``, a possessive ``'s`` and the
clitic of an English contraction dropped ("Mooncake's" → "mooncake", "where'd" → "where", "didn't" →
"didn": a clitic is no part of the word it leans on; so is the "t" of a negative contraction typed
without its apostrophe, "cant" → "can", and an elided French article, "d'AEGIS" → "aegis"), the plural ``s`` of an acronym dropped ("GPUs",
"LLMs", "SLOs" → gpu, llm, slo; typed in lower case, only where the rest has no vowel: "llms", "vms" —
"gpus" could be "bus", so the index terms decide it against an English lexicon, see
:func:`papernotes.retrieval.terms.lexical_terms`; the stemmer leaves all of these alone), case folded, accents folded on Latin, Greek and Cyrillic letters
("Café" → "cafe"; other scripts keep their marks), and a Greek letter written as its name, as people type
it, joined to the word it is part of ("β2" → "beta-2", "λ" → "lambda-", "ΔW" → "delta-w").

:func:`tokens` splits normalized text into matching units: word parts split at punctuation and at
letter/digit boundaries ("LLaMA3" → ``llama 3``, "Llama-3-8B" → ``llama 3 8 b``), plus the joined form of
a word with inner boundaries (``llama3``, ``llama38b``, ``deepseekv32``), so "DeepSeekV3.2" and
"DeepSeek-V3.2", or "KVCache" and "KV-cache", share a token; CJK text (Han, kana, Hangul), which has no
spaces, becomes overlapping character bigrams (the CJK analyzer of Lucene does the same).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: CJK scripts: CJK ideographs (and extensions), kana, Hangul syllables and jamo.
#: Terminal escape sequences (ECMA-48: CSI "ESC [ … m" colours and cursor moves, OSC "ESC ] … BEL"
#: window titles, two-byte ESC codes) and the C0/C1 control characters other than tab and line breaks:
#: none is text, and printed back they would drive the reader's terminal.
CONTROL_RE = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]?|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
)


def strip_controls(text: str, replacement: str = "") -> str:
    """``text`` without the terminal escape sequences and control characters of :data:`CONTROL_RE`
    (tabs and line breaks kept), each replaced by ``replacement``."""
    return CONTROL_RE.sub(replacement, text)


CJK_CHARS = "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_CJK_RE = re.compile(f"[{CJK_CHARS}]")
#: Apostrophe look-alikes: right/left single quotation marks, modifier letter apostrophe, prime,
#: full-width apostrophe, grave and acute accents used as apostrophes.
_APOSTROPHES = "\u2019\u2018\u02bc\u2032\uff07`\u00b4"
#: Characters that join the parts of one word: "Llama-3-8B", "v3.2", "C++", "I/O", "don't".
_JOINERS = "-._+/'"
_WORD_RE = re.compile(rf"[{CJK_CHARS}]+|[^\W_{CJK_CHARS}]+(?:[{re.escape(_JOINERS)}]+[^\W_{CJK_CHARS}]+)*[+]*")
_PART_RE = re.compile(rf"[{CJK_CHARS}]+|[^\W\d_{CJK_CHARS}]+|\d+")
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")
#: Non-ASCII characters that normalization may change: all but Han ideographs and Hangul syllables,
#: which are no dash, space, format character or apostrophe and carry no combining mark, so a CJK text
#: is not visited character by character.
_CHANGEABLE_RE = re.compile(r"[^\x00-\x7f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
#: A possessive ("Mooncake's", "papers'") or the clitic of an English contraction ('d 're 've 'll 'm n't).
_CLITIC_RE = re.compile(r"(?<=\w)'(?:s|d|re|ve|ll|m)\b|(?<=n)'t\b|(?<=s)'(?!\w)")
#: An elided French article or pronoun leaning on the next word ("d'AEGIS", "l'algorithme", "qu'est"):
#: the articles of Apache Lucene's ``FrenchAnalyzer.DEFAULT_ARTICLES`` (its ``ElisionFilter``), dropped as
#: a clitic is; an English word never starts so ("O'Brien", "rock 'n' roll" are left alone).
_ELISION_RE = re.compile(r"(?<![\w'])(?:jusqu|quoiqu|lorsqu|puisqu|qu|[cdjlmnst])'(?=[^\W\d_])")
#: An English negative contraction typed without its apostrophe ("cant", "dont", "doesnt"; a closed
#: class: the auxiliaries that contract with "not"), read as the contraction is: its clitic dropped.
_BARE_NEGATION_RE = re.compile(
    r"\b(can|don|didn|won|isn|aren|wasn|weren|doesn|hasn|haven|hadn|couldn|shouldn|wouldn|mustn|needn|ain)t\b"
)
#: An acronym's plural: two or more capitals (digits allowed) and a lower-case "s" ("GPUs", "MLLMs", "H100s").
_ACRONYM_PLURAL_RE = re.compile(r"\b([A-Z0-9]*[A-Z][A-Z0-9]*[A-Z][A-Z0-9]*)s\b")
#: The same typed in lower case: two or more consonant letters (digits allowed), no vowel, then "s"
#: ("llms", "dnns", "vms"); with a vowel it could be an English word ("bus", "gas") and is left alone.
_CONSONANTS = "b-df-hj-np-tv-xz"
_LOWER_ACRONYM_PLURAL_RE = re.compile(
    rf"\b([{_CONSONANTS}0-9]*[{_CONSONANTS}][0-9]*[{_CONSONANTS}][{_CONSONANTS}0-9]*)s\b"
)


@lru_cache(maxsize=4096)
def _char_class(ch: str) -> str:
    cat = unicodedata.category(ch)
    if cat == "Pd" or ch == "\u2212":  # dash punctuation (hyphen, non-breaking hyphen, en/em dash…), minus
        return "-"
    if cat == "Zs":  # no-break, narrow no-break, thin, ideographic … spaces
        return " "
    if cat == "Cf" or ch == "\u00ad":  # zero-width space/joiners, soft hyphen, BOM
        return ""
    if ch in _APOSTROPHES:
        return "'"
    return ch


def _fold_accents(text: str) -> str:
    """Drop combining marks that follow a Latin, Greek or Cyrillic letter (below U+0530)."""
    if text.isascii():  # nothing to decompose
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    if not any(unicodedata.combining(m.group()) for m in _CHANGEABLE_RE.finditer(decomposed)):
        return unicodedata.normalize("NFC", decomposed)  # no mark to drop (only non-ASCII chars can be one)
    out: list[str] = []
    base_ok = False
    for ch in decomposed:
        if unicodedata.combining(ch):
            if not base_ok:
                out.append(ch)
            continue
        base_ok = ord(ch) < 0x0530
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def unify_punctuation(text: str) -> str:
    """``text`` in Unicode NFKC with every dash variant as ``-``, every space variant as a space,
    zero-width characters removed and apostrophe look-alikes as ``'``; case and accents kept (for
    matchers where casing carries meaning, such as venue names)."""
    t = unicodedata.normalize("NFKC", text or "")
    if t.isascii():
        return t
    return _CHANGEABLE_RE.sub(lambda m: _char_class(m.group()), t)


#: A superscript written with TeX's caret after a letter or digit ("$$E^3$$", "x^{2}"): part of the word,
#: as typed without it ("E3"); NFKC already reads "E³" so.
_CARET_RE = re.compile(r"(?<=[^\W_])\^\{?([^\W_]+)\}?")


def normalize(text: str) -> str:
    """``text`` in the one normalized form every matcher compares (see the module docstring).

    >>> normalize("Mooncake’s  KV‑cache (Café)")
    'mooncake  kv-cache (cafe)'
    """
    t = _ACRONYM_PLURAL_RE.sub(r"\1", unify_punctuation(_CARET_RE.sub(r"\1", text) if "^" in text else text))
    t = _LOWER_ACRONYM_PLURAL_RE.sub(r"\1", _BARE_NEGATION_RE.sub(r"\1", _CLITIC_RE.sub("", t.casefold())))
    t = _ELISION_RE.sub("", t) if "'" in t else t
    t = _fold_accents(t)
    return t if t.isascii() else _GREEK_RE.sub(lambda m: _greek_name(m.group()), t)


#: Unicode's names that differ from the usual English spelling of the letter (the standard keeps the
#: ISO 8859-7 name "LAMDA").
_GREEK_SPELLING = {"lamda": "lambda"}


#: Greek letters (after case and accent folding): in notes a symbol, typed by its name ("β2" is "beta2").
_GREEK_RE = re.compile(r"[\u0370-\u03ff]")


@lru_cache(maxsize=256)
def _greek_name(ch: str) -> str:
    """The name of a Greek letter as people type it (Unicode's character name: "GREEK SMALL LETTER
    BETA" → ``beta``, "GREEK LUNATE EPSILON SYMBOL" → ``epsilon``); other characters of the block as
    they are."""
    words = unicodedata.name(ch, "").lower().split()
    if not words or words[0] != "greek" or ("letter" not in words and "symbol" not in words):
        return ch
    rest = [w for w in words[1:] if w not in ("small", "capital", "letter", "symbol", "final", "lunate", "with")]
    if len(rest) != 1:
        return ch
    # joined to what follows as the parts of one word: "ΔW" gives ``delta``, ``w`` and ``deltaw``
    return _GREEK_SPELLING.get(rest[0], rest[0]) + "-"


def word_parts(word: str) -> list[str]:
    """The parts of one normalized word: split at joiners and letter/digit boundaries
    (``"deepseek-v3.2"`` → ``["deepseek", "v", "3", "2"]``)."""
    return _PART_RE.findall(word)


def tokens(text: str, compounds: bool = True) -> list[str]:
    """Matching units of ``text`` in order (normalized, not stemmed, stop words kept).

    Each word gives its parts, then (``compounds``) its parts joined when it has more than one
    (``"LLaMA3-8B"`` → ``llama 3 8 b llama38b``); a CJK run gives its character bigrams (a single
    character stays a unigram).

    >>> tokens("DeepSeekV3.2 vs DeepSeek-V3.2")
    ['deepseekv', '3', '2', 'deepseekv32', 'vs', 'deepseek', 'v', '3', '2', 'deepseekv32']
    """
    out: list[str] = []
    for m in _WORD_RE.finditer(normalize(text)):
        w = m.group(0)
        if _CJK_RE.match(w):
            out.extend([w] if len(w) == 1 else [w[i : i + 2] for i in range(len(w) - 1)])
            continue
        parts = word_parts(w)
        out.extend(parts)
        if compounds and len(parts) > 1:
            out.append("".join(parts))
    return out


def compact(text: str) -> str:
    """Letters and digits of the normalized text only (``"Sarathi-Serve"`` → ``"sarathiserve"``): the
    key that compares names however they are hyphenated, spaced or cased."""
    return "".join(_PART_RE.findall(normalize(text)))
