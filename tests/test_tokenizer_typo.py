"""A mistyped tokenizer is one line naming the nearest tokenizer, with or without -m: without
-m it is the caller's error, not a reason to skip every default metric."""

import pytest

import diveval
from diveval.cli import main
from diveval.errors import InputError

MESSAGE = "diveval: error: unknown tokenizer 'whitspace' (did you mean 'whitespace'?)"


@pytest.mark.parametrize("data", ["responses.txt", "sets.jsonl"])
@pytest.mark.parametrize("metrics", [[], ["-m", "distinct-1"]])
def test_the_same_one_line_with_and_without_m(capsys, examples_dir, data, metrics):
    code = main(["score", str(examples_dir / data), "--tokenizer", "whitspace", *metrics])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(MESSAGE)


def test_the_api_raises_it_for_the_default_metrics():
    with pytest.raises(InputError, match=r"^unknown tokenizer 'whitspace'"):
        diveval.score(["a b", "c d"], tokenizer="whitspace")
