"""`papernotes chat`: an interactive session driven through a pseudo-terminal (pexpect) and through
piped stdin, with the loopback OpenAI-compatible server as the model or with no model at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from openai_server import OpenAICompatServer, Reply

from papernotes.corpus.models import PaperRecord
from papernotes.retrieval.prompts import ANSWER_SYSTEM, CLARIFY, CONDENSE_SYSTEM, REFUSAL
from papernotes.retrieval.service import carry_over

BIN = Path(sys.executable).parent
PROMPT = "you> "
FIRST = "What throughput does Quokka reach?"
FOLLOW_UP = "How was it evaluated?"


def chat_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAPERNOTES_"))}
    env.update(PAPERNOTES_DATA_DIR=str(data_dir), NO_COLOR="1", TERM="dumb", COLUMNS="200", **extra)
    return env


def spawn(args: list[str], env: dict[str, str], cwd: Path) -> pexpect.spawn:
    child = pexpect.spawn(
        str(BIN / "papernotes"),
        ["chat", *args],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 200),
    )
    child.expect_exact(PROMPT)
    return child


def turn(child: pexpect.spawn, line: str) -> str:
    """Send one line and return everything printed until the next prompt."""
    child.sendline(line)
    child.expect_exact(PROMPT)
    return child.before


def _model(messages: list[dict]) -> str:
    """The scripted model: condense calls get a standalone question, answer calls cite source 1."""
    if messages[0]["content"] == CONDENSE_SYSTEM:
        return "How was Quokka evaluated?"
    return "Quokka was evaluated on 8 Koala-100 GPUs [1]."


def test_chat_with_a_model_condenses_the_follow_up(fixture_index, tmp_path):
    with OpenAICompatServer(default=Reply(responder=_model)) as server:
        env = chat_env(
            fixture_index.data_dir,
            OPENAI_BASE_URL=server.base_url,
            PAPERNOTES_LLM_TIMEOUT="2",
            PAPERNOTES_LLM_MODEL="test-model",
        )
        child = spawn(["--k", "3"], env, tmp_path)
        out1 = turn(child, FIRST)
        assert "Quokka was evaluated on 8 Koala-100 GPUs [1]." in out1 and "Sources" in out1
        assert len(server.chat_requests()) == 1  # the first question needs no condensing

        out2 = turn(child, FOLLOW_UP)
        reqs = server.chat_requests()
        assert len(reqs) == 3
        condense = reqs[1]["body"]["messages"]
        assert condense[0]["content"] == CONDENSE_SYSTEM
        assert f"User: {FIRST}" in condense[1]["content"]
        assert f"<question>{FOLLOW_UP}</question>" in condense[1]["content"]
        answer = reqs[2]["body"]["messages"]
        assert answer[0]["content"] == ANSWER_SYSTEM
        assert answer[1]["content"].rstrip().endswith("<question>How was Quokka evaluated?</question>")
        assert "searched for: How was Quokka evaluated?" in out2
        assert "[1] Quokka" in out2

        turn(child, "/reset")
        n = len(server.chat_requests())
        turn(child, "What does Numbat spill to SSD?")  # after /reset: answered without a condense call
        new = server.chat_requests()[n:]
        assert new and all(r["body"]["messages"][0]["content"] != CONDENSE_SYSTEM for r in new)

        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0


def test_chat_without_a_model_keeps_the_paper_for_follow_ups(fixture_index, tmp_path):
    child = spawn(["--no-llm", "--k", "3"], chat_env(fixture_index.data_dir), tmp_path)
    out1 = turn(child, FIRST)
    assert "3.7x" in out1 and "Sources" in out1

    turn(child, "")  # empty lines are ignored: just a new prompt
    out2 = turn(child, FOLLOW_UP)  # carried over: still about Quokka, and its Evaluation notes
    sources = out2.split("Sources", 1)[1]
    assert "Quokka" in sources and "Evaluation" in sources and "Koala-100" in out2

    assert "conversation cleared" in turn(child, "/reset")
    out3 = turn(child, FOLLOW_UP)  # the same words with no conversation behind them
    assert "Koala-100" not in out3
    assert CLARIFY in " ".join(out3.split()) and "Sources" not in out3  # a short question back

    child.sendeof()  # Ctrl-D ends the session cleanly
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in child.before


def test_chat_from_piped_stdin_reports_errors_and_goes_on(fixture_index, tmp_path):
    lines = ["???", "/bogus", "", FIRST, "/help"]  # no /quit: end of input ends the session
    p = subprocess.run(
        [str(BIN / "papernotes"), "chat", "--no-llm"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=chat_env(fixture_index.data_dir),
        cwd=tmp_path,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    errors = p.stderr.strip().splitlines()
    assert len(errors) == 2 and errors[0].startswith("error: the question has no words")
    assert errors[1] == "error: unknown command /bogus; commands are /reset, /bad, /good, /help, /quit"
    assert "3.7x" in p.stdout and "Sources" in p.stdout and "/reset (forget the conversation)" in p.stdout
    assert "Traceback" not in p.stdout + p.stderr


def test_chat_bad_records_feedback_on_the_last_answer(fixture_index, tmp_path):
    import shutil

    from papernotes.retrieval.feedback import FeedbackStore

    data = tmp_path / "data"
    shutil.copytree(fixture_index.data_dir, data)
    lines = ["/bad", FIRST, "/bad", "/good", "/bad", "What does Numbat spill to SSD?", "/bad"]
    p = subprocess.run(
        [str(BIN / "papernotes"), "chat", "--no-llm"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=chat_env(data),
        cwd=tmp_path,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert p.stderr.strip() == "error: no answer yet to give feedback on"  # /bad before any answer
    assert p.stdout.count("feedback recorded") == 4
    votes = FeedbackStore(data / "feedback.sqlite").feedback()
    # one vote per user per answer: /bad, /good, /bad on the first answer leave one 👎
    assert [(f.question, f.vote, f.place) for f in votes] == [
        (FIRST, -1, "chat"),
        ("What does Numbat spill to SSD?", -1, "chat"),
    ]
    assert "3.7x" in votes[0].answer and votes[0].citations


def test_chat_without_an_index_is_one_line(tmp_path):
    p = subprocess.run(
        [str(BIN / "papernotes"), "chat"],
        input="hello\n",
        capture_output=True,
        text=True,
        env=chat_env(tmp_path / "empty"),
        cwd=tmp_path,
        timeout=120,
    )
    assert p.returncode != 0 and p.stderr.startswith("error: ") and len(p.stderr.strip().splitlines()) == 1


# carry-over rule (no model): unit level

PAPERS = [
    PaperRecord("Quokka: Paged Attention for Marsupial Inference", "Quokka", "ToySys 2026"),
    PaperRecord("Numbat: Tiered KV Storage for Long Contexts", "Numbat", "MLSys 2025"),
]


def test_carry_over_appends_the_previous_answers_paper():
    history = [("Which paper pages the KV cache into blocks?", "Quokka pages the KV cache into 16-token blocks [1].")]
    assert carry_over(FOLLOW_UP, history, PAPERS) == f"{FOLLOW_UP} (Quokka: Paged Attention for Marsupial Inference)"


def test_carry_over_leaves_a_follow_up_naming_its_own_paper():
    history = [(FIRST, "Quokka reaches 3.7x [1].")]
    assert carry_over("And what does Numbat do?", history, PAPERS) == "And what does Numbat do?"


@pytest.mark.parametrize(
    "prev_q,prev_a",
    [
        ("Which ToySys 2026 papers study KV caches?", "- Quokka … [1]\n- Numbat … [2]"),  # a list: keep its frame
        ("What is paged attention?", REFUSAL),  # no paper named
    ],
)
def test_carry_over_prefixes_the_previous_question_otherwise(prev_q, prev_a):
    assert carry_over(FOLLOW_UP, [(prev_q, prev_a)], PAPERS) == f"{prev_q} {FOLLOW_UP}"


@pytest.mark.parametrize(
    ("question", "follows"),
    [
        ("How was it evaluated?", True),  # refers back
        ("what datasets did they use?", True),
        ("and the latency?", True),  # too short to stand alone
        ("What does Numbat spill to SSD?", False),  # names its paper
        ("where was mlsys 2025 held", False),  # names its venue
        ("who won the turing award in 2023", False),  # says enough on its own
        ("which marsupial inference systems use paged attention", False),
        # short, but about something no note mentions: asked as typed (and refused), not tied to the paper
        ("What is the capital of Australia?", False),
        ("weather in paris?", False),
        ("best pizza in sydney", False),
        ("北京今天天气怎么样", False),  # no word of it can be read: nothing of its own to carry over
    ],
)
def test_only_a_question_that_leans_on_the_conversation_is_made_standalone(fixture_index, question, follows):
    """In a conversation, a question that names what it asks about or says enough is asked as typed:
    neither the previous paper's title nor the previous question is carried into it."""
    from conftest import make_settings

    from papernotes.retrieval.service import Notes

    notes = Notes(make_settings(fixture_index.data_dir))
    assert notes.follows_up(question) is follows
    history = [(FIRST, notes.ask(FIRST, use_llm=False).answer)]
    a = notes.ask(question, history=history, use_llm=False)
    assert (a.searched is not None) is follows, a.searched


