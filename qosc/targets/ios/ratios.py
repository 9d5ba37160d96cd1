"""Integer ratios in the proportions of a policy-map's shares, within what `bandwidth remaining ratio` takes.

IOS XE divides what the strict classes leave among the classes by their ratios: a class gets r / sum(r) of it
(shares.py).  Its ratio is an integer of 1 to ``high`` (1000, the range Cisco documents; the command table's
'ratio-range'), so shares of a wide span cannot all keep their proportion: on a 400G port a 10 Mbit/s LBE class
and a 58.9975% best effort class are 1 : 23,599.  ``best_ratios`` picks, among every integer vector that rounding the
shares at some scale gives (each at least 1, none above ``high``), the one whose largest relative error of a
class's part of the sum is smallest, then the one whose relative errors have the smallest sum of squares, then
the smallest integers (51.5 : 32.5 : 6 is 103 : 65 : 12, exact).  The candidates are enumerated exactly: the
rounded vector changes only where a share times the scale crosses k + 0.5, and between two such crossings it is
one vector, so walking the crossings in order visits each reachable vector once (updated one class at a time).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

TOLERANCE = 0.05
"""The relative error of a class's part (its ratio's part of the ratios' sum against its share's part of the
shares' sum) above which the lowering warns (QOS185); every class's comment states its error, however small.

Why 5%: with ratios up to 1000 the largest class is written close to 1000, and a class of ratio r is off by at
most 1 / (2 r), so the error passes 5% only for classes below about a hundredth of the largest share (ratio under
10).  5% is what the whole-percent form `bandwidth percent` already costs a 10% class (10 +- 0.5), the resolution
a Cisco configuration gives a class's guarantee anyway; beyond it the class is guaranteed a different rate than
the policy asks, and the user is told where."""


def best_ratios(shares: Sequence[float], high: int) -> list[int]:
    """Integers of 1..high in the proportions of `shares` (percentages; a share of 0 gets 1), per the module doc."""
    n = len(shares)
    values = [max(float(v), 0.0) for v in shares]
    top = max(values, default=0.0)
    if top <= 0.0 or high < 1:
        return [1] * n
    total = sum(values)
    weight = [total / v if v > 0 else 0.0 for v in values]
    live = [i for i in range(n) if weight[i]]
    limit = (high + 0.5) / top  # past it the largest share rounds above `high`
    crossings = sorted(((k + 0.5) / v, i, k + 1) for i, v in enumerate(values) if v > 0
                       for k in range(1, high) if (k + 0.5) / v < limit)
    ratios = [1] * n
    # part[i] = ratio_i * total / share_i: a class's part of the ratios' sum over its share's part, times that sum
    part = list(weight)
    state: dict[str, float] = {"sum": n, "s1": sum(part[i] for i in live), "s2": sum(part[i] ** 2 for i in live),
             "max": max((part[i] for i in live), default=0.0)}
    lowest = [(part[i], i) for i in live]
    heapq.heapify(lowest)

    def key() -> tuple[float, float, int]:
        while lowest and lowest[0][0] != part[lowest[0][1]]:  # stale entries of classes raised since
            heapq.heappop(lowest)
        low = lowest[0][0] if lowest else state["sum"]
        size = state["sum"]
        worst = max(state["max"] / size - 1, 1 - low / size)
        squares = state["s2"] / size ** 2 - 2 * state["s1"] / size + len(live)
        return round(worst, 9), round(squares, 9), int(size)

    chosen, chosen_key = list(ratios), key()
    j = 0
    while j < len(crossings):
        at = crossings[j][0]
        while j < len(crossings) and crossings[j][0] == at:
            _, i, new = crossings[j]
            state["sum"] += new - ratios[i]
            old, ratios[i] = part[i], new
            part[i] = new * weight[i]
            state["s1"] += part[i] - old
            state["s2"] += part[i] ** 2 - old ** 2
            state["max"] = max(state["max"], part[i])
            heapq.heappush(lowest, (part[i], i))
            j += 1
        got = key()
        if got < chosen_key:
            chosen, chosen_key = list(ratios), got
    return chosen


def ratio_error(ratio: int, ratio_sum: int, share: float, share_sum: float) -> float:
    """The relative error of a class's part: (ratio / ratio_sum) / (share / share_sum) - 1."""
    return ratio * share_sum / (ratio_sum * share) - 1 if share > 0 and ratio_sum > 0 else 0.0
