"""SCARCE augmentation: corpora, three-field BM25 retrieval (against an independent BM25 and a
brute-force ranking), commonsense templates (the paper's examples), the pipeline and the CLI."""

from __future__ import annotations

import inspect
import json
import math
import pydoc
import re

import numpy as np
import pytest
from conftest import shared_path

from diveval.augment import (
    BM25Retriever,
    Dialogue,
    DialogueCorpus,
    IdentityAdapter,
    Inference,
    PrecomputedKnowledge,
    Query,
    augment,
    load_chitchat,
    read_dailydialog_plusplus,
    read_dialogues_jsonl,
    read_multirefeval,
    to_sentence,
)
from diveval.augment.pipeline import iter_augmented
from diveval.errors import InputError

# ---------------------------------------------------------------- templates


@pytest.mark.parametrize(
    "relation,text,sentence",
    [
        ("oEffect", "excited", "I feel excited."),  # the paper's examples (GUIDE section 2)
        ("oWant", "to thank PersonX", "I want to thank you."),
        ("oReact", "have a party", "I will have a party."),
        (
            "oWant",
            "thank personx .",
            "I want to thank you.",
        ),  # "to" added, PersonX any case, final period
        ("oEffect", "  gets  PersonX 's  help ", "I feel gets you 's help."),
    ],
)
def test_templates(relation, text, sentence):
    assert to_sentence(Inference(relation, text)) == sentence


def test_template_none_and_unknown_relation():
    assert to_sentence(Inference("oReact", "none")) is None
    assert to_sentence(Inference("oReact", " . ")) is None
    with pytest.raises(InputError, match="no template for relation 'xIntent'"):
        to_sentence(Inference("xIntent", "to sleep"))
    assert (
        to_sentence(Inference("xIntent", "to sleep"), {"xIntent": "You wanted {}."})
        == "You wanted to sleep."
    )


def test_precomputed_knowledge(tmp_path):
    p = tmp_path / "comet.jsonl"
    p.write_text(
        '{"id": "7_1", "relation": "oWant", "text": "to thank PersonX"}\n'
        '{"utterance": "I passed the exam!", "relation": "oReact", "text": "happy"}\n'
        '{"id": "7_1", "relation": "xIntent", "text": "to pass"}\n'
    )
    k = PrecomputedKnowledge(str(p), relations=["oWant", "oReact"])
    assert k.infer(["x"], "7_1") == [Inference("oWant", "to thank PersonX")]
    assert k.infer(["hi", "i passed the exam"], None) == [Inference("oReact", "happy")]
    assert k.infer(["nothing"], "8_0") == []
    p.write_text('{"id": 1, "relation": "oWant"}\n')
    with pytest.raises(InputError, match=r"comet.jsonl:1: .*relation"):
        PrecomputedKnowledge(str(p))


# ---------------------------------------------------------------- retrieval

TOK = re.compile(r"(?u)\b\w\w+\b")


def _corpus():
    dialogues = [
        Dialogue(
            "d0",
            (
                "do you like pizza",
                "yes pizza with cheese is great",
                "me too cheese rules",
                "what about pasta",
                "pasta is fine",
            ),
        ),
        Dialogue(
            "d1",
            (
                "where do you live",
                "i live near the beach",
                "the beach sounds lovely",
                "yes we swim daily",
            ),
        ),
        Dialogue(
            "d2",
            (
                "do you like pizza",
                "pizza is my favourite food",
                "cheese pizza or pepperoni",
                "pepperoni always",
            ),
        ),
        Dialogue("d3", ("i love cheese", "cheese pizza is great", "pizza with friends is fun")),
    ]
    return DialogueCorpus(tuple(Dialogue(d.id, d.turns, "toy") for d in dialogues), "toy")


def _bm25_fields(corpus, window):
    """Independent BM25 (lucene variant): idf = ln(1 + (N - df + .5)/(df + .5)),
    tf / (tf + k1 (1 - b + b dl/avgdl)); per field, over the candidate turns."""
    cands, fields = [], ([], [], [])
    for d in corpus:
        for t in range(d.respond_from, len(d.turns)):
            cands.append((d, t))
            fields[0].append(" ".join(d.turns[max(0, t - window) : t]))
            fields[1].append(d.turns[t])
            fields[2].append(" ".join(d.turns[t + 1 : t + 1 + window]))
    return cands, [[TOK.findall(x.lower()) for x in f] for f in fields]


