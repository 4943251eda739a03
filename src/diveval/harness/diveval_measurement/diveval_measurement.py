"""diveval as a Hugging Face ``evaluate`` measurement: diversity of k responses per prompt.

Load it offline from the folder diveval ships::

    import evaluate
    from diveval.harness import measurement_path
    diversity = evaluate.load(measurement_path())
    diversity.compute(data=[["a cat", "a dog"], ["hi", "hello there"]], metrics=["distinct-2"])

Each row of ``data`` is one prompt's k responses (a set); the result is diveval's sets value of
each metric (the metric on each set, averaged over prompts), equal to
``diveval.score(data, metrics).value``, with the signatures under ``"signatures"``.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import datasets
import evaluate

from diveval.harness import score_sets

_DESCRIPTION = """\
Diversity of several responses to the same prompt (diveval's sets setting): Distinct-n, EAD,
Self-BLEU, averaged Distinct, cosine diversity and every other metric diveval registers for sets.
"""

_CITATION = """\
Tevet & Berant (2021), Evaluating the Evaluation of Diversity in Natural Language Generation;
see each metric's own citation in diveval's metric pages.
"""

_KWARGS_DESCRIPTION = """
Args:
    data (list of list of str): one row per prompt, the k >= 2 responses sampled for it.
    metrics (list of str, optional): diveval metric names; default: diveval's default metrics for
        sets (distinct-1, distinct-2, avg-distinct, ead, cos-diversity, self-bleu), of which those
        undefined on the input are skipped.
    Other keywords are diveval's run options (tokenizer, lowercase, vocab, ...).
Returns:
    {metric: value, ..., "signatures": {metric: signature}}
Examples:
    >>> diversity = evaluate.load(measurement_path())
    >>> diversity.compute(data=[["a b", "a c"]], metrics=["distinct-1"])["distinct-1"]
    0.75
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DivevalMeasurement(evaluate.Measurement):
    """Diversity of each prompt's k responses, averaged over prompts (diveval's sets setting)."""

    def _info(self) -> evaluate.MeasurementInfo:
        return evaluate.MeasurementInfo(
            module_type="measurement",
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"data": datasets.Sequence(datasets.Value("string"))}),
        )

    def _compute(
        self, data: Sequence[Sequence[str]], metrics: Optional[Sequence[str]] = None, **options: Any
    ) -> dict[str, Any]:
        if isinstance(metrics, str):
            metrics = [metrics]
        scores = score_sets(metrics, data, options)
        out: dict[str, Any] = {name: s.value for name, s in scores.items()}
        out["signatures"] = {name: s.signature for name, s in scores.items()}
        return out
