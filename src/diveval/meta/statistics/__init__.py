"""Statistics that know no metric: resampling, bootstrap intervals, Holm, the paired tests of compare and the leaderboard."""