def test_carry_over_reaches_past_a_refused_follow_up():
    """ "what is Quokka" → "what about its hardware?" (refused: names no paper) → "which venue was it
    at": the subject is still Quokka, not the refused turn's words."""
    history = [
        ("what is quokka", "Quokka: Paged Attention for Marsupial Inference (ToySys 2026) [1]"),
        ("what about its hardware?", REFUSAL),
    ]
    follow = "which venue was it at"
    assert carry_over(follow, history, PAPERS) == f"{follow} (Quokka: Paged Attention for Marsupial Inference)"
    # a list question since then ends the search: its papers are many, not one subject
    listed = [*history, ("Which ToySys 2026 papers study KV caches?", "- Numbat … [1]")]
    assert "(Quokka" not in carry_over(follow, listed, PAPERS)


@pytest.mark.parametrize("question", ["and the baselines?", "what about the evaluation?", "also the baselines?"])
def test_a_continuing_question_without_a_conversation_gets_the_question_back(fixture_index, question):
    from conftest import make_settings

    from papernotes.retrieval.service import Notes

    notes = Notes(make_settings(fixture_index.data_dir))
    a = notes.ask(question, use_llm=False)
    assert a.clarify and a.answer == CLARIFY
    # a word the notes hardly use names something: asked on its own ("and phantora?")
    assert not notes.ask("and quokka?", use_llm=False).clarify


def test_a_comparison_with_it_keeps_the_earlier_paper():
    """ "how does it compare to Numbat?" after a turn about Quokka compares the two: the named paper is
    what "it" is compared with, not the subject; a question whose pronoun is its own paper's ("how does
    Numbat spill its cache?") stands alone."""
    history = [("what is quokka", "Quokka: Paged Attention for Marsupial Inference (ToySys 2026) [1]")]
    follow = "how does it compare to Numbat?"
    assert carry_over(follow, history, PAPERS) == f"{follow} (Quokka: Paged Attention for Marsupial Inference)"
    assert carry_over("how does Numbat spill its cache?", history, PAPERS) == "how does Numbat spill its cache?"


def test_a_comparison_with_it_is_a_follow_up(fixture_index):
    from conftest import make_settings

    from papernotes.retrieval.service import Notes

    notes = Notes(make_settings(fixture_index.data_dir))
    assert notes.follows_up("how does it compare to quokka?")
    assert not notes.follows_up("how does quokka page its cache?")
