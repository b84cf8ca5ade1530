"""The feedback store (answers by message id, one vote per user per answer, hashed users, eval export),
the daily cap on model answers, and the access settings' parsing."""

from __future__ import annotations

import json

import pytest
from conftest import make_settings

from papernotes.retrieval.answer import Answer, Citation
from papernotes.retrieval.feedback import FeedbackStore
from papernotes.retrieval.usage import DailyCap


def answer(q: str = "What block size does Quokka use?") -> Answer:
    c = Citation(1, "Quokka", "TL;DR", "Quokka: Paged Attention", "ToySys 2026", None, "q.md", "16-token blocks")
    return Answer(question=q, answer="16-token blocks [1].", mode="extractive", citations=[c])


def test_one_vote_per_user_per_answer_switch_and_remove(tmp_path):
    store = FeedbackStore(tmp_path / "f.sqlite")
    store.record_answer(answer(), [101, 102], place="dm")  # an answer split over two messages
    assert store.vote(101, 7, 1) and store.vote(102, 7, -1)  # the same answer: the vote switches
    assert store.vote(101, 8, -1)
    assert sorted((f.vote, f.user_hash == store.user_hash(7)) for f in store.feedback()) == [(-1, False), (-1, True)]
    assert not store.unvote(101, 7, 1)  # the 👍 he replaced: his 👎 stays
    assert store.unvote(102, 7, -1) and [f.vote for f in store.feedback()] == [-1]
    assert not store.vote(999, 7, -1) and store.answer_id(999) is None  # not an answer
    with pytest.raises(ValueError):
        store.vote(101, 7, 2)


def test_user_ids_are_stored_only_hashed_and_the_store_survives_reopening(tmp_path):
    path = tmp_path / "f.sqlite"
    store = FeedbackStore(path)
    store.record_answer(answer(), [5])
    store.vote(5, 123456789012345678, -1)
    assert b"123456789012345678" not in path.read_bytes()
    again = FeedbackStore(path)  # a restart: same key, same hash, same vote
    assert again.user_hash(123456789012345678) == store.user_hash(123456789012345678)
    assert again.vote(5, 123456789012345678, 1) and [f.vote for f in again.feedback()] == [1]


def test_export_writes_eval_lines(tmp_path):
    from papernotes.retrieval.evaluate import load_questions

    store = FeedbackStore(tmp_path / "f.sqlite")
    store.record_answer(answer("good one?"), [1])
    store.record_answer(answer("bad one?"), [2])
    store.vote(1, 1, 1)
    store.vote(2, 1, -1)
    out = tmp_path / "x.jsonl"
    assert store.export_eval(out) == 2
    rows = {r["question"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["good one?"]["gold_titles"] == ["Quokka: Paged Attention"] and not rows["good one?"]["needs_review"]
    assert rows["bad one?"]["gold_titles"] == [] and rows["bad one?"]["needs_review"]
    assert rows["bad one?"]["cited_titles"] == ["Quokka: Paged Attention"]
    assert len(load_questions(out)) == 2
    assert store.export_eval(out, vote=-1) == 1


def test_daily_cap_counts_per_user(tmp_path):
    cap = DailyCap(tmp_path / "u.sqlite", 2)
    assert [cap.take(1), cap.take(1), cap.take(1), cap.take(2)] == [True, True, False, True]
    assert cap.used(1) == 2 and DailyCap(tmp_path / "u.sqlite", 2).used(1) == 2  # kept across restarts
    unlimited = DailyCap(tmp_path / "v.sqlite", 0)
    assert all(unlimited.take(1) for _ in range(5))


def test_access_settings_read_id_lists_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERNOTES_DISCORD_ALLOWED_ROLES", "11, 22 33")
    monkeypatch.setenv("PAPERNOTES_DISCORD_ALLOWED_GUILDS", "44")
    monkeypatch.setenv("PAPERNOTES_DISCORD_DMS", "off")
    s = make_settings(tmp_path)
    assert s.discord_allowed_roles == [11, 22, 33] and s.discord_allowed_guilds == [44]
    assert s.discord_allowed_channels == [] and s.discord_dms == "off"
