"""WordNet 3.0 for METEOR, found offline.

nltk's METEOR needs a WordNet reader. Where it comes from, in this order:

1. ``DIVEVAL_WORDNET``: a folder holding the WordNet database files (``data.noun`` ...);
2. nltk's own ``corpora/wordnet`` (``nltk.download('wordnet')``), when installed;
3. the Debian/Ubuntu packages ``wordnet-base`` and ``wordnet-sense-index`` (``/usr/share/wordnet``).

The Debian database lacks the ``lexnames`` file nltk reads first (the 45 lexicographer files of
WordNet 3.0, listed in the ``lexnames(5WN)`` manual page), and nltk refuses to open files outside
its data path (symbolic links included). So diveval prepares, once, a copy of the database plus
``lexnames`` under ``<cache>/nltk_data/corpora/wordnet`` (cache: ``$DIVEVAL_CACHE`` or
``$XDG_CACHE_HOME/diveval`` or ``~/.cache/diveval``) and appends ``<cache>/nltk_data`` to
``nltk.data.path``.
"""

from __future__ import annotations

import os
import shutil
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import DivevalError

DEBIAN_WORDNET = "/usr/share/wordnet"

# WordNet 3.0 lexicographer files (lexnames(5WN)); category 1 noun, 2 verb, 3 adjective, 4 adverb.
LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute "
    "noun.body noun.cognition noun.communication noun.event noun.feeling noun.food noun.group "
    "noun.location noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession "
    "noun.process noun.quantity noun.relation noun.shape noun.state noun.substance noun.time "
    "verb.body verb.change verb.cognition verb.communication verb.competition verb.consumption "
    "verb.contact verb.creation verb.emotion verb.motion verb.perception verb.possession "
    "verb.social verb.stative verb.weather adj.ppl"
).split()
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}

# the files nltk's WordNetCorpusReader opens
_NEEDED = [f"{kind}.{pos}" for kind in ("index", "data") for pos in ("noun", "verb", "adj", "adv")]
_NEEDED += [f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")]
_OPTIONAL = ["index.sense", "cntlist.rev"]


class WordNetMissingError(DivevalError, LookupError):
    def __init__(self, looked: list[str]):
        super().__init__(
            "METEOR needs WordNet 3.0 and none was found (looked in: " + ", ".join(looked) + "). "
            "Install it with `apt-get install wordnet-base wordnet-sense-index` (Debian/Ubuntu), "
            "or `python -m nltk.downloader wordnet`, or set DIVEVAL_WORDNET to a folder holding "
            "the WordNet database files"
        )


def lexnames_text() -> str:
    return "".join(
        f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES)
    )


def cache_dir() -> Path:
    root = os.environ.get("DIVEVAL_CACHE")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "diveval"


def _is_database(folder: Path) -> bool:
    return all((folder / f).is_file() for f in _NEEDED)


def _prepare(source: Path) -> Path:
    """A copy of ``source`` with ``lexnames`` in an nltk data tree; returns the corpus folder."""
    data_root = cache_dir() / "nltk_data"
    target = data_root / "corpora" / "wordnet"
    if _is_database(target) and (target / "lexnames").is_file():
        return target
    tmp = data_root / "corpora" / f".wordnet-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    for name in _NEEDED + _OPTIONAL:
        if (source / name).is_file():
            shutil.copyfile(
                source / name, tmp / name
            )  # copies: nltk refuses links leaving its root
    if (source / "lexnames").is_file():
        shutil.copyfile(source / "lexnames", tmp / "lexnames")
    else:
        (tmp / "lexnames").write_text(lexnames_text(), encoding="utf-8")
    if target.exists():
        shutil.rmtree(target, ignore_errors=True)
    try:
        os.replace(tmp, target)
    except OSError:  # another process prepared it meanwhile
        shutil.rmtree(tmp, ignore_errors=True)
        if not (_is_database(target) and (target / "lexnames").is_file()):
            raise
    return target


def _reader_class():
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class _WordNet30(WordNetCorpusReader):
        # nltk maps synsets to its own "wordnet" corpus when versions differ; this database *is*
        # WordNet 3.0, the identity mapping, so skip loading a second copy.
        def map_wn(self, version="wordnet"):
            return None

    return _WordNet30


# A per-process cache is safe here: the WordNet reader is only read after loading, and lru_cache
# is thread-safe (two threads may at worst load it once each).
@lru_cache(maxsize=1)
def load_wordnet() -> tuple[Any, str]:
    """(reader, description) of the first WordNet found; raises WordNetMissingError naming what to install."""
    import nltk

    looked = []
    env = os.environ.get("DIVEVAL_WORDNET")
    candidates: list[tuple[str, Path]] = []
    if env:
        candidates.append(("env", Path(env)))
    try:
        candidates.append(("nltk", Path(str(nltk.data.find("corpora/wordnet")))))
    except LookupError:
        looked.append("nltk_data corpora/wordnet")
    candidates.append(("debian", Path(DEBIAN_WORDNET)))
    for kind, folder in candidates:
        looked.append(str(folder))
        if not _is_database(folder):
            continue
        if kind == "nltk":
            from nltk.corpus import wordnet

            wordnet.ensure_loaded()
            return wordnet, "nltk-wordnet-" + str(wordnet.get_version())
        corpus = _prepare(folder)
        root = str(corpus.parent.parent)
        if root not in [str(p) for p in nltk.data.path]:
            nltk.data.path.append(root)
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore"
            )  # "multilingual functions are not available": not needed
            reader = _reader_class()(str(corpus), None)
        return reader, f"{kind}-wordnet-{reader.get_version()}"
    raise WordNetMissingError(looked)
