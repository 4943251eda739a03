"""k samples per prompt from any model: the core of ``diveval sample``.

- the model: any ``ChatModel`` of ``models.lm_backends``, the one table of language-model
  backends (``openai:NAME``, ``openai-compatible:URL[:NAME]``, ``hf:NAME``, ``smollm2``) that
  ``generate`` and ``augment`` load theirs from too.
- :mod:`.protocols`: NoveltyBench's four ways of asking for k samples (regenerate, in-context,
  paraphrase, system-prompt), with its exact wording.
- :mod:`.runner`: bounded concurrency, retries with backoff, records written in input order and
  resumed after a kill, the token and cost summary.
- :mod:`.records`: the prompts file, and the sampling part of a score's signature.

Nothing here is imported by ``import diveval``; ``openai`` and ``torch`` load only when a backend
is built.
"""
