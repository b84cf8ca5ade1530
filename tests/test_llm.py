"""Grounded LLM answers (retrieval/llm.py, retrieval/prompt_builder.py).

Unit tests use LangChain's fake chat models in place of ChatOpenAI (cited sources, grounding, refusal,
context budget, condensing). Integration tests use the real openai client through ChatOpenAI against
the loopback ``OpenAICompatServer``, end to end through ``papernotes ask`` subprocesses (run a few at
a time by one module fixture, each against its own server) for what a user sees. The retry/timeout
policy is tested in process in test_chat_model.py, the citation-marker parser in test_citations.py and
token counting in test_tokens.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import make_settings
from langchain_core.language_models.fake_chat_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage
from openai_server import (
    Behaviour,
    Hang,
    OpenAICompatServer,
    QuotaExceeded,
    RateLimited,
    Reply,
    ServerError,
    StallMidStream,
)

from papernotes.retrieval import llm, prompt_builder
from papernotes.retrieval.errors import ModelUnavailableError
from papernotes.retrieval.filters import Filters
from papernotes.retrieval.prompts import ANSWER_SYSTEM, CONDENSE_SYSTEM, REFUSAL, UNGROUNDED_NOTE
from papernotes.retrieval.search import Hit, SearchResult
from papernotes.retrieval.tokens import count_tokens

BIN = Path(sys.executable).parent
QUESTION = "What throughput does Quokka reach?"
TIMEOUT = 1.0  # PAPERNOTES_LLM_TIMEOUT in these tests, seconds


def make_hit(i: int, body: str | None = None, venue: str | None = "ToySys 2026") -> Hit:
    body = body if body is not None else f"Fact number {i} about system S{i}."
    meta = {
        "page_title": f"Paper {i}",
        "section": "Evaluation",
        "paper_title": f"Paper {i}",
        "kind": "deep_note",
        "source": f"notes/p{i}.md",
    }
    if venue:
        meta["venue"] = venue
    return Hit(id=f"id{i}", text=f"Paper {i} › Evaluation\n{body}", metadata=meta, score=1.0 / i, rank=i)


def make_result(n: int = 3, **kw) -> SearchResult:
    return SearchResult(query=QUESTION, hits=[make_hit(i, **kw) for i in range(1, n + 1)], filters=Filters())


def fake(*replies: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=r) for r in replies]))


@pytest.fixture
def settings(tmp_path):
    return make_settings(tmp_path / "data", openai_base_url="http://127.0.0.1:9/v1", llm_timeout=TIMEOUT)


# --------------------------------------------------------------------------------------------------
# answers: cited sources, grounding, refusal
# --------------------------------------------------------------------------------------------------


def test_llm_answer_lists_only_cited_sources_renumbered(settings):
    res = make_result(3)
    a = llm.llm_answer(QUESTION, QUESTION, res, settings, model=fake("S3 is fast [3]. S2 is new [2][3]. Bad [9]."))
    assert a.mode == "llm" and a.grounded and not a.refused
    assert a.answer == "S3 is fast [1]. S2 is new [2][1]. Bad."
    assert [(c.n, c.page_title) for c in a.citations] == [(1, "Paper 3"), (2, "Paper 2")]
    assert a.dropped_citations == 1
    assert len(a.retrieved) == 3  # everything retrieved is still listed as retrieved
    assert a.model_text is not None and a.model_text.endswith("Bad [9].")


def test_reply_without_markers_is_not_grounded(settings):
    a = llm.llm_answer(QUESTION, QUESTION, make_result(3), settings, model=fake("S1 reaches 3.7x throughput."))
    assert a.grounded is False and a.citations == [] and a.mode == "llm"


@pytest.mark.parametrize("reply", [REFUSAL, "The notes don\u2019t cover this. [1]", "**The notes do not cover this.**"])
def test_refusal_reply_gives_refused_answer_without_citations(settings, reply):
    a = llm.llm_answer(QUESTION, QUESTION, make_result(3), settings, model=fake(reply))
    assert a.refused and a.answer == REFUSAL and a.citations == [] and a.mode == "llm"


def test_an_answer_that_mentions_the_notes_is_not_a_refusal():
    assert not llm.is_refusal("The notes describe S1 [1]. They don't cover this detail fully.")


def test_empty_reply_is_model_unavailable(settings):
    with pytest.raises(ModelUnavailableError, match="empty"):
        llm.llm_answer(QUESTION, QUESTION, make_result(2), settings, model=fake("   "))


def test_streaming_passes_pieces_then_validates(settings):
    pieces: list[str] = []
    reply = "S2 is described here [2] and nowhere else [5]."
    a = llm.llm_answer(QUESTION, QUESTION, make_result(3), settings, on_token=pieces.append, model=fake(reply))
    assert len(pieces) > 3 and "".join(pieces) == reply == a.model_text
    assert a.answer == "S2 is described here [1] and nowhere else."
    assert [c.page_title for c in a.citations] == ["Paper 2"]


def test_prompt_holds_numbered_sources_with_title_section_and_venue(settings):
    p = prompt_builder.build_messages(QUESTION, make_result(2).hits, settings)
    assert p.messages[0].content == ANSWER_SYSTEM
    user = str(p.messages[1].content)
    assert '<source id="1">\nPaper 1 › Evaluation (ToySys 2026)\nFact number 1 about system S1.\n</source>' in user
    assert '<source id="2">\nPaper 2 › Evaluation (ToySys 2026)\nFact number 2 about system S2.\n</source>' in user
    assert user.rstrip().endswith(f"<question>{QUESTION}</question>")


# --------------------------------------------------------------------------------------------------
# context budget
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("context,answer", [(512, 64), (2048, 700), (8192, 700)])
@pytest.mark.parametrize("k,chars", [(1, 40), (5, 3000), (20, 600), (50, 20000)])
def test_prompt_never_exceeds_the_budget(tmp_path, context, answer, k, chars):
    s = make_settings(tmp_path / "d", llm_context_tokens=context, llm_answer_tokens=answer)
    body = ("Quokka pages the KV cache into 16-token blocks; throughput 3.7x. " * (chars // 60 + 1))[:chars]
    hits = [make_hit(i, body) for i in range(1, k + 1)]
    budget = context - answer
    strict = lambda t: -(-len(t) // 2)  # noqa: E731 - a much stricter counter: 1 token per 2 characters
    for count in (count_tokens, strict):
        p = prompt_builder.build_messages(QUESTION, hits, s, count=count)
        assert prompt_builder.messages_tokens(p.messages, count) <= budget
        assert 1 <= len(p.hits) <= k and p.hits == hits[: len(p.hits)]  # rank order, a prefix
        user = str(p.messages[1].content)
        assert [int(n) for n in re.findall(r'^<source id="(\d+)">\nPaper', user, re.M)] == list(
            range(1, len(p.hits) + 1)
        )
        assert user.count("</source>") == len(p.hits)
        if len(p.hits) < k:  # something was left out: the budget is used up to the minimum source size
            assert (
                prompt_builder.messages_tokens(p.messages, count)
                > budget - prompt_builder.MIN_SOURCE_TOKENS - 3 * count(" ") - 40
            )


def test_everything_fits_in_a_large_context(tmp_path):
    s = make_settings(tmp_path / "d", llm_context_tokens=100_000)
    p = prompt_builder.build_messages(QUESTION, make_result(10).hits, s)
    assert len(p.hits) == 10 and not p.truncated


def test_last_source_is_truncated_not_dropped(tmp_path):
    s = make_settings(tmp_path / "d", llm_context_tokens=1024, llm_answer_tokens=64)
    hits = [make_hit(i, "word " * 400) for i in range(1, 4)]
    p = prompt_builder.build_messages(QUESTION, hits, s)
    assert p.truncated and p.messages[1].content.count(" …") == 1


def test_question_longer_than_the_context_is_model_unavailable(tmp_path):
    s = make_settings(tmp_path / "d", llm_context_tokens=512, llm_answer_tokens=400)
    with pytest.raises(ModelUnavailableError, match="no room for sources"):
        prompt_builder.build_messages("why " * 300, make_result(3).hits, s)


def test_the_request_sent_over_http_fits_the_budget(tmp_path):
    """k=50 chunks of ~12,000 characters each with a 1,024-token context: what reaches the server (as
    ChatOpenAI serialized it) fits, counted as the packer counts."""
    with OpenAICompatServer() as server:
        s = make_settings(
            tmp_path / "d",
            openai_base_url=server.base_url,
            llm_context_tokens=1024,
            llm_answer_tokens=128,
            llm_timeout=5,
        )
        res = SearchResult(
            QUESTION, [make_hit(i, "KV blocks of 16 tokens raise throughput. " * 300) for i in range(1, 51)]
        )
        a = llm.llm_answer(QUESTION, QUESTION, res, s)
        body = server.chat_requests()[0]["body"]
    sent = sum(count_tokens(m["content"]) + prompt_builder.MESSAGE_OVERHEAD_TOKENS for m in body["messages"])
    assert sent + prompt_builder.REPLY_PRIMING_TOKENS <= 1024 - 128
    assert body["max_completion_tokens"] == 128
    assert a.citations and a.citations[0].page_title == "Paper 1"  # the server's default reply cites [1]


# --------------------------------------------------------------------------------------------------
# condensing a follow-up
# --------------------------------------------------------------------------------------------------


def test_condense_question_cleans_the_reply(settings):
    model = FakeListChatModel(responses=['Standalone question: "How was Quokka evaluated?"\n'])
    history = [("What throughput does Quokka reach?", "Quokka reaches 3.7x [1].")]
    assert llm.condense_question("How was it evaluated?", history, settings, model=model) == "How was Quokka evaluated?"


def test_condense_question_prompt_has_the_history(tmp_path):
    history = [("What throughput does Quokka reach?", "Quokka reaches 3.7x [1].")]
    with OpenAICompatServer(default=Reply("How was Quokka evaluated?")) as server:
        s = make_settings(tmp_path / "d", openai_base_url=server.base_url, llm_timeout=TIMEOUT)
        out = llm.condense_question("How was it evaluated?", history, s)
        msgs = server.chat_requests()[0]["body"]["messages"]
    assert out == "How was Quokka evaluated?"
    assert msgs[0]["content"] == CONDENSE_SYSTEM
    assert (
        "<turn>\nUser: What throughput does Quokka reach?\nAssistant: Quokka reaches 3.7x [1].\n</turn>"
        in (msgs[1]["content"])
    )
    assert "<question>How was it evaluated?</question>" in msgs[1]["content"]


def test_condense_question_rejects_an_empty_rewrite(settings):
    with pytest.raises(ModelUnavailableError, match="standalone question"):
        llm.condense_question("and then?", [("q", "a")], settings, model=FakeListChatModel(responses=['""']))


# --------------------------------------------------------------------------------------------------
# end to end: `papernotes ask` against the loopback server
# --------------------------------------------------------------------------------------------------


def _source2_fact(messages: list[dict]) -> str:
    """The model cites [1] for a fact that only source 2 states."""
    m = re.search(r'^<source id="2">\n.*\n(.+)$', messages[-1]["content"], re.M)
    assert m, messages[-1]["content"]
    return f"{m.group(1).strip(' -')} [1]"


def _cite_1_and_4(messages: list[dict]) -> str:
    assert '<source id="3">' in messages[-1]["content"] and '<source id="4">' not in messages[-1]["content"]
    return "Quokka reaches 3.7x higher throughput [1]. It was evaluated on Koala GPUs [4]."


#: name → (behaviours queued, extra CLI args, PAPERNOTES_LLM_MAX_RETRIES)
SCENARIOS: dict[str, tuple[list[Behaviour], list[str], int]] = {
    "cites_4_of_3": ([Reply(responder=_cite_1_and_4)], ["--json"], 2),
    "cites_1_for_source_2": ([Reply(responder=_source2_fact)], ["--json"], 2),
    "no_markers": ([Reply("Quokka reaches 3.7x higher throughput.")], ["--json"], 2),
    "refusal": ([Reply(REFUSAL)], ["--json"], 2),
    "rate_limited": ([RateLimited(retry_after=1), Reply("Quokka reaches 3.7x [1].")], ["--json"], 2),
    "quota": ([QuotaExceeded()], ["--json"], 2),
    "server_errors": ([ServerError(), ServerError(), ServerError()], ["--json"], 2),
    "hang": ([Hang()], ["--json"], 2),
    "stall_stream": ([StallMidStream(after_chunks=2, text="Quokka pages its cache and then stalls.")], [], 2),
}


def _run_scenario(name: str, data_dir: Path, cwd: Path) -> dict:
    behaviours, extra, retries = SCENARIOS[name]
    with OpenAICompatServer() as server:
        server.enqueue(*behaviours)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAPERNOTES_"))}
        env.update(
            OPENAI_BASE_URL=server.base_url,
            PAPERNOTES_DATA_DIR=str(data_dir),
            PAPERNOTES_LLM_TIMEOUT=str(TIMEOUT),
            PAPERNOTES_LLM_MAX_RETRIES=str(retries),
            PAPERNOTES_LLM_MODEL="test-model",
            NO_COLOR="1",
            PYTHONUNBUFFERED="1",
        )
        p = subprocess.Popen(
            [str(BIN / "papernotes"), "ask", QUESTION, "--k", "3", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
        )
        chunks, written = [], None
        assert p.stdout is not None and p.stderr is not None
        while chunk := os.read(p.stdout.fileno(), 65536):  # the time of the last output excludes interpreter teardown
            chunks.append(chunk)
            written = time.monotonic()
        stderr = p.stderr.read().decode()
        rc = p.wait(timeout=60)
        stdout = b"".join(chunks).decode()
        return {
            "stdout": stdout,
            "stderr": stderr,
            "rc": rc,
            "written": written,
            "requests": server.chat_requests(),
            "json": json.loads(stdout) if "--json" in extra and rc == 0 else None,
        }


@pytest.fixture(scope="module")
def cli_runs(fixture_index, tmp_path_factory):
    """Every scenario's CLI run, three processes at a time (each ~4 s, mostly start-up)."""
    cwd = tmp_path_factory.mktemp("cli-llm")
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {n: pool.submit(_run_scenario, n, fixture_index.data_dir, cwd) for n in SCENARIOS}
        return {n: f.result() for n, f in futures.items()}


