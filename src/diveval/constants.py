"""Values that several layers of diveval share, each written once: here, at the bottom layer, so
that :mod:`diveval.options` (which declares every option's default), the tokenizers, the metric
families, the models, the reports and the commands all read the same constant. It imports
nothing, so the command-line parser can read it without loading numpy or a metric.
"""

from __future__ import annotations

#: The whitespace tokenizer's name (``str.split()``: :class:`diveval.text.tokenizers.
#: WhitespaceTokenizer`), and the tokenizer a metric uses unless told otherwise.
WHITESPACE = "whitespace"
DEFAULT_TOKENIZER = WHITESPACE

#: BLEU's smoothing unless told otherwise (Self-BLEU's: nltk's ``SmoothingFunction().method1``).
DEFAULT_SMOOTHING = "method1"

#: Tevet & Berant's tokenizer, with which their distinct-n and cosine columns are reproduced: the
#: default of their tests (``meta tevet``, ``meta agreement``) and of the presets tuned on them.
TEVET_TOKENIZER = "tevet"

#: BERT's vocabulary size (bert-base-uncased): EAD's V unless told otherwise, and the v of the EAD
#: paper's designated distribution (:mod:`diveval.meta.studies.length_bias`).
BERT_VOCAB_SIZE = 30522

#: Resamples and interval confidence of every bootstrap, and the seed of every seeded resample
#: and draw of the commands (a method with its own, as MAUVE's, declares it beside the method).
DEFAULT_RESAMPLES = 1000
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SEED = 0
