"""A question that describes a paper without naming it and names another as context ("… how much does
it beat torch.compile by on the three KernelBench levels?") is about the paper it describes: the one of
the top passages that names the other and holds most of what is asked, when the named paper's own
notes hold almost none of it (retrieval/answerability.described_paper)."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.retrieval.prompts import REFUSAL

PAGE = """# Kernel Generation

## Benchmarks

* KernelBench: Can LLMs Write Efficient GPU Kernels? \\[[arXiv](https://arxiv.org/abs/2502.10517)]
  * Stanford
  * Cover 250 tasks spanning single-kernel operators, simple fusion patterns, and full model architectures.

## Agents

* CUDA Agent: Large-Scale Agentic RL for High-Performance CUDA Kernel Generation
  * ByteDance Seed & Tsinghua AIR
  * Combine scalable data synthesis with a skill-augmented CUDA development environment.
  * Train the policy on 128 GPUs with a sandboxed reward.
  * Outperform torch.compile by 100%, 100%, and 92% on the three KernelBench levels.
* AutoKernel: Autonomous GPU Kernel Optimization via Iterative Agent-Driven Search
  * RightNow AI
  * Start from end-to-end PyTorch models and rank kernels worth optimizing with Amdahl's law.
  * Validate each candidate through a five-stage correctness pipeline.
"""

SERVING = """## Serving

* vLLM: Efficient Memory Management for Large Language Model Serving with PagedAttention
  * UC Berkeley
  * Store the KV cache in fixed-size blocks managed like virtual memory pages.
* Agentix: An Efficient Serving Engine for LLM Agents as General Programs
  * UC Berkeley & SJTU
  * Treat agent programs as first-class scheduling entities and intercept the LLM calls they issue.
  * Improve program throughput by 4x to 15x at the same latency compared with systems such as vLLM.
* PyTorch: An Imperative Style, High-Performance Deep Learning Library
  * FAIR
  * Define-by-run execution with a Python-first design.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {"kernels.md": PAGE + "\n" + SERVING}
    return notes_from_texts(tmp_path_factory.mktemp("described"), files, models_cache)


@pytest.mark.parametrize(
    "question, paper, figure",
    [
        (
            "ByteDance Seed built a large-scale agentic reinforcement-learning system for generating "
            "high-performance CUDA kernels with scalable data synthesis. How much does it beat torch.compile "
            "by on the three KernelBench levels?",
            "CUDA Agent",
            "92%",
        ),
        (
            "There is a serving engine that treats agent programs as first-class scheduling entities and "
            "intercepts their LLM calls. What program-throughput gain does it report at the same latency "
            "compared with vLLM?",
            "Agentix",
            "4x to 15x",
        ),
        (
            "is there a kernel optimizer that starts from an end-to-end pytorch model, ranks kernels with "
            "amdahl's law and validates candidates through a five-stage correctness pipeline? who built it",
            "AutoKernel",
            "RightNow AI",
        ),
    ],
)
def test_the_described_paper_answers_not_the_one_named_as_context(notes, question, paper, figure):
    answer = notes.ask(question)
    assert figure in answer.answer
    cited = {c.paper_title.split(":")[0] for c in answer.citations if c.paper_title}
    assert paper in cited
    assert not cited & {"KernelBench", "PyTorch", "vLLM"}


def test_a_short_question_about_the_named_paper_stays_with_it(notes):
    # another paper's notes name KernelBench and a GPU count; two words describe no paper
    answer = notes.ask("how many gpus did kernelbench experiments use")
    assert "128" not in answer.answer
    assert answer.answer.startswith(REFUSAL) or "KernelBench" in answer.answer


def test_a_question_about_the_named_paper_itself_stays_with_it(notes):
    answer = notes.ask("how many tasks does kernelbench cover?")
    assert "250" in answer.answer
