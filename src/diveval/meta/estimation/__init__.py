"""Estimation beyond the observed sets: rarefaction and extrapolation, alpha/beta/gamma diversity, scores at K, levels of diversity."""
