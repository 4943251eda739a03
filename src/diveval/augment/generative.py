"""Generative sources of added references (SCARCE, Gangal et al. 2021):

- ``CometKnowledge``: any COMET checkpoint a user has (a seq2seq model by name or folder, e.g.
  COMET-ATOMIC 2020 BART), prompted as it was trained: ``"{head} {relation} [GEN]"``; beam search,
  up to ``per_relation`` (paper: 5) inferences per relation for the previous speaker's turn.
- ``LMKnowledge``: the offline **stand-in**, not COMET: a causal LM (SmolLM2 by default) completes
  one prompt per relation about the last turn ("... Hearing this, you feel"); its name and
  signature say ``lm-standin``.
- ``LMParaphraser``: the PARAPHRASE baselines of Table 2: a causal LM rewrites each human
  reference in other words (greedy, one per reference; every reference of a multi-reference item).

All three are deterministic (beam search or greedy decoding), so a resumed run gives the same
text.
"""

from __future__ import annotations

import os
import re
from typing import Any, Optional, Sequence

from ..errors import InputError, MissingDependencyError
from ..models.devices import check_device
from ..models.lm_backends import load_causal_lm
from ..models.local_lm import CausalLM
from ..models.offline import error_line, hub_offline
from ..models.resolve import check_model_spec
from ..models.threads import torch_threads
from .commonsense import Inference

#: the relations SCARCE keeps from COMET-ATOMIC (about the listener); ConceptNet's
#: CausesDesire / HasFirstSubevent can be asked for too but need templates (``to_sentence``)
ATOMIC_RELATIONS = ("oEffect", "oReact", "oWant")

#: stand-in prompts, one per relation: plain text the LM completes (a small instruct model
#: follows a completion far better than a question), ending where the relation's template begins
#: ("I feel {}.", "I will {}.", "I want {}."); ``{}`` receives the last context turn
QUESTIONS = {
    "oEffect": 'Someone says to you: "{}"\nHearing this, you feel',
    "oReact": 'Someone says to you: "{}"\nIn reply, you will',
    "oWant": 'Someone says to you: "{}"\nAfter this, you want to',
}

_LEADS = {
    "oEffect": re.compile(r"^(i\s+(feel|am|'m)\s+|feeling\s+)", re.IGNORECASE),
    "oReact": re.compile(r"^(i\s+(will|would|'ll)\s+)", re.IGNORECASE),
    "oWant": re.compile(r"^(i\s+(want|would like)\s+)", re.IGNORECASE),
}


def _short_answer(text: str, relation: str, max_words: int = 12) -> str:
    """The stand-in's answer as an inference: first line, no quotes, no "I feel" lead, no final
    punctuation, at most ``max_words`` words."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = line.strip(" \"'*")
    lead = _LEADS.get(relation)
    if lead is not None:
        line = lead.sub("", line)
    line = re.split(r"[.!?]+[\"']?(?:\s|$)", line)[0].rstrip(".!?,; \"'")
    return " ".join(line.split()[:max_words])


class _GreedyLM:
    """A causal LM (loaded, or a name ``load_causal_lm`` knows) decoding greedily up to
    ``max_new_tokens``; ``lm_signature``: the model's name, weights and that cap."""

    def __init__(self, lm: Any, max_new_tokens: int, device: Optional[str]):
        self.lm = lm if isinstance(lm, CausalLM) else load_causal_lm(lm, device=device)
        self.max_new_tokens = int(max_new_tokens)

    @property
    def lm_signature(self) -> str:
        return f"lm:{self.lm.name}|weights:{self.lm.fingerprint}"

    @property
    def max_new(self) -> str:
        return f"max_new:{self.max_new_tokens}"


class LMKnowledge(_GreedyLM):
    """The offline stand-in for COMET: a causal LM answers one question per relation about the
    last context turn (greedy, ``max_new_tokens``). Labelled ``lm-standin:NAME``, never COMET."""

    def __init__(
        self,
        lm: Any = None,
        relations: Sequence[str] = ATOMIC_RELATIONS,
        *,
        max_new_tokens: int = 16,
        device: Optional[str] = None,
    ):
        unknown = [r for r in relations if r not in QUESTIONS]
        if unknown:
            raise InputError(
                f"the LM stand-in has no question for {', '.join(unknown)}; "
                f"known: {', '.join(QUESTIONS)}"
            )
        super().__init__(lm, max_new_tokens, device)
        self.relations = tuple(relations)
        self.name = f"lm-standin:{self.lm.name}"

    @property
    def signature(self) -> str:
        relations = ",".join(self.relations)
        return (
            f"lm-standin|{self.lm_signature}|rel:{relations}|n:1|greedy|completion|{self.max_new}"
        )

    def infer(self, context: Sequence[str], key: str | None = None) -> list[Inference]:
        if not context or not context[-1].strip():
            return []
        out = []
        for rel in self.relations:
            prompt = self.lm.encode(QUESTIONS[rel].format(" ".join(context[-1].split())))
            answer = self.lm.decode(self.lm.greedy(prompt, self.max_new_tokens))
            text = _short_answer(answer, rel)
            if rel == "oWant" and text:
                text = "to " + text  # the prompt ended in "want to"
            if text:
                out.append(Inference(rel, text))
        return out


