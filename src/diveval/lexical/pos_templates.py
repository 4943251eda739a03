"""Part-of-speech templates (Shaib et al. 2024, "Detection and measurement of syntactic templates
in generated text"), as the ``diversity`` package (0.3.1) computes them.

1. The responses are joined with one space, in the order given as the package does
   (``join="given"``, the default; ``join="sorted"``: in code-point order, so that sentence
   boundaries, tags in context and the order of first appearance that breaks ties do not depend on
   the listing; signature ``join:given`` / ``join:sorted``) and split into sentences; every
   sentence is tagged (spaCy fine-grained tags, ``en_core_web_md``).
2. The ``top_n`` (100) most frequent tag n-grams (n = 5) inside sentences are the templates
   (ties: first seen first, as ``sorted`` over nltk's FreqDist keeps them).
3. Every token span whose tags are a template is a template *text* (its spaCy tokens joined by
   one space).
4. Template rate: the fraction of responses that contain a template text as a substring.
   Templates per token: per response, the number of positions where a template text starts,
   divided by its number of whitespace tokens (0 for an empty response); the value is the mean.

Higher = more templated = less diverse (direction "lower"). A response shorter than n tokens
cannot hold a template, so identical responses of fewer than n tokens score 0 (the definition only
sees spans of n tokens); identical longer responses score 1. Sentences: nltk's Punkt with default
parameters (offline); the package calls ``sent_tokenize``, i.e. Punkt's trained English model,
which it tries to download (the two differ on abbreviations such as "Dr."). Tagger: the package
loads ``en_core_web_sm``; diveval's default is ``en_core_web_md`` (installed here), any spaCy
model folder can be named.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypedDict

from ..errors import MissingDependencyError
from ..models.pos_tagger import default_tagger
from ..results import Score
from .groups import check_join, group_score, in_join_order, text_groups

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

_SHARD = 500  # literals per compiled alternation, as the package


def punkt_sentences() -> Callable[[str], list[str]]:
    """nltk Punkt with default parameters: no download needed."""
    try:
        from nltk.tokenize.punkt import PunktSentenceTokenizer
    except ImportError:
        raise MissingDependencyError("sentence splitting (nltk)", "pos") from None
    return PunktSentenceTokenizer().tokenize


def extract_templates(
    texts: Sequence[str],
    tagger: Any,
    split_sentences: Callable[[str], list[str]],
    n: int = 5,
    top_n: int = 100,
) -> dict[str, set[str]]:
    """{tag pattern: the texts that carry it} for the ``top_n`` most frequent tag n-grams."""
    sentences = split_sentences(" ".join(texts))
    tagged = tagger.tagged(sentences)
    counts: Counter[tuple[str, ...]] = Counter()
    for sent in tagged:
        tags = [tag for _, tag in sent]
        counts.update(tuple(tags[i : i + n]) for i in range(len(tags) - n + 1))
    top = sorted(counts.items(), key=lambda kv: kv[1], reverse=True)[:top_n]
    templates: dict[str, set[str]] = {" ".join(p): set() for p, _ in top}
    wanted = {p: " ".join(p) for p, _ in top}
    for sent in tagged:
        sent_tags = tuple(tag for _, tag in sent)
        for i in range(len(sent_tags) - n + 1):
            name = wanted.get(sent_tags[i : i + n])
            if name is not None:
                templates[name].add(" ".join(tok for tok, _ in sent[i : i + n]))
    return templates


def _alternations(literals: Sequence[str], overlap: bool) -> list[re.Pattern[str]]:
    out = []
    for s in range(0, len(literals), _SHARD):
        alt = "|".join(map(re.escape, literals[s : s + _SHARD]))
        out.append(re.compile(f"(?=(?:{alt}))" if overlap else f"(?:{alt})"))
    return out


def template_texts(templates: dict[str, set[str]]) -> list[str]:
    return sorted({t for texts in templates.values() for t in texts})


def rate_of(docs: Sequence[str], literals: Sequence[str]) -> float:
    """Fraction of ``docs`` that contain one of ``literals``."""
    if not docs or not literals:
        return 0.0
    shards = _alternations(literals, overlap=False)
    return sum(1 for d in docs if any(rx.search(d) for rx in shards)) / len(docs)


def per_token_of(docs: Sequence[str], literals: Sequence[str]) -> list[float]:
    """Per doc: start positions of template texts (overlapping) / whitespace tokens."""
    if not literals:
        return [0.0] * len(docs)
    shards = _alternations(literals, overlap=True)
    out = []
    for d in docs:
        words = len(d.split())
        hits = sum(1 for rx in shards for _ in rx.finditer(d)) if words else 0
        out.append(hits / words if words else 0.0)
    return out


def _templates_of(group: list[str], join: str, tagger, split, n, top_n):
    ordered = in_join_order(group, join)
    return template_texts(extract_templates(ordered, tagger, split, n, top_n))


def _defaults(tagger, split):
    if tagger is None:
        tagger = default_tagger()
    return tagger, split if split is not None else punkt_sentences()


class TemplateOptions(TypedDict, total=False):
    """The options of both template metrics (defaults: :func:`templates_by_group`'s): ``n``, the
    tag n-gram's length (5); ``top_n``, how many of the most frequent are templates (100);
    ``join`` ("given" or "sorted"); ``setting``; ``tagger``, a spaCy model or folder (None: the
    default, ``en_core_web_md``); ``split_sentences`` (None: nltk Punkt with default
    parameters)."""

    n: int
    top_n: int
    join: str
    setting: str | None
    tagger: Any
    split_sentences: Callable[[str], list[str]] | None


def templates_by_group(
    texts: Any,
    n: int = 5,
    top_n: int = 100,
    join: str = "given",
    setting: str | None = None,
    tagger: Any = None,
    split_sentences: Callable[[str], list[str]] | None = None,
) -> tuple[str, list[tuple[list[str], list[str]]], dict[str, Any]]:
    """(the setting found, [(a group's responses, its templates)], the signature) of both
    template metrics."""
    check_join(join)
    tagger, split = _defaults(tagger, split_sentences)
    found, groups = text_groups(texts, setting)
    with_templates = [(g, _templates_of(g, join, tagger, split, n, top_n)) for g in groups]
    sig = {"n": n, "top": top_n, "tagger": tagger.name, "sent": "punkt-default", "join": join}
    return found, with_templates, sig


def template_rate(texts: Any, **options: Unpack[TemplateOptions]) -> Score:
    """Fraction of responses that contain a POS template text (per corpus or per set)."""
    found, groups, sig = templates_by_group(texts, **options)
    values = [rate_of(g, templates) for g, templates in groups]
    return group_score("template-rate", values, found, sig)


def templates_per_token(texts: Any, **options: Unpack[TemplateOptions]) -> Score:
    """Mean over responses of template occurrences per whitespace token (per corpus or set);
    ``details["per_document"]`` holds every response's value."""
    found, groups, sig = templates_by_group(texts, **options)
    per_doc: list[float] = []
    values = []
    for g, templates in groups:
        tpt = per_token_of(g, templates)
        per_doc.extend(tpt)
        values.append(sum(tpt) / len(tpt))
    return group_score("templates-per-token", values, found, sig, {"per_document": per_doc})
