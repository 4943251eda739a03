"""Statistics that know no metric: resampling, bootstrap intervals, Holm, compact letter groups,
and the paired tests of compare and the leaderboard built on them."""
