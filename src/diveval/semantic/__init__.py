"""Semantic diversity metrics: NLI Diversity, Sent-BERT diversity, the Vendi Score."""
