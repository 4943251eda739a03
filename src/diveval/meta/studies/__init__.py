"""Meta-evaluation studies: agreement with people, Tevet & Berant's tests, length bias,
correlations."""
