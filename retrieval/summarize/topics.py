"""The topic table of conference summaries: which headings and which words put a paper on a topic."""

from __future__ import annotations

import re
from dataclasses import dataclass

from papernotes.corpus.errors import BadInputError
from papernotes.retrieval.filters import MAX_FLAG_CHARS


@dataclass(frozen=True)
class Topic:
    """A topic: which heading/bullet names put a paper in it and which words in its title/summary do.

    ``headings`` is searched in each element of a catalog topic path ("Page › heading › bullet");
    ``text`` in the paper's title and one-line summary. Both are compiled case-insensitively
    (acronyms that are ordinary words in lower case are wrapped in ``(?-i:…)``).
    """

    key: str
    label: str
    headings: re.Pattern[str]
    text: re.Pattern[str]
    known: bool = True


def _topic(key: str, label: str, headings: str, text: str) -> Topic:
    return Topic(key, label, re.compile(headings, re.I), re.compile(text, re.I))


#: The topic table. Heading terms are the section headings and topic bullets the notes actually use on
#: their conference pages and topic pages (seeds/003 dump and the GitBook SUMMARY: "Large Language
#: Models (LLMs)", "LLM", "LLMs", "LLM Inference", "LLM Training", "LLM Optimization", "Large Language
#: Model (LLM)"; "Diffusion Models", "Diffusion / Generative Models", "Text-to-Video Generation";
#: "Mixture-of-Experts (MoEs)", "Mixture of Experts (MoE)", "MoE", "MoE Inference"; "RL Post-Training",
#: "Reinforcement Learning (RL)", "Reinforcement Learning with Human Feedback (RLHF)"; "Model Serving",
#: "Distributed Training", "Retrieval-Augmented Generation (RAG)", "Agentic Systems", "Deep Learning
#: Compilation", "Deep Learning Recommendation Models (DLRMs)", "KV Cache Management", "Quantization",
#: "Speculative Decoding"). Text terms are the same names as written in the papers' titles and one-line
#: summaries (including the expansions in the venue pages' "Acronyms" sections).
TOPICS: dict[str, Topic] = {
    t.key: t
    for t in (
        _topic(
            "llm",
            "LLMs",
            r"\bm?llms?\b|\blanguage models?\b",
            r"\bm?llms?\b|\blarge language models?\b|\blanguage models?\b",
        ),
        _topic(
            "diffusion",
            "diffusion models",
            r"\bdiffusion\b|\bgenerative models?\b|\btext-to-(?:image|video)\b|\b(?:image|video) generation\b"
            r"|(?-i:\bDiTs?\b)",
            r"\bdiffusion\b|\btext-to-(?:image|video)\b|\b(?:image|video) generation\b|(?-i:\bDiTs?\b)",
        ),
        _topic(
            "moe",
            "mixture-of-experts (MoE) models",
            r"\bmixture[- ]of[- ]experts?\b|\bmoes?\b",
            r"\bmixture[- ]of[- ]experts?\b|(?-i:\bMoEs?\b)|\bexpert[- ]parallel(?:ism)?\b",
        ),
        _topic(
            "rl",
            "reinforcement learning (RL)",
            r"\breinforcement learning\b|\brl(?:hf)?\b",
            r"\breinforcement learning\b|(?-i:\bRL(?:HF)?\b)",
        ),
        _topic("serving", "model serving and inference", r"\bserving\b|\binference\b", r"\bserving\b|\binference\b"),
        _topic(
            "training",
            "model training",
            r"\btraining\b|\bpre-?training\b|\bfine-?tuning\b",
            r"\btraining\b|\bpre-?training\b|\bfine-?tuning\b",
        ),
        _topic(
            "rag",
            "retrieval-augmented generation (RAG)",
            r"\bretrieval[- ]augmented\b|\brag\b",
            r"\bretrieval[- ]augmented\b|(?-i:\bRAG\b)",
        ),
        _topic("agents", "AI agents", r"\bagent(?:s|ic)?\b", r"\bagent(?:s|ic)?\b"),
        _topic(
            "compilers",
            "deep learning compilers and kernels",
            r"\bcompil(?:er|ers|ation)\b|\bkernel generation\b|\btensor programs?\b",
            r"\bcompil(?:er|ers|ation)\b|\bkernel generation\b|\btensor programs?\b",
        ),
        _topic(
            "dlrm",
            "recommendation models (DLRMs)",
            r"\brecommendation\b|\bdlrms?\b",
            r"\brecommendation (?:models?|systems?)\b|(?-i:\bDLRMs?\b)",
        ),
        _topic("kv-cache", "KV caches", r"\bkv ?cache", r"\bkv[- ]?cache"),
        _topic("quantization", "quantization", r"\bquantiz", r"\bquantiz"),
        _topic(
            "speculative-decoding", "speculative decoding", r"\bspeculative decoding\b", r"\bspeculative decoding\b"
        ),
    )
}

#: Other spellings of the topic keys (compared after lower-casing and collapsing spaces/-/_).
TOPIC_ALIASES: dict[str, str] = {
    "llms": "llm",
    "large language model": "llm",
    "large language models": "llm",
    "language models": "llm",
    "diffusion models": "diffusion",
    "diffusion model": "diffusion",
    "generative models": "diffusion",
    "moes": "moe",
    "mixture of experts": "moe",
    "reinforcement learning": "rl",
    "rlhf": "rl",
    "inference": "serving",
    "model serving": "serving",
    "llm serving": "serving",
    "retrieval augmented generation": "rag",
    "agent": "agents",
    "agentic": "agents",
    "compiler": "compilers",
    "compilation": "compilers",
    "kernels": "compilers",
    "recommendation": "dlrm",
    "dlrms": "dlrm",
    "kv cache": "kv-cache",
    "kvcache": "kv-cache",
    "quantisation": "quantization",
    "speculative decoding": "speculative-decoding",
}


def resolve_topic(topic: str) -> Topic:
    """The :class:`Topic` for a key or alias ("llm", "LLMs", "mixture-of-experts", …). Any other text
    becomes a free-text topic (``known=False``) matched as a whole word, singular or plural, in headings,
    titles and summaries.

    Raises
    ------
    BadInputError
        for an empty topic (listing the known ones) or one longer than
        :data:`~papernotes.retrieval.filters.MAX_FLAG_CHARS`.
    """
    raw = (topic or "").strip()
    if not re.search(r"\w", raw):
        raise BadInputError(f"the topic is empty; known topics: {', '.join(TOPICS)}")
    if len(raw) > MAX_FLAG_CHARS:
        raise BadInputError(f"the topic is too long ({len(raw)} characters; at most {MAX_FLAG_CHARS})")
    key = re.sub(r"[\s_-]+", " ", raw.lower()).strip()
    for k in (key, key.replace(" ", "-")):
        if k in TOPICS:
            return TOPICS[k]
        if k in TOPIC_ALIASES:
            return TOPICS[TOPIC_ALIASES[k]]
    # singular and plural alike ("databases" finds "Database"): each word without its English plural
    # "-s", then an optional "s"/"es"
    words = r"[\s_-]+".join(
        re.escape(w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w) + "(?:s|es)?"
        for w in key.split()
    )
    pat = re.compile(rf"(?<!\w){words}(?!\w)", re.I)
    return Topic(key=raw, label=raw, headings=pat, text=pat, known=False)