def _bm25(docs, query, k1=0.5, b=0.7):
    N = len(docs)
    avgdl = sum(map(len, docs)) / N
    out = np.zeros(N)
    for w in set(TOK.findall(query.lower())):
        df = sum(1 for d in docs if w in d)
        if df == 0:
            continue
        idf = math.log(1 + (N - df + 0.5) / (df + 0.5))
        for i, d in enumerate(docs):
            tf = d.count(w)
            if tf:
                out[i] += idf * tf / (tf + k1 * (1 - b + b * len(d) / avgdl))
    return out


def test_retrieval_equals_brute_force_three_field_bm25():
    corpus = _corpus()
    r = BM25Retriever(corpus, stopwords=None)
    cands, fields = _bm25_fields(corpus, 2)
    q = Query("do you like pizza", "i like cheese pizza", "pepperoni is great")
    want_scores = [_bm25(fields[f], text) for f, text in enumerate((q.past, q.response, q.future))]
    for f in range(3):
        np.testing.assert_allclose(
            r.field_scores(f, (q.past, q.response, q.future)[f]), want_scores[f], rtol=1e-5
        )
    # brute force: all three fields > 0, Sim = sum of logs, highest first, distinct responses,
    # a candidate whose past duplicates the query's past left out
    sims = []
    for i, (d, t) in enumerate(cands):
        s = [want_scores[f][i] for f in range(3)]
        if " ".join(d.turns[max(0, t - 2) : t]) == q.past:
            continue
        if min(s) > 0:
            sims.append((-sum(map(math.log, s)), d.turns[t]))
    want = [text for _, text in sorted(sims)]
    got = r.search(q, k=10)
    assert [x.text for x in got] == want[:10]
    assert [x.score for x in got] == pytest.approx([-s for s, _ in sorted(sims)][:10], rel=1e-5)
    assert all(min(x.field_scores) > 0 for x in got)


def test_zero_rule_floor_keeps_partial_matches_below_full_ones():
    corpus = _corpus()
    q = Query("do you like pizza", "i like cheese pizza", "pepperoni is great")
    drop = BM25Retriever(corpus, stopwords=None).search(q, k=20)
    floor = BM25Retriever(corpus, stopwords=None, zero="floor", floor=1e-3).search(q, k=20)
    assert len(floor) > len(drop)
    assert [x.text for x in floor[: len(drop)]] == [x.text for x in drop]
    assert any(min(x.field_scores) == 0 for x in floor)


def test_empty_query_field_is_left_out():
    r = BM25Retriever(_corpus(), stopwords=None)
    got = r.search(Query("", "cheese pizza", ""), k=3)
    assert got and all(x.score == pytest.approx(math.log(x.field_scores[1])) for x in got)


def test_exclusions_own_dialogue_duplicate_context_and_copies():
    corpus = _corpus()
    r = BM25Retriever(corpus, stopwords=None)
    q = Query("do you like pizza", "pizza is my favourite food", "cheese pizza or pepperoni")
    base = r.search(q, k=10)
    assert base and all((x.dialogue_id, x.turn) != ("d2", 1) for x in base)  # same past: excluded
    assert any(
        (x.dialogue_id, x.turn) == ("d2", 1)
        for x in r.search(Query("", q.response, q.future), k=10)
    )
    own = r.search(Query(q.past, q.response, q.future, dialogue_id="d3", source="toy"), k=10)
    assert all(x.dialogue_id != "d3" for x in own)
    # a dialogue sharing a turn of >= 5 words with the query's dialogue is excluded as a copy
    copies = r.search(
        Query(q.past, q.response, q.future, own_turns=("yes pizza with cheese is great",)), k=10
    )
    assert all(x.dialogue_id != "d0" for x in copies)
    assert len({x.text for x in base}) == len(base)


def test_retriever_rejects_bad_settings():
    with pytest.raises(InputError):
        BM25Retriever(_corpus(), zero="ignore")
    with pytest.raises(InputError):
        BM25Retriever(_corpus()).search(Query("a", "b"), k=0)


# ---------------------------------------------------------------- corpora


def test_read_dialogues_jsonl(tmp_path):
    p = tmp_path / "d.jsonl"
    p.write_text('{"id": "x", "turns": ["hi", {"text": "hello"}]}\n{"dialogue": ["a", "b"]}\n')
    c = read_dialogues_jsonl(str(p))
    assert [d.turns for d in c] == [("hi", "hello"), ("a", "b")] and c[1].id == "2"
    p.write_text('{"turns": "not a list"}\n')
    with pytest.raises(InputError, match=r"d.jsonl:1:"):
        read_dialogues_jsonl(str(p))