class CometKnowledge:
    """A COMET seq2seq checkpoint (name or folder): ``"{head} {relation} [GEN]"`` -> up to
    ``per_relation`` beam-search inferences per relation; ``none`` answers are dropped."""

    def __init__(
        self,
        path: str,
        relations: Sequence[str] = ATOMIC_RELATIONS,
        *,
        per_relation: int = 5,
        num_beams: Optional[int] = None,
        max_new_tokens: int = 24,
        gen_token: str = "[GEN]",
        device: Optional[str] = None,
    ):
        check_model_spec(path, "COMET model")
        try:
            with hub_offline():  # before transformers is imported: it reads the setting then
                try:
                    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
                except ImportError:
                    raise MissingDependencyError("COMET knowledge", "models") from None
                torch_threads()  # before the first model: see models.threads
                self.tokenizer = AutoTokenizer.from_pretrained(path)
                self.model = AutoModelForSeq2SeqLM.from_pretrained(path).eval()
        except (OSError, ValueError) as err:
            raise InputError(f"cannot load the COMET model {path!r}: {error_line(err)}") from err
        self.device = check_device(device)
        if self.device != "cpu":
            self.model.to(self.device)
        if per_relation < 1:
            raise InputError("per_relation must be at least 1")
        self.relations = tuple(relations)
        self.per_relation = int(per_relation)
        self.num_beams = max(int(num_beams or per_relation), self.per_relation)
        self.max_new_tokens = int(max_new_tokens)
        self.gen_token = gen_token
        self.name = "comet:" + os.path.basename(os.path.normpath(path))

    def prompt(self, head: str, relation: str) -> str:
        return f"{head} {relation} {self.gen_token}"

    def infer(self, context: Sequence[str], key: str | None = None) -> list[Inference]:
        import torch

        if not context or not context[-1].strip():
            return []
        head = " ".join(context[-1].split())
        out = []
        for rel in self.relations:
            enc = self.tokenizer(self.prompt(head, rel), return_tensors="pt").to(self.device)
            with torch.inference_mode():
                gen = self.model.generate(
                    **enc,
                    num_beams=self.num_beams,
                    num_return_sequences=self.per_relation,
                    max_new_tokens=self.max_new_tokens,
                    do_sample=False,
                )
            seen = set()
            for row in gen:
                decoded = str(self.tokenizer.decode(row, skip_special_tokens=True))
                text = " ".join(decoded.split())
                if text and text.lower() != "none" and text not in seen:
                    seen.add(text)
                    out.append(Inference(rel, text))
        return out


class LMParaphraser(_GreedyLM):
    """PARAPHRASE baseline: one greedy paraphrase of a reference by a causal LM."""

    #: one worked example, then the reference: a completion the LM ends with a closing quote
    PROMPT = (
        "Rewrite each sentence in other words, keeping its meaning.\n"
        'Sentence: "How was your trip to the coast last week?"\n'
        'Rewritten: "Did you enjoy your visit to the seaside last week?"\n'
        'Sentence: "{}"\n'
        'Rewritten: "'
    )

    def __init__(self, lm: Any = None, *, max_new_tokens: int = 40, device: Optional[str] = None):
        super().__init__(lm, max_new_tokens, device)
        self.name = f"lm:{self.lm.name}"

    @property
    def signature(self) -> str:
        return f"paraphrase|{self.lm_signature}|greedy|one-shot|{self.max_new}"

    def paraphrase(self, reference: str) -> str | None:
        prompt = self.lm.encode(self.PROMPT.format(" ".join(reference.split())))
        text = self.lm.decode(self.lm.greedy(prompt, self.max_new_tokens))
        line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        line = line.split('"')[0].strip()
        return line or None


def parse_lm_spec(spec: str, prefix: str = "lm") -> Optional[str]:
    """``lm`` -> None (the default LM), ``lm:NAME`` -> NAME; else an InputError."""
    if spec == prefix:
        return None
    if spec.startswith(prefix + ":") and spec[len(prefix) + 1 :]:
        return spec[len(prefix) + 1 :]
    raise InputError(f"expected {prefix} or {prefix}:NAME_OR_PATH, got {spec!r}")
