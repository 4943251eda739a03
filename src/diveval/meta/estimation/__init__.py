"""Estimation beyond the observed sets: rarefaction and extrapolation, alpha / beta / gamma
diversity across systems, scores at K, the levels of diversity."""
