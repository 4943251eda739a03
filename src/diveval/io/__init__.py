"""Readers and writers: txt, jsonl, csv and the public data formats."""