def _ok(run: dict) -> dict:
    assert run["rc"] == 0, run["stderr"]
    assert "Traceback" not in run["stderr"] + run["stdout"]
    return run["json"]


def test_cli_drops_a_citation_of_a_source_not_given(cli_runs):
    d = _ok(cli_runs["cites_4_of_3"])
    assert d["mode"] == "llm" and d["dropped_citations"] == 1 and d["grounded"]
    assert "[4]" not in d["answer"] and d["answer"].count("[1]") == 1
    assert len(d["citations"]) == 1 and d["citations"][0]["section"] == d["retrieved"][0]["section"]


def test_cli_lists_only_the_cited_source(cli_runs):
    run = cli_runs["cites_1_for_source_2"]
    d = _ok(run)
    prompt = run["requests"][0]["body"]["messages"][-1]["content"]
    assert d["mode"] == "llm" and len(d["retrieved"]) == 3 and prompt.count('<source id="3">') == 1
    # the reply states source 2's fact but cites [1]: the Sources list holds source 1 only (what was cited)
    assert [c["n"] for c in d["citations"]] == [1]
    assert d["citations"][0]["section"] == d["retrieved"][0]["section"]
    fact = d["answer"][:-4]
    source1, rest = prompt.split('<source id="1">', 1)[1].split('<source id="2">', 1)
    assert d["answer"].endswith(" [1]") and fact in rest.split('<source id="3">', 1)[0] and fact not in source1


