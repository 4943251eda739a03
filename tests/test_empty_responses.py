"""Empty responses, one rule for the CLI and the API (docs/guides/reference.md): skipped, never
scored, said in the result; nothing left is an error. Scored, a set of empty strings read as the
most diverse by Self-BLEU (0.0) without a word from ``diveval.score``, where the CLI refused the
same data. (The integrations' paths: tests/integrations.)"""

from __future__ import annotations

import json
import re

import pytest

import diveval
from diveval.cli import main
from diveval.errors import InputError


@pytest.mark.parametrize(
    "data, metric",
    [
        (["", " ", "\n"], "distinct-2"),
        ([["", ""], ["", "\t"]], "self-bleu"),
        ([["", ""], ["", "\t"]], "distinct-2"),
    ],
)
def test_no_response_left_is_an_error_as_in_the_cli(data, metric, tmp_path):
    with pytest.raises(InputError, match=r"no responses to score \(\d empty ones skipped\)"):
        diveval.score(data, [metric])
    # the CLI on the same data: the same refusal, exit 2
    path = tmp_path / "in.jsonl"
    rows = [{"responses": s} if isinstance(s, list) else {"response": s} for s in data]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["score", str(path), "--metric", metric]) == 2


def test_a_corpus_is_scored_without_its_empty_responses_and_says_which():
    texts = ["the cat sat", "", "the cat ran", "   ", "a dog sat"]
    note = "skipped 2 empty responses (items 1, 3): blank responses are not scored"
    with pytest.warns(UserWarning, match=re.escape(f"diveval.score: {note}")):
        got = diveval.score(texts, ["distinct-2", "self-bleu"])
    kept = [t for t in texts if t.strip()]
    want = diveval.score(kept, ["distinct-2", "self-bleu"])
    assert (got.skipped_empty, want.skipped_empty) == (2, 0)
    for name in ("distinct-2", "self-bleu"):
        assert got[name].value == want[name].value
        # the details of the texts scored: those of every engine on them
        assert dict(got[name].details) == dict(want[name].details)


def test_the_cli_and_the_api_give_the_same_number(tmp_path, capsys):
    texts = ["the cat sat", "", "the cat ran", "   ", "a dog sat"]
    path = tmp_path / "in.txt"
    path.write_text("\n".join(texts) + "\n")
    assert main(["score", str(path), "--metric", "self-bleu", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    value = next(v for k, v in _values(out) if k == "self-bleu")
    with pytest.warns(UserWarning):
        assert value == pytest.approx(diveval.score(texts, ["self-bleu"])["self-bleu"].value)


def _values(doc):
    """(metric, value) pairs anywhere in a --json document."""
    if isinstance(doc, dict):
        if "metric" in doc and "value" in doc:
            yield doc["metric"], doc["value"]
        for v in doc.values():
            yield from _values(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from _values(v)


def test_sets_lose_their_empty_responses_and_a_set_left_empty_is_left_out():
    sets = [["a b c", "", "a b d"], ["", " "], ["x y z", "x y w", "\n"]]
    with pytest.warns(UserWarning, match=r"skipped 4 empty responses \(in sets 0, 1, 2; set 1 "):
        got = diveval.score(sets, ["self-bleu", "distinct-2"])
    want = diveval.score([["a b c", "a b d"], ["x y z", "x y w"]], ["self-bleu", "distinct-2"])
    assert got.skipped_empty == 4
    for name in ("self-bleu", "distinct-2"):
        assert got[name].value == want[name].value
        assert list(got[name].items) == list(want[name].items)


def test_per_item_options_lose_the_same_entries():
    """A set's logprobs drop with its empty responses; a set left out takes its own along."""
    from diveval.data import without_empty
    from diveval.results import SETS

    sets = [["a", "", "b"], ["", ""], ["c", "d"]]
    options = {"logprobs": [[-1.0, -2.0, -3.0], [-4.0, -5.0], [-6.0, -7.0]], "lowercase": True}
    items, kept, warning = without_empty(SETS, sets, options, ("logprobs", "reference_groups"))
    assert items == [["a", "b"], ["c", "d"]]
    assert kept == {"logprobs": [[-1.0, -3.0], [-6.0, -7.0]], "lowercase": True}
    assert warning is not None and "set 1 had none left" in warning


def test_references_of_an_empty_response_go_with_it():
    hyps = ["the cat sat on the mat", "", "a dog ran in the park"]
    refs = [["the cat sat on a mat"], ["nothing here at all"], ["a dog ran in a park"]]
    with pytest.warns(UserWarning, match=r"\(item 1\)"):
        got = diveval.score(hyps, ["ref-bleu-2"], references=refs)["ref-bleu-2"]
    want = diveval.score([hyps[0], hyps[2]], ["ref-bleu-2"], references=[refs[0], refs[2]])[
        "ref-bleu-2"
    ]
    assert got.value == want.value and list(got.items) == list(want.items)
