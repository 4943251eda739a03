"""Diversity Threshold Generation."""
