"""A question asked in Chinese names what it asks for after its interrogative ("集群用的是什么 *cpu*", "每秒
多少 *token*"; :data:`~papernotes.retrieval.question.CJK_FOCUS_RE`): the named paper's notes that never
write that word do not answer it, however well they match the rest; notes that write it do. A focus
written in Chinese ("用什么*语言*写的") is none: English notes write it in other words. The words a Chinese
question types in Latin letters are the field's terms, read whether the notes write them or not."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.retrieval.prompts import REFUSAL
from papernotes.retrieval.question import question_focus
from papernotes.retrieval.terms import Key, lexical_terms

CLUSTER = """---
title: "Wallabyreduce: Simplified Data Processing on Large Clusters"
paper: "https://example.org/wallabyreduce.pdf"
---

Wallabyreduce 是一个编程模型加上对应的实现：用户只需要写一个 map 函数和一个 reduce 函数，运行时系统负责把计算
自动并行到由普通 PC 组成的大集群上。实验在大约 1800 台机器的集群上做，每台机器有 4GB 内存和两块 IDE 硬盘。
排序 1TB 数据用了 891 秒。
"""

SERVING = """---
title: "Koalaserve: Serving LLMs on One Consumer GPU"
paper: "https://example.org/koalaserve.pdf"
---

Koalaserve 把热神经元放在 GPU 上、冷神经元放在 CPU 上。在一块 RTX 4090 上跑 OPT-175B，每秒生成 13 个 token，
比 llama.cpp 快 11 倍。实验用的 CPU 是 Intel Xeon Gold 6230。
"""

CONSENSUS = """---
title: "Possumraft: An Understandable Consensus Algorithm"
paper: "https://example.org/possumraft.pdf"
---

Possumraft 把共识拆成 leader election、log replication 和 safety 三个子问题。leader 的心跳超时随机取 150–300 ms，
避免选票分裂。用户研究里 43 个学生有 33 个觉得 Possumraft 比 Paxos 好懂。
"""

VISION = """---
title: "Emuformer: An Image is Worth 16x16 Words"
paper: "https://example.org/emuformer.pdf"
---

Emuformer 把图片切成 16x16 的 patch，当作 token 序列送进标准 Transformer encoder。在 JFT-300M 上预训练后，
ImageNet top-1 准确率 88.55%。数据少的时候不如 ResNet，因为缺少 CNN 的归纳偏置。
"""

STORE = """---
title: "Numbatdb: Amazon's Highly Available Key-value Store"
paper: "https://example.org/numbatdb.pdf"
---

Numbatdb 用 consistent hashing 做分区，用 vector clock 处理版本冲突，选择 eventual consistency 换取高可用。
读写用 sloppy quorum 和 hinted handoff，N、R、W 三个参数可以按业务调。
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {
        "wallabyreduce.md": CLUSTER,
        "koalaserve.md": SERVING,
        "possumraft.md": CONSENSUS,
        "emuformer.md": VISION,
        "numbatdb.md": STORE,
    }
    return notes_from_texts(tmp_path_factory.mktemp("cjk-focus"), files, models_cache)


@pytest.mark.parametrize(
    "question",
    [
        "wallabyreduce 集群用的是什么 cpu",
        "wallabyreduce 的机器用的是哪款 CPU？",
        "emuformer 预训练用了多少 gpu",
        "possumraft 用的是什么 cpu",
        "wallabyreduce 用的是什么 encoder",
    ],
)
def test_a_focus_the_papers_notes_never_write_counts_against(notes, question):
    # the word is in the notes (another paper's), so it is read; the named paper's notes lack it
    assert notes.analyze(question).features["focus_cov"] == 0.0


@pytest.mark.parametrize(
    "question",
    [
        "emuformer 预训练用了多少 gpu",
        "possumraft 用的是什么 cpu",
        "wallabyreduce 用的是什么 encoder",
        # a word in Latin letters that no note writes is read too: the field's terms, typed in English
        "possumraft 用的是什么 mutex",
        "wallabyreduce 集群用的是什么 ssd",
        "koalaserve 每秒多少 qps",
    ],
)
def test_a_focus_the_notes_never_write_is_refused(notes, question):
    a = notes.ask(question, use_llm=False)
    assert a.refused and a.answer.startswith(REFUSAL), a.answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("koalaserve 实验用的是什么 cpu", "Xeon"),
        ("koalaserve 每秒多少 token", "13 个 token"),
        ("wallabyreduce 集群有多少台机器", "1800"),
    ],
)
def test_a_focus_the_notes_write_is_answered(notes, question, expected):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert expected in a.answer


def _keys(words: str) -> list[Key]:
    return [Key(w, ((t,),)) for w in words.split() for t in lexical_terms(w) or [w]]


@pytest.mark.parametrize(
    ("question", "asked", "focus"),
    [
        ("mapreduce 集群用的是什么 cpu", "集群 cpu", ["cpu"]),
        ("KTransformers 跑 DeepSeek-V3 每秒多少 token?", "deepseek-v3 token", ["token"]),
        ("SkVM 用的是什么 GPU 做实验？", "gpu 实验", ["gpu"]),
        ("FlexLLM 能省多少 GPU 显存?", "gpu 显存", ["gpu"]),
        # a focus written in Chinese is none
        ("LithOS 是谁做的?用什么语言写的?", "语言", []),
        ("Jenga 是在哪个框架上实现的？", "框架 实现", []),
    ],
)
def test_the_focus_after_a_chinese_interrogative(question, asked, focus):
    assert [k.word for k in question_focus(question, _keys(asked))] == focus
