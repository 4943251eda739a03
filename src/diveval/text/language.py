"""What script and language the responses are in, and the warnings that follow from it.

Two cheap checks on a sample (at most 64 responses spread over the input, the first 256
characters of each), so the default path does not slow down measurably:

- **Scripts written without spaces between words** (Chinese Han, Japanese kana, Thai, Lao,
  Khmer, Myanmar, Tibetan): when at least a quarter (:data:`UNSPACED_SHARE`) of the letters
  sampled are in such scripts and the tokenizer does not segment them (``Tokenizer.segments``:
  whitespace, 13a, tevet and intl segment none; bert and zh segment Han; ja-mecab Han and kana;
  char all), each run between spaces would be one token: the Score warns and names the tokenizer
  to use (ja-mecab when kana are present, zh for Han alone, char otherwise). Korean (Hangul) is
  written with spaces between words, so it is not flagged; ko-mecab gives its morphemes.
- **English-only models** (the shipped MiniLM embedder and NLI model, all-mpnet-base-v2,
  roberta-large(-mnli), spaCy's en_* taggers...), found by name in the Score's signature: the
  Score warns when the sample is not English. The rule: fewer than half of the letters are Latin
  (the warning names the main script); or, for Latin-script text, its words hold more function
  words of German, French, Spanish, Italian, Portuguese or Dutch than of English, at least 3 (the
  warning names the language with most).
- **Tokenizers that keep only ASCII** (rouge-score's, named ``tok:rouge-score...`` in the
  signatures of the ROUGE metrics, which take no tokenizer option): the Score warns when at least
  a quarter of the letters sampled are not ASCII, which it drops.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache
from typing import Any

#: Share of the letters sampled in unsegmented unspaced scripts from which a Score warns.
UNSPACED_SHARE = 0.25
SAMPLE_TEXTS = 64
SAMPLE_CHARS = 256

#: Scripts written without spaces between words, by code-point ranges.
UNSPACED_SCRIPTS: dict[str, str] = {
    "Han": "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f",
    "Kana": "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f",
    "Thai": "\u0e00-\u0e7f",
    "Lao": "\u0e80-\u0eff",
    "Khmer": "\u1780-\u17ff\u19e0-\u19ff",
    "Myanmar": "\u1000-\u109f",
    "Tibetan": "\u0f00-\u0fff",
}
_SCRIPT_RE = {name: re.compile(f"[{ranges}]") for name, ranges in UNSPACED_SCRIPTS.items()}
_LETTER = re.compile(r"[^\W\d_]")
_LATIN = re.compile("[A-Za-z\u00c0-\u024f]")
_WORD = re.compile(r"[^\W\d_]+")


def sample_texts(data: Any) -> tuple[str, ...]:
    """Up to :data:`SAMPLE_TEXTS` responses spread over ``data`` (a corpus, or sets of
    responses: a set's responses joined), each cut to :data:`SAMPLE_CHARS` characters."""
    if isinstance(data, str):
        items: Any = [data]
    elif isinstance(data, (list, tuple)):
        items = data  # indexed in place: a copy of a million responses costs more than the check
    else:
        try:
            items = list(data)
        except TypeError:
            return ()
    step = max(1, len(items) // SAMPLE_TEXTS)
    out = []
    for i in range(0, min(len(items), step * SAMPLE_TEXTS), step):
        item = items[i]
        if isinstance(item, str):
            out.append(item[:SAMPLE_CHARS])
        elif isinstance(item, (list, tuple)):
            out.append(" ".join(t for t in item if isinstance(t, str))[:SAMPLE_CHARS])
    return tuple(out)


@lru_cache(maxsize=64)
def _script_shares(sample: tuple[str, ...]) -> tuple[int, dict[str, int]]:
    """(number of letters, {unspaced script: number of its characters}) of a sample."""
    text = "\n".join(sample)
    letters = len(_LETTER.findall(text))
    counts = {name: len(rx.findall(text)) for name, rx in _SCRIPT_RE.items()}
    return letters, {k: v for k, v in counts.items() if v}


def script_warning(sample: tuple[str, ...], tokenizer: Any) -> str | None:
    """One line when much of the sample is in scripts that ``tokenizer`` does not segment."""
    letters, counts = _script_shares(sample)
    missed = {k: v for k, v in counts.items() if k not in tokenizer.segments}
    if not letters or sum(missed.values()) < UNSPACED_SHARE * letters:
        return None
    if "Kana" in counts and "Kana" not in tokenizer.segments:
        suggest, what = "ja-mecab", "Japanese"
    elif set(missed) == {"Han"}:
        suggest, what = "zh", "Chinese"
    else:
        suggest, what = "char", "/".join(sorted(missed, key=lambda k: missed[k], reverse=True))
    share = min(1.0, sum(missed.values()) / letters)
    return (
        f"{share:.0%} of the letters sampled are {what} ({', '.join(sorted(missed))} script), "
        f"written without spaces between words: {_reads(tokenizer, missed)}; "
        f"use tokenizer {suggest!r} (--tokenizer {suggest})"
    )


#: How a tokenizer that segments some scripts reads the others, where its rule is more than that.
_SPLITS = {
    # sacrebleu's zh: spaces around every CJK character (and CJK punctuation), then 13a's rules
    "zh": "gives each Han character its own token and splits the rest by 13a's rules, at spaces "
    "and punctuation: a run of {scripts} letters between those is one token",
}


def _reads(tokenizer: Any, missed: dict[str, int]) -> str:
    """How ``tokenizer`` reads the scripts ``missed``, which it does not segment."""
    scripts = "/".join(sorted(missed))
    if not tokenizer.segments:
        return f"the {tokenizer.name} tokenizer reads each run between spaces as one token"
    done = "/".join(sorted(tokenizer.segments))
    how = _SPLITS.get(tokenizer.name, "segments {done} text only: a run of {scripts} is one token")
    return f"the {tokenizer.name} tokenizer " + how.format(scripts=scripts, done=done)


#: Function words of some Latin-script languages (none that is also a common English word).
_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "English": frozenset(
        "the and of to is you that it i for are with this have be not what my we they she your "
        "but at from can would there if just about or all how know like think it's don't".split()
    ),
    "German": frozenset(
        "der die das und ist nicht ich du ein eine zu mit es sie wir den auf für sich auch dem "
        "des wie noch aber mir mich dich bin sind hast habe nur schon wenn doch jetzt kein keine "
        "heute sehr".split()
    ),
    "French": frozenset(
        "le la les et est une je vous ne pas des du que qui dans pour il elle ce sur avec au mais "
        "nous suis très cette".split()
    ),
    "Spanish": frozenset(
        "el los las y es una por para con se lo yo pero muy está estoy como del más su".split()
    ),
    "Italian": frozenset("di che è non per sono gli della mi ti ma anche molto".split()),
    "Portuguese": frozenset("os um não você muito mas da eu".split()),
    "Dutch": frozenset("het een en van ik je niet dat zijn op met voor ook heb".split()),
}


#: unicodedata names' first words that are not the script's usual name
_SCRIPT_NAMES = {"CJK": "Han (Chinese/Japanese)", "HIRAGANA": "Japanese", "KATAKANA": "Japanese"}


@lru_cache(maxsize=64)
def non_english(sample: tuple[str, ...]) -> str | None:
    """The language or script the sample is in when it is not English (see the module's rule),
    else None (English, or too little text to tell)."""
    text = "\n".join(sample)
    letters = _LETTER.findall(text)
    if not letters:
        return None
    latin = len(_LATIN.findall(text))
    if latin < 0.5 * len(letters):
        scripts = Counter(
            unicodedata.name(ch, "OTHER").split()[0] for ch in letters if not _LATIN.match(ch)
        )
        main = scripts.most_common(1)[0][0]
        return f"{_SCRIPT_NAMES.get(main, main.title())} script"
    hits: Counter[str] = Counter()
    for word in _WORD.findall(text.lower()):
        for language, words in _FUNCTION_WORDS.items():
            if word in words:
                hits[language] += 1
    english = hits.pop("English", 0)
    if not hits:
        return None
    language, count = hits.most_common(1)[0]
    if sum(hits.values()) >= 3 and sum(hits.values()) > english:
        return language
    return None


#: Models trained on English only, as their names appear in signatures (lower case; a name
#: matches a signature value, or a part of it between ':' or '/', that starts with it).
ENGLISH_ONLY_MODELS = (
    "all-minilm-l6-v2",
    "all-minilm-l12-v2",
    "all-mpnet-base-v2",
    "diveval-nli-minilm",
    "roberta-large",
    "roberta-base",
    "bert-base-uncased",
    "bert-large-uncased",
    "deberta-large-mnli",
    "deberta-xlarge-mnli",
    "bart-large-mnli",
    "gpt2",
    "en_core_web",
)


def english_only_model(signature: str) -> str | None:
    """The English-only model a signature names, if any."""
    for field in signature.split("|")[1:]:
        _, _, value = field.partition(":")
        for part in re.split("[:/]", value.lower()):
            if part.startswith(ENGLISH_ONLY_MODELS):
                return part
    return None


def english_only_warning(
    sample: tuple[str, ...], signature: str, model_flags: tuple[str, ...] = ()
) -> str | None:
    """One line when the Score's model is English-only and the sample is not English;
    ``model_flags``: the metric's flags that choose another model."""
    model = english_only_model(signature)
    if model is None:
        return None
    language = non_english(sample)
    if language is None:
        return None
    if model_flags:
        instead = f"give a multilingual model ({' / '.join(model_flags)})"
    else:
        instead = "no option of this metric replaces it"
    return (
        f"the responses look like {language}, but the model {model} was trained on English "
        f"only: its scores mean little here; {instead}"
    )


#: Tokenizers named in signatures (``tok:``) that keep only the ASCII letters a-z and digits:
#: rouge-score's (the ROUGE metrics have no tokenizer option).
ASCII_ONLY_TOKENIZERS = ("rouge-score",)


def ascii_only_warning(sample: tuple[str, ...], signature: str) -> str | None:
    """One line when the Score's tokenizer keeps only ASCII and much of the sample is not."""
    tok = next((f[4:] for f in signature.split("|") if f.startswith("tok:")), "")
    if not tok.startswith(ASCII_ONLY_TOKENIZERS):
        return None
    letters = _LETTER.findall("\n".join(sample))
    dropped = sum(not ch.isascii() for ch in letters)
    if not letters or dropped < UNSPACED_SHARE * len(letters):
        return None
    return (
        f"{dropped / len(letters):.0%} of the letters sampled are not ASCII, and the {tok} "
        "tokenizer keeps only a-z and 0-9: it drops them, so this score does not read this text"
    )


#: Phrases that only the warnings of this module hold (engines that join parts keep them).
_MARKS = (
    "written without spaces between words",
    "tokenizer keeps only a-z and 0-9",
    "was trained on English only",
)


def is_unsegmented_warning(text: str) -> bool:
    """Whether a warning says the tokenizer leaves a script written without spaces unsegmented."""
    return _MARKS[0] in text


def is_language_warning(text: str) -> bool:
    """Whether a warning is one of this module's (about the input, not figures of it)."""
    return any(mark in text for mark in _MARKS)


def language_warnings(
    sample: tuple[str, ...],
    signature: str,
    tokenizer: Any | None,
    model_flags: tuple[str, ...] = (),
) -> list[str]:
    """The warnings of the checks for a Score of ``signature`` (``tokenizer``: the one the
    metric used, None when it takes no tokenizer; ``model_flags``: its flags that choose a
    model)."""
    found = [
        script_warning(sample, tokenizer) if tokenizer is not None else None,
        ascii_only_warning(sample, signature),
        english_only_warning(sample, signature, model_flags),
    ]
    return [w for w in found if w]
