"""DELOREAN context adaptation: the algorithm's contract, on a tiny causal LM the test builds."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from diveval.augment import load_causal_lm  # noqa: E402
from diveval.augment.delorean import (  # noqa: E402
    DeloreanAdapter,
    DeloreanSettings,
    _own_turn,
    transcript,
)
from diveval.errors import InputError  # noqa: E402

C_NEW = ["hello how are you", "i am fine thanks what do you like to eat"]
E_OLD = "i like pizza . the weather is nice"


@pytest.fixture(scope="module")
def lm(tiny_causal_lm):
    return load_causal_lm(tiny_causal_lm, device="cpu")


def _ids(adapter, context, reference):
    e_old = adapter.target_ids(reference)
    prompt = adapter.prompt_ids(context, len(e_old) + adapter.settings.extra_tokens)
    return prompt, e_old, adapter.decode_ids(prompt, e_old)


def test_zero_iterations_is_greedy_decoding_on_the_new_context(lm):
    adapter = DeloreanAdapter(lm, iterations=0, extra_tokens=4)
    prompt, e_old, ids = _ids(adapter, C_NEW, E_OLD)
    total = len(e_old) + 4
    ref = lm.model.generate(
        torch.tensor([prompt]),
        attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
        do_sample=False,
        max_new_tokens=total,
        min_new_tokens=total,
        pad_token_id=1,
    )[0, len(prompt) :].tolist()
    assert ids == ref
    assert len(ids) == total


def test_maximum_content_weight_reproduces_the_old_reference(lm):
    # mix_rate 0: the forward logits get no weight; the content loss decides every position
    adapter = DeloreanAdapter(
        lm, iterations=2, backward_iters=10, mix_rate=0.0, stepsize=1.0, extra_tokens=0
    )
    _, e_old, ids = _ids(adapter, C_NEW, E_OLD)
    assert ids == e_old
    # and the greedy start was something else: the backward pass did the work
    greedy = DeloreanAdapter(lm, iterations=0, extra_tokens=0)
    assert _ids(greedy, C_NEW, E_OLD)[2] != e_old
    assert adapter.adapt(E_OLD, [], C_NEW) == E_OLD


def test_forward_weight_one_ignores_the_old_reference(lm):
    # mix_rate 1: the backward logits get no weight; the output does not depend on e_old's tokens
    a = DeloreanAdapter(lm, iterations=2, mix_rate=1.0, extra_tokens=0)
    out1 = _ids(a, C_NEW, "i like pizza")[2]
    out2 = _ids(a, C_NEW, "go home now")[2]
    assert out1 == out2


def test_language_model_parameters_never_change_nor_get_gradients(lm):
    before = {k: v.detach().clone() for k, v in lm.model.state_dict().items()}
    flags = [p.requires_grad for p in lm.model.parameters()]
    adapter = DeloreanAdapter(lm, iterations=3, backward_iters=3, stepsize=0.5)
    out = adapter.adapt(E_OLD, ["what do you like"], C_NEW)
    assert out is None or isinstance(out, str)
    assert all(p.grad is None for p in lm.model.parameters())
    assert [p.requires_grad for p in lm.model.parameters()] == flags
    after = lm.model.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)


def test_same_seed_same_output(tiny_causal_lm):
    outs = []
    for _ in range(2):
        lm = load_causal_lm(tiny_causal_lm, device="cpu")
        adapter = DeloreanAdapter(lm, iterations=3, stepsize=0.05, seed=7)
        outs.append((adapter.adapt(E_OLD, [], C_NEW), _ids(adapter, C_NEW, E_OLD)[2]))
    assert outs[0] == outs[1]


def test_backward_pass_lowers_the_content_loss(lm):
    import torch.nn.functional as F

    adapter = DeloreanAdapter(lm, iterations=1, backward_iters=5, stepsize=0.01)
    prompt, e_old, _ = _ids(adapter, C_NEW, E_OLD)
    target = torch.tensor([e_old])
    ys, _ = adapter._greedy_init(torch.tensor([prompt]), len(e_old))
    moved = adapter._backward(ys, target, torch.ones_like(target, dtype=torch.bool))
    assert F.cross_entropy(moved[0], target[0]) < F.cross_entropy(ys[0], target[0])
    assert not moved.requires_grad


def test_signature_names_every_choice(lm):
    a = DeloreanAdapter(lm)
    assert a.settings == DeloreanSettings()
    for part in (
        "iters:5",
        "bwd:5",
        "mix:0.92",
        "step:0.0004",
        "topk:1",
        "init:greedy",
        "weights:",
    ):
        assert part in a.signature


def test_bad_settings_are_input_errors(lm):
    with pytest.raises(InputError):
        DeloreanAdapter(lm, mix_rate=1.5)
    with pytest.raises(InputError):
        DeloreanAdapter(lm, iterations=-1)


def test_a_batch_gives_what_each_reference_gives_alone(lm):
    adapter = DeloreanAdapter(lm, iterations=3, stepsize=0.05, extra_tokens=3)
    refs = [E_OLD, "yes", "i want to go home , i feel sad", ""]
    together = adapter.adapt_many(refs, C_NEW)
    alone = [adapter.adapt(r, [], C_NEW) for r in refs]
    assert together == alone
    assert together[3] == ""  # an empty reference is kept as it is


def test_teacher_start_is_the_lm_forced_on_the_old_reference(lm):
    # the authors' start: one forward pass alone, with all weight on Ỹ = the LM's logits
    # teacher-forced on e_old after c_new, gives their argmax
    adapter = DeloreanAdapter(lm, init="teacher", iterations=1, mix_rate=0.0, extra_tokens=0)
    prompt, e_old, ids = _ids(adapter, C_NEW, E_OLD)
    with torch.no_grad():
        logits = lm.model(input_ids=torch.tensor([prompt + e_old])).logits[0]
    forced = logits[len(prompt) - 1 : len(prompt) - 1 + len(e_old)].argmax(-1).tolist()
    assert ids == forced
    with pytest.raises(InputError):
        DeloreanAdapter(lm, init="teacher", iterations=0)
    with pytest.raises(InputError):
        DeloreanAdapter(lm, init="sampled")


def test_the_new_context_is_a_speaker_labelled_transcript_ending_with_the_responder(lm):
    # the last context turn is B's, the reply A's: the LM continues with the next turn
    assert transcript(["hi there", "hello", " how are you "]) == (
        "B: hi there\nA: hello\nB: how are you\nA:"
    )
    assert transcript([]) == "A:"
    adapter = DeloreanAdapter(lm)
    assert adapter.prompt_ids(["hello", "how are you"], 8) == lm.encode(
        "A: hello\nB: how are you\nA:"
    )
    assert "prompt:speakers" in adapter.signature and "cut:turn-labels" in adapter.signature


@pytest.mark.parametrize(
    "raw, reply",
    [
        ("Yes, I do.", "Yes, I do."),
        ("A:", ""),
        ("A: A: A: A:", ""),
        ("A: Yes, I have it.", "Yes, I have it."),
        ("B: A glass of wine .", "A glass of wine ."),
        ("Plan A: go home", "Plan A: go home"),  # a label after text is text
    ],
)
def test_transcript_labels_never_reach_the_adapted_reply(raw, reply):
    assert _own_turn(raw) == reply
