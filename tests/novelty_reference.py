"""NoveltyBench's partition, restated as the reference the equivalence tests compare with."""

from __future__ import annotations


def novelty_bench_partition(responses, equivalent):
    """NoveltyBench's ``partition_responses``: each not yet assigned response opens a class, then
    every later unassigned response equivalent to that class's first member joins it; the judge
    is asked about every pair, identical texts included."""
    part = [-1] * len(responses)
    classes = 0
    for i in range(len(responses)):
        if part[i] >= 0:
            continue
        part[i] = classes
        for j in range(i + 1, len(responses)):
            if part[j] == -1 and equivalent(responses[i], responses[j]):
                part[j] = classes
        classes += 1
    return part
