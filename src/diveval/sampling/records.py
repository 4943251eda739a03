"""The prompts file ``diveval sample`` reads, the records it writes, and what a score computed
from those records adds to its signature.

Input: records (JSON lines, a JSON array, CSV/TSV, Parquet: any format of ``io.formats`` with
records), each with a non-empty string ``prompt`` (every other field is kept in the output: ids,
paraphrases, references), or a text file with one prompt per line (blank lines skipped). A bad
line is an InputError naming the file and line.

Output record, one per prompt and in input order: the input's own fields, then ``prompt``,
``model`` (the spec), ``responses`` (k strings), ``sampling`` (every setting, the server's model
name included) and ``usage`` (tokens and requests of this prompt). Where the backend gave token
log-probabilities for every response: ``token_logprobs`` (per response, the natural log-probability
of each of its tokens) and ``logprobs`` (per response, their sum: the sequence log-probability
that ``score`` passes to semantic-entropy's likelihood weights and the probability-weighted
Vendi / similarity measures).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Optional, Sequence

from ..errors import InputError
from ..io.formats import LINES, detect
from ..io.readers import has_field, read_records, read_text

#: Keys the output records own; an input field of the same name is replaced.
OWN_KEYS = ("prompt", "model", "responses", "sampling", "usage", "logprobs", "token_logprobs")

#: US dollars per million tokens (input, output), list prices of OpenAI's API as published in
#: 2025; other models get no cost line. A price change is a change here.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-3.5-turbo": (0.50, 1.50),
}


@dataclass(frozen=True)
class PromptItem:
    index: int
    prompt: str
    line: int
    fields: Mapping[str, Any] = field(default_factory=dict)


def read_prompts(path: str) -> list[PromptItem]:
    """The prompts of a file in any format of ``io.formats``: a text file's lines (blank ones
    skipped), or the records of JSON lines, a JSON array, CSV/TSV, Parquet or a datasets folder,
    each with a non-empty string ``prompt``."""
    fmt = detect(path)
    if fmt.shape == LINES:
        text = read_text(path)
        pairs = [(n, line.rstrip("\r")) for n, line in enumerate(text.split("\n"), start=1)]
        return _prompts([PromptItem(0, line, n, {}) for n, line in pairs if line.strip()], path)
    items = []
    for rec in read_records(path, fmt.name):
        line = rec.pop("_line")
        prompt = rec.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise InputError('a record needs a non-empty string "prompt"', path, line)
        items.append(PromptItem(0, prompt, line, rec))
    return _prompts(items, path)


def _prompts(items: list[PromptItem], path: str) -> list[PromptItem]:
    """``items`` numbered in order; none is an error."""
    if not items:
        raise InputError("no prompts in the file", path)
    return [replace(it, index=i) for i, it in enumerate(items)]


def request_seed(seed: Optional[int], prompt: str, j: int) -> Optional[int]:
    """The seed of the request for sample j of a prompt: a function of the run's seed, the prompt
    and j alone, so the order requests happen in (concurrency, a resumed run) changes nothing."""
    if seed is None:
        return None
    digest = hashlib.blake2b(f"{seed}\x00{j}\x00{prompt}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") & 0x7FFFFFFF


def make_record(
    item: PromptItem,
    model: str,
    responses: Sequence[str],
    sampling,
    usage,
    token_logprobs: Optional[Sequence[Sequence[float]]] = None,
) -> dict:
    rec = {k: v for k, v in item.fields.items() if k not in OWN_KEYS}
    rec.update(
        prompt=item.prompt,
        model=model,
        responses=[str(r) for r in responses],
        sampling=dict(sampling),
        usage=dict(usage),
    )
    if token_logprobs is not None:
        rec["logprobs"] = [math.fsum(t) for t in token_logprobs]
        rec["token_logprobs"] = [list(t) for t in token_logprobs]
    return rec


def cost(model: str, prompt_tokens: int, completion_tokens: int) -> Optional[float]:
    """US dollars at ``PRICES`` (a dated snapshot, e.g. gpt-4o-2024-08-06 is gpt-4o), or None."""
    name = model.split(":", 1)[1] if model.startswith("openai:") else model
    best = max((p for p in PRICES if name == p or name.startswith(p + "-")), key=len, default=None)
    if best is None:
        return None
    price_in, price_out = PRICES[best]
    return (prompt_tokens * price_in + completion_tokens * price_out) / 1e6


def _short(value: Any) -> str:
    if value is None:
        return "default"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def sampling_part(sampling: Mapping[str, Any]) -> str:
    """One record's sampling settings as one signature part (no ``|``), e.g.
    ``sample:regenerate,k=5,t=1,top_p=default,max_tokens=512,seed=0,model=smollm2@SmolLM2``."""
    s = dict(sampling)
    model = _short(s.get("model"))
    served = s.get("served_model")
    if served and served != model:
        model = f"{model}@{served}"
    # A setting the record holds as null was left to the backend ("default"); one it does not
    # name at all (a file sampled elsewhere) is left out rather than called a default.
    fields = [_short(s["protocol"])] if "protocol" in s else []
    for key, label in (
        ("k", "k"),
        ("temperature", "t"),
        ("top_p", "top_p"),
        ("max_tokens", "max_tokens"),
        ("seed", "seed"),
    ):
        if key in s:
            fields.append(f"{label}={_short(s[key])}")
    if "model" in s or served:
        fields.append(f"model={model}")
    return ("sample:" + ",".join(fields)).replace("|", "/")


def sampling_signature(records: Sequence[Mapping[str, Any]]) -> Optional[str]:
    """The signature part of the records' sampling settings: None when no record has any; the
    distinct settings joined by ``+`` (in first-seen order) when several runs are mixed, as in a
    file of several models for the cross-model level."""
    parts: list[str] = []
    for rec in records:
        s = rec.get("sampling")
        if isinstance(s, Mapping):
            part = sampling_part(s)
            if part not in parts:
                parts.append(part)
    return "+".join(parts) if parts else None


def with_sampling(signature: str, part: Optional[str]) -> str:
    """``signature`` with the sampling part before its last (``diveval:VERSION``) part."""
    if not part:
        return signature
    head, sep, version = signature.rpartition("|")
    return f"{head}|{part}|{version}" if sep else f"{signature}|{part}"


def add_sampling(results: Any, records: Sequence[dict[str, Any]]) -> Any:
    """Scores computed from records that ``diveval sample`` wrote, each signature naming the
    records' sampling settings (protocol, temperature, top_p, max_tokens, seed, model).
    ``results``: a mapping of name to Score (changed in place) or a list of Scores (a new list);
    returned as they are when no record carries settings."""
    if not has_field(records, "sampling"):
        return results
    part = sampling_signature(records)
    if part is None:
        return results
    if isinstance(results, list):
        return [replace(r, signature=with_sampling(r.signature, part)) for r in results]
    for name, score in list(results.items()):
        results[name] = replace(score, signature=with_sampling(score.signature, part))
    return results