def test_cli_reply_without_markers_gives_the_extractive_answer_with_a_note(cli_runs):
    d = _ok(cli_runs["no_markers"])
    assert d["mode"] == "extractive" and d["note"] == UNGROUNDED_NOTE
    assert "3.7x higher throughput." not in d["answer"] and d["citations"]


def test_cli_model_refusal(cli_runs):
    d = _ok(cli_runs["refusal"])
    assert d["mode"] == "llm" and d["refused"] and d["answer"] == REFUSAL and d["citations"] == []


def test_cli_rate_limit_then_success(cli_runs):
    run = cli_runs["rate_limited"]
    d = _ok(run)
    assert d["mode"] == "llm" and d["answer"] == "Quokka reaches 3.7x [1]." and d["note"] is None
    t = [r["time"] for r in run["requests"]]
    assert len(t) == 2 and t[1] - t[0] >= 0.95


def test_cli_insufficient_quota_falls_back_fast(cli_runs):
    run = cli_runs["quota"]
    d = _ok(run)
    assert d["mode"] == "extractive" and d["citations"]
    assert d["note"] == "model not used: the API key has no quota left (insufficient_quota)"
    assert len(run["requests"]) == 1
    assert run["written"] - run["requests"][0]["time"] < 2.0  # no retries waited


