"""The defaults of the meta methods that the command line shows, apart from the methods: the
parser reads them here without importing numpy or a metric (``diveval --version`` builds every
command's flags). Each method imports its own from here, so a default is still written once."""

from __future__ import annotations

from .. import constants

#: :mod:`diveval.meta.estimation.levels`: seeded draws averaged by the per-input / across-input
#: levels.
DEFAULT_DRAWS = 10
#: :mod:`diveval.meta.studies.agreement` and ``tevet``: Tevet & Berant's tokenizer (declared with
#: the shared values, since generation's presets read it too).
TEVET_TOKENIZER = constants.TEVET_TOKENIZER
