"""Readers and writers: txt, jsonl, json, csv, tsv, Parquet, datasets folders and the public data
formats.

The formats are one table, ``io.formats.FORMATS``: each entry says how a path is recognised
(its ending, or a folder test), how it is read into records, how Ray Data reads it and how rows
are written back in it. Adding a format is one entry there, e.g.::

    Format("jsonl.gz", (".jsonl.gz",), RECORDS, binary=True,
           rows=lambda path, text: jsonl_records(path, gzip.open(path, "rt").read()),
           ray=lambda ray, path: ray.data.read_json(path, lines=True))
"""
