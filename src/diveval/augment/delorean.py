"""DELOREAN context adaptation (Qin et al. 2020; SCARCE appendix B): rewrite a candidate reference
e_old so that it fits a new context c_new while keeping e_old's content.

Counterfactual setup, over any causal LM (written from the paper and a reading of the authors'
``counterfactual_main.py``; no code copied):

1. Ỹ (N logit vectors, N = e_old's length in tokens) is initialised by greedy decoding on c_new.
2. Each iteration alternates
   - a *backward* pass: ``backward_iters`` normalised gradient steps on Ỹ that lower the
     cross-entropy between softmax(Ỹ) and e_old's tokens (the content-matching loss); the step is
     ``stepsize * ||Ỹ|| * g / ||g||`` as in the authors' code. The loss involves only Ỹ, so the
     gradient is taken w.r.t. Ỹ alone and never reaches the LM;
   - a *forward* pass t = 1..N (+ ``extra_tokens``): the LM's logits given c_new and the soft
     prefix so far (each earlier position fed as softmax(logits / 0.1) @ embeddings), divided by
     ``temperature_forward``, mixed with the backward logits: ``mix_rate * forward + (1 -
     mix_rate) * backward``; the positions after N continue unmixed so a sentence can end.
3. The last forward pass is decoded with the authors' filtering (top-k filter then argmax) and cut
   to a complete turn (see ``_finish``).

Defaults: the authors' counterfactual script (``run_counterfactual_main.sh``): mix_rate 0.92,
temperature_forward 1, top_k 1, stepsize 0.0004, and from its grid num_backward_iters 5 and
num_passes 5 (the cheapest point, as this runs on CPU). Two differences, said here and in the
signature: (i) the authors start Ỹ from the LM's logits *teacher-forced* on e_old after c_new and
spend their first pass on a forward pass alone (``init="teacher"`` does that); the issue and
SCARCE's appendix start from greedy decoding on c_new, the default (``init="greedy"``), where
every one of the ``iterations`` has a backward pass. With the authors' small step (0.0004) the
greedy start barely moves towards e_old: the output stays close to the LM's own reply;
(ii) the authors keep the *first sentence* of the output (their endings are rewritten a sentence
at a time); a dialogue turn may hold several sentences, so the output keeps the first N tokens'
text and completes only its last sentence from the extra tokens, cut at the end of the turn.
c_old is not an input of the counterfactual algorithm (the authors' decoding uses only the new
context and the old ending); it is accepted for the adapter protocol and ignored.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Optional, Sequence

from ..errors import InputError
from ..models.lm_backends import load_causal_lm
from ..models.local_lm import CausalLM


@dataclass(frozen=True)
class DeloreanSettings:
    """Every choice that changes the adapted text (the authors' counterfactual defaults)."""

    iterations: int = 5  # num_passes of the authors' grid (5, 10)
    backward_iters: int = 5  # num_backward_iters of the grid (5, 8, 10, 15)
    mix_rate: float = 0.92  # weight of the forward logits; 1 - mix_rate is the content weight
    stepsize: float = 0.0004
    temperature_forward: float = 1.0
    top_k: int = 1
    extra_tokens: int = 20  # forward tokens past N so a sentence can end (max_length = N + 20)
    seed: int = 0
    init: str = "greedy"  # "greedy" (the issue, SCARCE's appendix) or "teacher" (authors' code)
    # c_new as a plain-text transcript, as the authors fed GPT-2 plain story text: turns
    # labelled "A:" / "B:" and the output after the responder's label, so the LM continues with
    # the next turn (unlabelled lines made SmolLM2 answer "The answer is:" to every context).
    # True: the LM's chat template, when it has one (with SmolLM2 its system prompt and soft
    # tokens gave worse text)
    chat: bool = False
    soft_temperature: float = 0.1  # the authors' sharpening of the soft tokens fed back

    def check(self) -> None:
        if self.init not in ("greedy", "teacher"):
            raise InputError(f"DELOREAN init must be greedy or teacher, got {self.init!r}")
        if self.init == "teacher" and self.iterations < 1:
            raise InputError("DELOREAN init teacher needs at least one iteration")
        if self.iterations < 0 or self.backward_iters < 0 or self.extra_tokens < 0:
            raise InputError("DELOREAN iterations, backward_iters and extra_tokens must be >= 0")
        if not 0.0 <= self.mix_rate <= 1.0:
            raise InputError(f"DELOREAN mix_rate must be in [0, 1], got {self.mix_rate}")
        if self.soft_temperature <= 0:
            raise InputError("DELOREAN soft_temperature must be positive")
        if self.temperature_forward <= 0 or self.stepsize < 0 or self.top_k < 0:
            raise InputError("DELOREAN needs temperature_forward > 0, stepsize >= 0, top_k >= 0")


class DeloreanAdapter:
    """The ``ContextAdapter`` that rewrites candidates with DELOREAN decoding.

    lm: ``smollm2`` (default), a Hugging Face name or folder, or a loaded ``CausalLM``.
    Settings as ``DeloreanSettings``; ``signature`` records them with the LM and its weights."""

    def __init__(self, lm: Any = None, *, device: Optional[str] = None, **settings: Any):
        self.settings = DeloreanSettings(**settings)
        self.settings.check()
        self.lm = lm if isinstance(lm, CausalLM) else load_causal_lm(lm, device=device)
        self.name = f"delorean:{self.lm.name}"

    @property
    def signature(self) -> str:
        s = self.settings
        return (
            f"delorean|lm:{self.lm.name}|weights:{self.lm.fingerprint}|iters:{s.iterations}"
            f"|bwd:{s.backward_iters}|mix:{s.mix_rate:g}|step:{s.stepsize:g}"
            f"|tf:{s.temperature_forward:g}|soft:{s.soft_temperature:g}|topk:{s.top_k}|extra:{s.extra_tokens}|seed:{s.seed}"
            f"|init:{s.init}|prompt:{'chat' if self._use_chat else 'speakers'}|cut:turn{'' if self._use_chat else '-labels'}"
        )

    @property
    def _use_chat(self) -> bool:
        has = bool(getattr(self.lm.tokenizer, "chat_template", None))
        return bool(self.settings.chat and has)

    def describe(self) -> dict:
        return {"adapter": "delorean", "lm": self.lm.name, "signature": self.signature} | asdict(
            self.settings
        )

    # --------------------------------------------------------------------------------------------

    def prompt_ids(self, context: Sequence[str], room: int) -> list[int]:
        """c_new in the LM's chat template (the last turn the user's, the output the assistant's
        reply) or as a transcript (``A: ...`` / ``B: ...`` turns on their own lines, ending with
        the responder's ``A:``), cut from the left to leave ``room`` positions for the output."""
        if self._use_chat and context:
            ids = self.lm.dialogue_prompt(context)
        else:
            ids = self.lm.encode(transcript(context))
        if not ids:  # nothing encoded: start from the model's BOS (or EOS) token
            start = self.lm.tokenizer.bos_token_id
            if start is None:
                start = self.lm.tokenizer.eos_token_id
            ids = [int(start)] if start is not None else []
        if not ids:
            raise InputError("DELOREAN needs a context or a tokenizer with a BOS/EOS token")
        keep = max(1, self.lm.max_positions - room)
        return ids[-keep:]

    def target_ids(self, reference: str) -> list[int]:
        """e_old's token ids as the output would hold them: after the transcript's ``A:`` a turn
        starts with a space (its own BPE tokens), in the chat template it does not."""
        text = reference.strip()
        if not text:
            return []
        return self.lm.encode(text if self._use_chat else " " + text)

    def adapt(
        self, reference: str, source_context: Sequence[str], target_context: Sequence[str]
    ) -> str | None:
        return self.adapt_many([reference], target_context)[0]

    def adapt_many(
        self, references: Sequence[str], target_context: Sequence[str]
    ) -> list[str | None]:
        """Every reference adapted to one new context, in one batch (they share c_new, so the
        LM runs once per step for all of them); None where nothing is left."""
        out: list[str | None] = [r for r in references]
        todo = [(i, self.target_ids(r)) for i, r in enumerate(references)]
        todo = [(i, e) for i, e in todo if e]  # an empty reference stays as it is
        if not todo:
            return out
        room = max(len(e) for _, e in todo) + self.settings.extra_tokens
        prompt = self.prompt_ids(target_context, room)
        ids = self.decode_batch(prompt, [e for _, e in todo])
        for (i, e_old), row in zip(todo, ids):
            text = _finish(self.lm, row, len(e_old))
            if not self._use_chat:
                text = _own_turn(text)
            out[i] = text or None
        return out

    def decode_ids(self, prompt_ids: Sequence[int], target_ids: Sequence[int]) -> list[int]:
        """The algorithm on token ids: N + ``extra_tokens`` output ids for c_new = ``prompt_ids``
        and e_old = ``target_ids`` (N = len(target_ids))."""
        return self.decode_batch(prompt_ids, [target_ids])[0]

    def decode_batch(
        self, prompt_ids: Sequence[int], targets: Sequence[Sequence[int]]
    ) -> list[list[int]]:
        """``decode_ids`` for several e_old at once (one row each; rows never interact)."""
        import torch

        s = self.settings
        device = self.lm.device
        lengths = torch.tensor([len(t) for t in targets], device=device)
        if int(lengths.min()) < 1:
            raise InputError("DELOREAN needs a non-empty e_old")
        n_max = int(lengths.max())
        total = n_max + s.extra_tokens
        prompt = torch.tensor([list(prompt_ids)] * len(targets), device=device)
        target = torch.zeros(len(targets), n_max, dtype=torch.long, device=device)
        for row, t in enumerate(targets):
            target[row, : len(t)] = torch.tensor(list(t), device=device)
        # positions that belong to e_old (the rest of a shorter row is padding)
        mask = torch.arange(n_max, device=device)[None, :] < lengths[:, None]
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(int(s.seed))
            if s.init == "teacher":
                # the authors' start: the LM's logits teacher-forced on e_old after c_new; their
                # first pass is a forward pass alone
                soft = self._teacher_init(prompt, target)
                soft, ids = self._forward(prompt, soft, mask, total)
                passes = s.iterations - 1
            else:
                ys, ids = self._greedy_init(prompt, total)
                soft, passes = ys[:, :n_max], s.iterations
            for _ in range(passes):
                backward = self._backward(soft, target, mask)
                soft, ids = self._forward(prompt, backward, mask, total)
        return [ids[row, : int(n) + s.extra_tokens].tolist() for row, n in enumerate(lengths)]

    # the three passes ----------------------------------------------------------------------------

    def _greedy_init(self, prompt, total: int):
        """Greedy decoding on c_new (hard tokens, KV cache): its logits per step and its ids."""
        import torch

        model = self.lm.model
        logits_seq, ids = [], []
        with torch.no_grad():
            out = model(input_ids=prompt, use_cache=True)
            for _ in range(total):
                step = out.logits[:, -1].float()
                logits_seq.append(step)
                tok = torch.argmax(step, dim=-1)
                ids.append(tok)
                out = model(
                    input_ids=tok[:, None], past_key_values=out.past_key_values, use_cache=True
                )
        return torch.stack(logits_seq, dim=1), torch.stack(ids, dim=1)

    def _teacher_init(self, prompt, target):
        """The LM's logits at the positions that predict e_old's tokens, given c_new and e_old's
        earlier tokens (padding after a shorter row cannot reach its positions: causal LM)."""
        import torch

        with torch.no_grad():
            logits = self.lm.model(input_ids=torch.cat([prompt, target], dim=1)).logits
        start = prompt.shape[1] - 1
        return logits[:, start : start + target.shape[1]].float()

    def _backward(self, soft, target, mask):
        """``backward_iters`` normalised gradient steps of CE(softmax(Ỹ), e_old) on Ỹ alone,
        each row (one e_old) with its own loss and its own step length."""
        import torch
        import torch.nn.functional as F

        s = self.settings
        soft = soft.detach()
        keep = mask[:, :, None].to(soft.dtype)
        shift = torch.zeros_like(soft)
        for _ in range(s.backward_iters):
            delta = shift.clone().requires_grad_(True)
            logits = soft + delta
            ce = F.cross_entropy(logits.transpose(1, 2), target, reduction="none")
            # each row's mean over its own tokens; the sum keeps rows independent
            loss = ((ce * mask).sum(dim=1) / mask.sum(dim=1)).sum()
            (grad,) = torch.autograd.grad(loss, [delta])
            grad = grad * keep
            # the authors' step: along -grad, its length stepsize * ||logits|| (per row)
            logit_norm = (logits.detach() * keep).flatten(1).norm(dim=1)
            grad_norm = grad.flatten(1).norm(dim=1) + 1e-15
            shift = shift - (s.stepsize * logit_norm / grad_norm)[:, None, None] * grad
        return soft + shift

    def _forward(self, prompt, backward, mask, total: int):
        """The LM given c_new and the soft prefix, mixed with the backward logits for t <= N."""
        import torch

        s = self.settings
        model = self.lm.model
        embeddings = model.get_input_embeddings().weight
        n_max = backward.shape[1]
        mixed_seq, ids = [], []
        with torch.no_grad():
            out = model(input_ids=prompt, use_cache=True)
            for t in range(total):
                forward = out.logits[:, -1].float() / s.temperature_forward
                if t < n_max:
                    mixed = s.mix_rate * forward + (1.0 - s.mix_rate) * backward[:, t]
                    # past a row's own N the forward logits continue alone
                    mixed = torch.where(mask[:, t, None], mixed, forward)
                    mixed_seq.append(mixed)
                else:
                    mixed = forward
                ids.append(_pick(mixed, s.top_k))
                if t + 1 == total:
                    break
                weights = torch.softmax(mixed / s.soft_temperature, dim=-1)
                vocab = min(weights.shape[-1], embeddings.shape[0])
                soft_embed = weights[:, :vocab].to(embeddings.dtype) @ embeddings[:vocab]
                out = model(
                    inputs_embeds=soft_embed[:, None, :],
                    past_key_values=out.past_key_values,
                    use_cache=True,
                )
        return torch.stack(mixed_seq, dim=1), torch.stack(ids, dim=1)


def transcript(context: Sequence[str]) -> str:
    """The plain-text c_new: turns labelled ``A:`` / ``B:`` backwards from the last (B's), one per
    line, then ``A:`` for the reply."""
    n = len(context)
    return "".join(f"{'AB'[(n - i) % 2]}: {t.strip()}\n" for i, t in enumerate(context)) + "A:"


def _pick(logits, top_k: int):
    """The authors' decoding: keep the top-k logits, then the most probable (argmax) of them;
    one id per row."""
    import torch

    if top_k > 0:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[:, -1:]
        logits = torch.where(logits < kth, torch.full_like(logits, -1e10), logits)
    return torch.argmax(logits, dim=-1)


_ENDS = (". ", "! ", "? ", '." ', '!" ', '?" ')


_LABEL = re.compile(r"[AB]:(?=\s|$)")


def _own_turn(text: str) -> str:
    """The reply without the transcript labels the LM wrote first (``A: A:`` is no reply at
    all); ``_finish`` has already cut it at the line break where the next labelled turn starts."""
    text = text.strip()
    while (m := _LABEL.match(text)) is not None:
        text = text[m.end() :].lstrip()
    return text


def _finish(lm: CausalLM, ids: Sequence[int], n: int) -> str:
    """The adapted turn: the first N tokens' text, its last sentence completed from the extra
    tokens (up to the first sentence end after it), cut at the end of the turn (EOS or a line
    break) and at whitespace."""
    eos = lm.tokenizer.eos_token_id
    ids = list(ids)
    if eos is not None and eos in ids:
        ids = ids[: ids.index(eos)]
    head = lm.decode(ids[:n])
    text = lm.decode(ids)
    text = text.lstrip("\n")
    head = head.lstrip("\n")
    cut = text.find("\n")
    if cut >= 0:
        text = text[:cut]
    if len(text) > len(head) and text.startswith(head):
        tail = text[len(head) :] + " "
        ends = [tail.find(e) for e in _ENDS if tail.find(e) >= 0]
        text = head + (tail[: min(ends) + 1] if ends else tail)
    return " ".join(text.split())
