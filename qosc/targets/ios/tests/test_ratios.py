"""`bandwidth remaining ratio` integers (issue 26): within 1..high, in the shares' proportions as well as integers
can keep them (qosc.targets.ios.ratios)."""

from __future__ import annotations

import itertools
import random

import pytest

from qosc.targets.ios.ratios import TOLERANCE, best_ratios, ratio_error


def naive(values: list[float], high: int) -> tuple[float, float, int]:
    """The best key by brute force: every scale between two rounding crossings, each vector scored from scratch."""
    total = sum(values)
    limit = (high + 0.5) / max(values)
    cuts = sorted({(k + 0.5) / v for v in values for k in range(high) if (k + 0.5) / v < limit})
    edges = [0.0, *cuts, limit]
    keys = []
    for a, b in itertools.pairwise(edges):
        r = [min(high, max(1, round(v * (a + b) / 2))) for v in values]
        errs = [ratio_error(x, sum(r), v, total) for x, v in zip(r, values, strict=True)]
        keys.append((round(max(abs(e) for e in errs), 9), round(sum(e * e for e in errs), 9), sum(r)))
    return min(keys)


def score(values: list[float], ratios: list[int]) -> tuple[float, float, int]:
    errs = [ratio_error(x, sum(ratios), v, sum(values)) for x, v in zip(ratios, values, strict=True)]
    return round(max(abs(e) for e in errs), 9), round(sum(e * e for e in errs), 9), sum(ratios)


@pytest.mark.parametrize("seed", range(40))
def test_the_walk_finds_the_best_rounding_of_any_scale(seed: int) -> None:
    rng = random.Random(seed)
    values = [round(rng.uniform(0.01, 60), rng.choice((0, 1, 2, 4))) or 0.5 for _ in range(rng.randint(1, 5))]
    high = rng.choice((7, 30, 100))
    got = best_ratios(values, high)
    assert len(got) == len(values) and all(1 <= r <= high for r in got)
    assert score(values, got) == naive(values, high)


def test_exact_proportions_are_the_smallest_integers() -> None:
    assert best_ratios([51.5, 32.5, 6], 1000) == [103, 65, 12]
    assert best_ratios([0.25, 1, 30, 58.75], 1000) == [1, 4, 120, 235]
    assert best_ratios([50, 50], 1000) == [1, 1]
    assert best_ratios([7], 1000) == [1]


def test_a_span_beyond_the_range_puts_the_smallest_at_1_and_the_largest_at_the_top() -> None:
    """The issue's 400G port: LBE 10 Mbit/s (0.0025%), 4 Gbit/s (1%), 30%, best effort the rest."""
    values = [0.0025, 1, 30, 58.9975]
    got = best_ratios(values, 1000)
    assert got == [1, 17, 509, 1000]
    errs = [ratio_error(r, sum(got), v, sum(values)) for r, v in zip(got, values, strict=True)]
    assert errs[0] > 22 and all(abs(e) < 0.0025 for e in errs[1:])
    assert abs(errs[0]) > TOLERANCE >= max(abs(e) for e in errs[1:])


def test_many_classes_stay_fast() -> None:
    import time

    rng = random.Random(7)
    values = [rng.uniform(0.1, 10) for _ in range(64)]  # the most classes an IOS XE policy-map has (queues: 64)
    start = time.perf_counter()
    got = best_ratios(values, 1000)
    assert time.perf_counter() - start < 5
    assert max(abs(ratio_error(r, sum(got), v, sum(values))) for r, v in zip(got, values, strict=True)) < 0.01
