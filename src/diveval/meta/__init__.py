"""Meta-evaluation, in three rooms:

- :mod:`diveval.meta.statistics`: statistics that know no metric (resampling, bootstrap
  intervals, Holm, compact letter groups) and the paired tests built on them (``compare``, the
  leaderboard);
- :mod:`diveval.meta.studies`: how metrics agree with people (the agreement board, Tevet &
  Berant's tests, correlations) and the length-bias study;
- :mod:`diveval.meta.estimation`: what a system's sets say beyond themselves (rarefaction and
  extrapolation, alpha / beta / gamma diversity across systems, scores at K, the levels of
  diversity).

``defaults`` holds the few defaults that the command line shows for more than one room.
"""
