"""Commonsense references (Gangal et al. 2021): inferences about the *other* speaker's reaction
to the last context turn, turned into first-person sentences by templates.

The paper runs COMET (trained on ATOMIC) on the last turn and keeps the relations about the
listener (``oEffect``, ``oReact``, ``oWant``). **No COMET model is available offline here**, so
diveval does not generate inferences: a ``KnowledgeSource`` supplies them, and the one shipped
reads precomputed COMET-style records from a JSON-lines file a user made (with COMET, an LLM, or
by hand):

    {"id": "73_4", "relation": "oWant", "text": "to thank PersonX"}

``id`` matches the input record's ``id`` (or ``context_id``); a record may instead carry
``"utterance"``: the last context turn it was inferred from. ``"none"`` outputs are skipped.

Templates (../shared/GUIDE.md section 2, from the paper): oEffect "excited" -> "I feel excited.";
oWant "to thank PersonX" -> "I want to thank you."; oReact "have a party" -> "I will have a
party."; PersonX -> "you". Other relations need a template passed by the user.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Mapping, Protocol, Sequence

from ..errors import InputError
from ..io.readers import iter_jsonl

#: relation -> sentence template; ``{}`` receives the inference text.
TEMPLATES: Mapping[str, str] = {
    "oEffect": "I feel {}.",
    "oWant": "I want {}.",
    "oReact": "I will {}.",
}

_PERSON_X = re.compile(r"\bperson\s*x\b", re.IGNORECASE)


@dataclass(frozen=True)
class Inference:
    relation: str
    text: str

    def to_dict(self) -> dict:
        return {"relation": self.relation, "text": self.text}


class KnowledgeSource(Protocol):
    """Commonsense inferences for a dialogue context: ``infer(context, key)`` -> inferences.

    ``context``: the turns so far (the last one is the turn being answered); ``key``: the item's
    id when it has one."""

    name: str

    def infer(self, context: Sequence[str], key: str | None = None) -> list[Inference]: ...


def to_sentence(inference: Inference, templates: Mapping[str, str] | None = None) -> str | None:
    """The template sentence of an inference; None for an empty or ``none`` inference.

    PersonX (the speaker of the last turn) becomes "you"; white space is collapsed and a final
    period of the inference dropped before the template adds its own. An ``oWant`` text without a
    leading "to" gets one ("thank PersonX" -> "I want to thank you.")."""
    templates = TEMPLATES if templates is None else templates
    if inference.relation not in templates:
        raise InputError(
            f"no template for relation {inference.relation!r}; known: {', '.join(templates)}"
        )
    text = " ".join(inference.text.split()).strip()
    text = text.rstrip(" .")
    if not text or text.lower() == "none":
        return None
    text = _PERSON_X.sub("you", text)
    if inference.relation == "oWant" and not text.lower().startswith("to "):
        text = "to " + text
    return templates[inference.relation].format(text)


class PrecomputedKnowledge:
    """Inferences read from a JSON-lines file of ``{"id" | "utterance", "relation", "text"}``."""

    def __init__(self, path: str, relations: Sequence[str] | None = None):
        self.name = "precomputed:" + os.path.basename(path)
        self.relations = tuple(relations) if relations is not None else None
        self._by_id: dict[str, list[Inference]] = {}
        self._by_utt: dict[str, list[Inference]] = {}
        for lineno, rec in iter_jsonl(path):
            rel, text = rec.get("relation"), rec.get("text")
            if not isinstance(rel, str) or not isinstance(text, str):
                raise InputError('record needs "relation" and "text" strings', path, lineno)
            if self.relations is not None and rel not in self.relations:
                continue
            inf = Inference(rel, text)
            if "id" in rec:
                self._by_id.setdefault(str(rec["id"]), []).append(inf)
            elif isinstance(rec.get("utterance"), str):
                self._by_utt.setdefault(_key(rec["utterance"]), []).append(inf)
            else:
                raise InputError(
                    'record needs "id" or "utterance" to say which context it is about',
                    path,
                    lineno,
                )

    def infer(self, context: Sequence[str], key: str | None = None) -> list[Inference]:
        if key is not None and key in self._by_id:
            return list(self._by_id[key])
        if context:
            return list(self._by_utt.get(_key(context[-1]), []))
        return []


def _key(utterance: str) -> str:
    return " ".join(re.findall(r"\w+", utterance.lower()))
