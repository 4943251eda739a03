import pytest

from diveval.errors import InputError
from diveval.text.tokenizers import get_tokenizer


def test_whitespace_and_lowercase():
    assert get_tokenizer("whitespace")("Hi  there\tYou") == ["Hi", "there", "You"]
    assert get_tokenizer("whitespace", lowercase=True)("Hi There") == ["hi", "there"]


def test_tevet_tokenizer_is_tevet_and_berants():
    tok = get_tokenizer("tevet")
    text = "Yes. I agree,  it is.\nfine "
    expected = [e for e in text.replace(".", "").replace("\n", "").split(" ") if e != ""]
    assert tok(text) == expected == ["Yes", "I", "agree,", "it", "isfine"]


def test_13a_matches_sacrebleu():
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    text = "Hello, world! It's 3.5 o'clock-ish (really)."
    assert get_tokenizer("13a")(text) == Tokenizer13a()(text).split()


def test_bert_tokenizer_matches_transformers_slow_tokenizer():
    pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    tok = get_tokenizer("bert")
    assert tok.vocab_size == 30522
    slow = transformers.BertTokenizer(tok.vocab_path, do_lower_case=True)
    for text in ["Unbelievably GOOD tokenizers!", "I don't know, what's up?", "naïve café"]:
        assert tok(text) == slow.tokenize(text)


def test_unknown_tokenizer_is_a_clear_error():
    with pytest.raises(InputError, match="unknown tokenizer"):
        get_tokenizer("nope")
