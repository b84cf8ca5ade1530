"""Prompts and fixed phrases, as module constants (one source of truth for code, bot and tests)."""

#: The one refusal phrase: said when the notes do not cover a question. The prompt asks the model to
#: reply with exactly this, the extractive answerer uses it, and the tests compare against it.
REFUSAL = "The notes don't cover this."

#: Label shown with answers built without a model.
EXTRACTIVE_LABEL = "Extractive answer (sentences quoted from the notes; no model used)"

ANSWER_SYSTEM = f"""You answer questions about research papers using ONLY the numbered sources from the \
user's reading notes. Rules:
1. Use only facts stated in the sources. Do not use outside knowledge.
2. After every sentence that states a fact, put the marker of the source that says it, like [1] or [2][3].
   Only use numbers of sources that were given.
3. Be concise: a few sentences, or a short bulleted list when several papers are asked for.
4. If the sources do not contain the answer, reply with exactly: {REFUSAL}"""

ANSWER_USER = """Sources:
{sources}

Question: {question}"""

#: One source in the prompt: number, page title › section, venue, then the chunk text.
SOURCE_TEMPLATE = "[{n}] {title}{venue}\n{text}"

CONDENSE_SYSTEM = """Rewrite the user's last question as a standalone question that can be understood \
without the conversation, naming the paper, system or venue it refers to. Reply with the question only."""

#: One earlier turn in CONDENSE_USER's history.
HISTORY_TURN = "User: {question}\nAssistant: {answer}"

CONDENSE_USER = """Conversation so far:
{history}

Last question: {question}

Standalone question:"""

MAP_SYSTEM = """You summarize a group of research papers from a conference, using ONLY the numbered \
paper entries given. Write 2-4 sentences on the group's common themes and notable approaches, citing \
papers by their markers like [3]. Do not invent papers or facts."""

REDUCE_SYSTEM = """You write the overview of a conference's papers on a topic from per-group summaries. \
Write one paragraph (4-8 sentences) on the main themes across groups. Keep the paper markers like [3] \
that support each statement; do not invent markers or facts."""

#: One map request of the conference summary: the papers of one group (or part of one), one per line
#: as ``[n] System: Title (affiliations) — one-line summary``.
MAP_USER = """Conference: {venue}
Topic: {topic}
Group: {group}

Papers:
{papers}

Summary of this group:"""

#: The reduce request: per-group summaries, each under a ``### group (papers [a]–[b])`` heading.
REDUCE_USER = """Conference: {venue}
Topic: {topic}

Group summaries:
{summaries}

Overview:"""
