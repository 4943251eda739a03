"""Lexical diversity metrics: Distinct-n, EAD, n-gram cosine; BLEU and Self-BLEU."""
