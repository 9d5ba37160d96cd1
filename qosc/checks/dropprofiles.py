"""QOS070-QOS074: drop profiles must be curves RED can run, RED needs one, and only RED runs one."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from qosc.diagnostics import Diagnostic, error, warning
from qosc.model import Policy


def check_curves(policy: Policy) -> Iterator[Diagnostic]:
    for dp in policy.drop_profiles:
        loc = dp.where.at("points", "min")
        bad = [v for point in dp.points for v in point if not 0.0 <= v <= 100.0]
        if bad:
            yield error("QOS070", f"drop profile '{dp.name}' has {bad[0]:g}, outside 0..100 %", loc,
                        "fill levels and drop probabilities are percentages from 0 to 100")
            continue
        fills = [p[0] for p in dp.points]
        probs = [p[1] for p in dp.points]
        if any(b <= a for a, b in pairwise(fills)) or any(b < a for a, b in pairwise(probs)):
            yield error("QOS071", f"drop profile '{dp.name}' is not monotonic: fill levels must rise and drop "
                        "probabilities must not fall", loc, "e.g. points: [[15, 30], [19, 50], [24, 75], [30, 100]]")


def check_unused(policy: Policy) -> Iterator[Diagnostic]:
    used = {name for s in policy.services for _, name in s.drop_profiles}
    for dp in policy.drop_profiles:
        if dp.name not in used:
            yield warning("QOS072", f"drop profile '{dp.name}' is not used by any service", dp.where.loc,
                          "reference it with drop-profile: or remove it")


def check_red_without_curve(policy: Policy) -> Iterator[Diagnostic]:
    for s in policy.services:
        if s.queue.aqm == "red" and not s.drop_profiles:  # only when written: build defaults red with a profile
            yield warning("QOS073", f"service '{s.name}' asks for aqm: red but has no drop profile: RED needs a "
                          "curve, so every target runs tail drop for it", s.where.at("queue.aqm"),
                          "give the service a drop-profile:, or write aqm: none")


def check_curve_without_red(policy: Policy) -> Iterator[Diagnostic]:
    """QOS074: a drop profile beside aqm: none (tail drop) or codel (no curve) is run by no target (they all read
    the profile only under aqm: red), so the profile the user wrote is silently ignored."""
    for s in policy.services:
        if s.queue.aqm == "red" or not s.drop_profiles:
            continue
        names = list(dict.fromkeys(f"'{name}'" for _, name in s.drop_profiles))
        profiles = f"drop profile{'s' if len(names) > 1 else ''} {', '.join(names)}"
        what = "is tail drop" if s.queue.aqm == "none" else "has no drop curve"
        yield warning("QOS074", f"service '{s.name}' has {profiles}, but aqm: {s.queue.aqm} {what}: no "
                      "target runs the profile", s.where.at("queue.aqm", "drop-profile"),
                      "write aqm: red to run the profile (the default with a drop profile), or remove drop-profile:")


RULES = (check_curves, check_unused, check_red_without_curve, check_curve_without_red)