def test_read_dailydialog_plusplus_layout():
    c = read_dailydialog_plusplus(str(shared_path("dailydialog-plusplus", "dev.json")))
    first = json.loads(shared_path("dailydialog-plusplus", "dev.json").read_text().splitlines()[0])
    main = c.by_id(str(first["id"]))
    assert main.turns == tuple(first["context"] + first["positive_responses"][:1])
    alt = c.by_id(f"{first['id']}/1")
    assert (
        alt.turns[-1] == first["positive_responses"][1] and alt.respond_from == len(alt.turns) - 1
    )


def test_read_multirefeval_matches_rating_file():
    c = read_multirefeval(str(shared_path("multirefeval", "multireftest.json")))
    assert len(c) == 1000
    d = c.by_id("73")  # context_id 73_4: the reference is the reply to turn 4
    assert d.references[4][0] == "then tell me something about your background ."


def test_chitchat_sizes():
    pytest.importorskip("chitchat_dataset")
    c = load_chitchat(unit="utterance")
    assert len(c) == 7168 and c.n_turns == 258145


# ---------------------------------------------------------------- pipeline and CLI


def test_augment_pipeline_records_sources(tmp_path):
    k = tmp_path / "k.jsonl"
    k.write_text('{"id": "q1", "relation": "oReact", "text": "have a party"}\n')
    items = [
        {
            "id": "q1",
            "context": "where do you live||||i live near the beach",
            "prevgt": "the beach sounds nice",
            "response": "ok",
        },
        {
            "id": "q1",
            "context": ["where do you live", "i live near the beach"],
            "reference": "the beach sounds nice",
            "response": "other system",
            "references": ["the beach sounds nice", "lovely"],
        },
    ]
    r = BM25Retriever(_corpus(), stopwords=None)
    out = augment(items, r, k=2, knowledge=PrecomputedKnowledge(str(k)), adapter=IdentityAdapter())
    added = out[0]["added_references"]
    assert [a["source"] for a in added][-1] == "commonsense" and added[-1][
        "text"
    ] == "I will have a party."
    assert all("score" in a and "bm25" in a for a in added if a["source"] == "retrieval")
    assert out[0]["references"][0] == "the beach sounds nice"
    assert out[1]["references"][:2] == ["the beach sounds nice", "lovely"]
    assert len(out[1]["references"]) == len(set(out[1]["references"]))
    with pytest.raises(InputError, match="item 0"):
        augment([{"context": ["a"]}], r)


def test_cli_augment_writes_audit_file(tmp_path, capsys):
    from diveval.cli import main

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": d.id, "turns": list(d.turns)}) + "\n" for d in _corpus())
    )
    items = tmp_path / "items.jsonl"
    items.write_text(
        json.dumps(
            {
                "context": ["do you like pizza"],
                "reference": "cheese pizza is great",
                "future": ["pepperoni always"],
                "response": "yes",
            }
        )
        + "\n"
    )
    out = tmp_path / "out.jsonl"
    assert (
        main(
            [
                "augment",
                str(items),
                "--corpus",
                str(corpus),
                "--k",
                "2",
                "--out",
                str(out),
                "--keep-stopwords",
                "--json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    rec = json.loads(out.read_text().splitlines()[0])
    assert summary["items"] == 1 and 1 <= len(rec["added_references"]) <= 2
    assert rec["references"][0] == "cheese pizza is great"
    assert (
        main(
            ["augment", str(tmp_path / "missing.jsonl"), "--corpus", str(corpus), "--out", str(out)]
        )
        == 2
    )


def test_augment_declares_the_parameters_of_iter_augmented():
    """augment passes its arguments on to iter_augmented: help() and inspect list the same
    parameters (names, kinds, defaults, annotations), not ``*args, **options``."""
    ours, theirs = inspect.signature(augment), inspect.signature(iter_augmented)
    assert list(ours.parameters.values()) == list(theirs.parameters.values())
    assert "retriever" in ours.parameters and "k" in ours.parameters
    assert ours.parameters["k"].default == 10
    assert ours.return_annotation == "list[dict]"  # its own: all items at once
    assert "retriever" in pydoc.render_doc(augment)
