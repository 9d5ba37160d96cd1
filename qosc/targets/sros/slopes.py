"""A drop profile as the one line an SR OS slope draws: start-avg, max-avg and max-prob (whole percent).

An SR OS slope drops nothing below start-avg, rises linearly to max-prob at
max-avg and drops everything above max-avg (Nokia 7750 SR Quality of Service
Guide, 'Slope policies').  A RED profile (min, max, probability) is exactly
such a line.  Any other profile (segmented points, an interpolated curve that
does not start at 0 %) is written as the line closest to it: the one whose
largest difference from the policy's curve, sampled every 5 % of fill with
corners free to move by 1.5 % as verify compares curves (qosc.behaviour.compare),
is smallest; the difference is said with the slope.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from qosc.behaviour.intent import curve as behaviour_curve
from qosc.behaviour.model import Curve
from qosc.model import DropProfile

SAMPLES = tuple(i * 5.0 for i in range(21))


@dataclass(frozen=True)
class Line:
    start: int
    top: int
    prob: int
    off: float
    """Largest difference (percentage points of drop probability) from the profile's curve."""
    exact: bool


def line_curve(start: float, top: float, prob: float) -> Curve:
    """The curve an SR OS slope draws (a step where start-avg equals max-avg)."""
    if top <= start:
        return Curve(((top, prob),), interpolate=False, beyond=100.0)
    return Curve(((start, 0.0), (top, prob)), interpolate=True, beyond=100.0)


def fit(profile: DropProfile) -> Line:
    if profile.red is not None:
        lo, hi, p = profile.red
        return Line(round(lo), round(hi), round(p), 0.0, True)
    points = tuple(profile.points)
    if len(points) == 1 and points[0][1] >= 100:  # drop everything from one fill level on: a step
        return Line(round(points[0][0]), round(points[0][0]), 100, 0.0, True)
    if profile.interpolate and len(points) == 2 and points[0][1] == 0:
        (lo, _), (hi, p) = points
        return Line(round(lo), round(hi), round(p), 0.0, True)
    return _fit(points, profile.interpolate)


SHIFTS = (-1.5, 0.0, 1.5)
"""Fill levels a corner may move by when verify compares curves (qosc.behaviour.compare.Tolerance.fill)."""


@lru_cache(maxsize=256)
def _fit(points: tuple[tuple[float, float], ...], interpolate: bool) -> Line:
    want_curve = behaviour_curve(DropProfile("fit", points, interpolate))
    fills = list(SAMPLES)
    want = [want_curve.at(f) for f in fills]
    last = round(points[-1][0])
    best: Line | None = None
    for top in range(max(0, last - 10), min(100, last + 10) + 1):
        for prob in sorted({100, round(want_curve.at(top))}):
            for start in range(top + 1):
                off = max(min(abs(w - _line_at(start, top, prob, f + d)) for d in SHIFTS)
                          for w, f in zip(want, fills, strict=True))
                if best is None or off < best.off - 1e-9:
                    best = Line(start, top, prob, round(off, 2), False)
    assert best is not None
    return best


def _line_at(start: int, top: int, prob: int, fill: float) -> float:
    """line_curve(start, top, prob).at(fill), without building the curve (the fit tries thousands of lines)."""
    if fill > top:
        return 100.0
    if fill < start:
        return 0.0
    if top <= start:
        return float(prob)
    return prob * (fill - start) / (top - start)
