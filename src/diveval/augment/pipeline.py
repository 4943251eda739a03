"""Reference augmentation of rated items: retrieval + commonsense + context adaptation.

An item is a dict with the context (a list of turns, or one string with turns separated by
``||||`` as in the SCARCE files), the human reference (``reference``, else ``prevgt``, else the
first of ``references`` / ``all_references``), optionally the turns after the reference
(``future``) and an ``id`` (or ``context_id``). Items that share context, reference and future
are retrieved once.

Each output item is the input plus ``references`` (the existing references followed by the added
ones, without duplicates) and ``added_references``: one record per added reference with its
source, for a person to audit: ``{"text", "source": "retrieval", "score", "bm25": {past,
response, future}, "corpus", "dialogue", "turn"}`` or ``{"text", "source": "commonsense",
"relation", "inference", "knowledge"}``; ``"original"`` holds the text before adaptation when an
adapter changed it.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, Sequence

from ..errors import InputError
from ..io import json_out
from ..io.readers import iter_jsonl, read_text
from ..io.resume import read_resumable
from ..progress import track
from ..signature_copy import same_signature
from .adapters import ContextAdapter, IdentityAdapter
from .commonsense import KnowledgeSource, to_sentence
from .retrieval import BM25Retriever, Query, normalise

CONTEXT_SEP = "||||"


def item_fields(rec: dict, index: int) -> tuple[list[str], str, list[str], list[str], str | None]:
    """(context turns, reference, future turns, existing references, id) of one item."""
    ctx = rec.get("context")
    if isinstance(ctx, str):
        ctx = [t.strip() for t in ctx.split(CONTEXT_SEP)] if ctx.strip() else []
    if not isinstance(ctx, list) or not all(isinstance(t, str) for t in ctx):
        raise InputError(
            f'item {index}: "context" must be a list of turns or a "||||"-separated string'
        )
    refs = rec.get("references", rec.get("all_references", []))
    if isinstance(refs, str):
        refs = [refs]
    if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
        raise InputError(f'item {index}: "references" must be a list of strings')
    ref = rec.get("reference", rec.get("prevgt"))
    if ref is None and refs:
        ref = refs[0]
    if not isinstance(ref, str):
        raise InputError(
            f'item {index}: needs a human reference ("reference", "prevgt" or "references")'
        )
    fut = rec.get("future", [])
    if isinstance(fut, str):
        fut = [t.strip() for t in fut.split(CONTEXT_SEP)] if fut.strip() else []
    if not isinstance(fut, list) or not all(isinstance(t, str) for t in fut):
        raise InputError(f'item {index}: "future" must be a list of turns')
    key = rec.get("id", rec.get("context_id"))
    return ctx, ref, fut, list(refs) or [ref], None if key is None else str(key)


def iter_augmented(
    items: Iterable[dict],
    retriever: BM25Retriever | None = None,
    k: int = 10,
    knowledge: KnowledgeSource | None = None,
    adapter: ContextAdapter | None = None,
    progress: bool = False,
    paraphraser: Any = None,
    skip: int = 0,
) -> Iterator[dict]:
    """``augment`` one item at a time, after the first ``skip`` items (a resumed run)."""
    items = list(items)
    if retriever is None and knowledge is None and paraphraser is None:
        raise InputError(
            "nothing to add references from: give a retrieval corpus, a knowledge source "
            "or a paraphraser"
        )
    adapter = adapter or IdentityAdapter()
    fields = [item_fields(rec, i) for i, rec in enumerate(items)]
    cache: dict[tuple, list[dict]] = {}
    todo = list(zip(items, fields))[skip:]
    for rec, (ctx, ref, fut, refs, key) in track(
        todo, "augmenting", len(todo), None if progress else False
    ):
        ck = (tuple(ctx), ref, tuple(fut), key, tuple(refs))
        if ck not in cache:
            cache[ck] = _added(ctx, ref, fut, key, retriever, k, knowledge, adapter)
            if paraphraser is not None:
                cache[ck] += _paraphrases(refs, paraphraser)
        added = cache[ck]
        seen = {normalise(r) for r in refs}
        new_refs = list(refs)
        for a in added:
            n = normalise(a["text"])
            if n and n not in seen:
                seen.add(n)
                new_refs.append(a["text"])
        rec = dict(rec)
        rec["references"] = new_refs
        rec["added_references"] = added
        yield rec


def _paraphrases(refs: Sequence[str], paraphraser: Any) -> list[dict]:
    """PARAPHRASE-SINGLE / -MULTI: one paraphrase of every human reference of the item."""
    out = []
    for ref in refs:
        text = paraphraser.paraphrase(ref)
        if text:
            out.append(
                {"text": text, "source": "paraphrase", "of": ref, "paraphraser": paraphraser.name}
            )
    return out


@same_signature(iter_augmented)
def augment(*args: Any, **options: Any) -> list[dict]:
    """Add up to ``k`` retrieved references (and any commonsense ones, and paraphrases of the
    human references when a ``paraphraser`` is given) to every item: ``iter_augmented``'s
    parameters, all items at once."""
    return list(iter_augmented(*args, **options))


def augment_to_file(
    items: Sequence[dict],
    out: str,
    run: dict,
    *,
    log: Any = None,
    **options: Any,
) -> list[dict]:
    """``augment`` written to ``out`` one item per line as it finishes (flushed), each line with
    the ``run`` settings under ``"augment_run"``. A run stopped at any moment is resumed by the
    next one with the same settings: the items already in ``out`` are kept (a last line cut short
    is dropped) and the rest appended, so the file ends as an uninterrupted run's would. Other
    settings: an InputError (a file never mixes two runs)."""
    import os

    done = read_resumable(out, "augment_run", run, "augment")
    if len(done) > len(items):
        raise InputError(f"holds {len(done)} items, more than the {len(items)} of the input", out)
    if done and log is not None:
        log(f"resuming after {len(done)} items already in {out} ({len(items) - len(done)} to go)")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    records = list(done)
    with open(out, "a", encoding="utf-8") as fh:
        for rec in iter_augmented(items, skip=len(done), **options):
            rec["augment_run"] = run
            fh.write(json_out.dumps(rec, ensure_ascii=False) + "\n")
            fh.flush()
            records.append(rec)
    return records


def _added(
    ctx: Sequence[str],
    ref: str,
    fut: Sequence[str],
    key: str | None,
    retriever,
    k: int,
    knowledge,
    adapter,
) -> list[dict]:
    # every candidate first (records without their text), then one adaptation batch for all
    pending: list[tuple[dict, str, list[str]]] = []  # (record, candidate text, its context)
    if retriever is not None:
        w = retriever.window
        q = Query(
            " ".join(ctx[-w:]), ref, " ".join(fut[:w]), own_turns=tuple(ctx) + (ref,) + tuple(fut)
        )
        for r in retriever.search(q, k):
            rec = {
                "source": "retrieval",
                "score": r.score,
                "bm25": {
                    "past": r.field_scores[0],
                    "response": r.field_scores[1],
                    "future": r.field_scores[2],
                },
                "corpus": r.source,
                "dialogue": r.dialogue_id,
                "turn": r.turn,
            }
            source_ctx = list(retriever.corpus[r.dialogue_index].turns[: r.turn])
            pending.append((rec, r.text, source_ctx))
    if knowledge is not None:
        for inf in knowledge.infer(list(ctx), key):
            sentence = to_sentence(inf)
            if sentence is None:
                continue
            rec = {
                "source": "commonsense",
                "relation": inf.relation,
                "inference": inf.text,
                "knowledge": knowledge.name,
            }
            # for commonsense the old context is the target context itself (the paper's setup)
            pending.append((rec, sentence, list(ctx)))
    texts = adapt_all(adapter, [c for _, c, _ in pending], [s for _, _, s in pending], list(ctx))
    added: list[dict] = []
    for (rec, candidate, _), text in zip(pending, texts):
        if text is None:
            continue
        rec = {"text": text, **rec}
        if text != candidate:
            rec["original"] = candidate
        added.append(rec)
    return added


def adapt_all(
    adapter: ContextAdapter,
    texts: Sequence[str],
    source_contexts: Sequence[Sequence[str]],
    target_context: Sequence[str],
) -> list[str | None]:
    """Every candidate adapted to the target context: in one batch when the adapter can
    (``adapt_many``: DELOREAN shares the LM's work over candidates of one context), else one by
    one."""
    if not texts:
        return []
    many = getattr(adapter, "adapt_many", None)
    if many is not None:
        return list(many(list(texts), list(target_context)))
    return [adapter.adapt(t, src, target_context) for t, src in zip(texts, source_contexts)]


def read_items(path: str) -> list[dict]:
    """Items to augment: JSON lines (one object per line) or one JSON list of objects (the SCARCE
    reference files)."""
    text = read_text(path)
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"malformed JSON ({exc.msg})", path, exc.lineno) from None
        for i, rec in enumerate(data):
            if not isinstance(rec, dict):
                raise InputError(f"item {i} is not a JSON object", path)
        return data
    out = [rec for _, rec in iter_jsonl(path)]
    if not out:
        raise InputError("no items in the file", path)
    return out