def test_cli_server_errors_retried_then_fallback(cli_runs):
    run = cli_runs["server_errors"]
    d = _ok(run)
    assert d["mode"] == "extractive" and "model not used: the model endpoint failed (HTTP 500)" in d["note"]
    assert len(run["requests"]) == 3


def test_cli_hang_times_out_to_fallback(cli_runs):
    run = cli_runs["hang"]
    d = _ok(run)
    assert d["mode"] == "extractive" and d["note"] == "model not used: the model did not respond within 1 s"
    assert run["written"] - run["requests"][0]["time"] < TIMEOUT + 1.5


def test_cli_stalled_model_ends_with_fallback_and_prints_nothing_unchecked(cli_runs):
    """The CLI does not stream a model's reply (it is shown once checked): a model that stalls halfway
    through its reply ends in the extractive answer, and none of its partial text is printed."""
    run = cli_runs["stall_stream"]
    assert run["rc"] == 0 and "Traceback" not in run["stderr"]
    out = run["stdout"]
    assert "Quokka pages its cache" not in out  # an unchecked reply is never printed
    assert out.startswith("Extractive answer") and "Sources" in out
    assert "note: model not used: the model did not respond within 1 s" in out
    assert run["written"] - run["requests"][0]["time"] < TIMEOUT + 1.5
