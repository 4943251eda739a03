"""Meta-evaluation: correlations, bootstrap intervals, Tevet & Berant tests, length bias."""
