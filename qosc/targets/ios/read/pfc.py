"""Catalyst 6500 PFC egress queueing: `mls qos map dscp-cos`, `wrr-queue` and `priority-queue` as classes.

Source: Catalyst 6500 Release 12.2SX Software Configuration Guide, "Configuring
PFC QoS": the DSCP-to-CoS map (default: CoS = DSCP >> 3) selects the egress
queue through `wrr-queue cos-map QUEUE THRESHOLD COS...` and `priority-queue
cos-map 1 COS...` (strict priority); `wrr-queue bandwidth W1 W2 ...` are
relative weights, so queue q is guaranteed W_q / sum(W) of the port;
`wrr-queue queue-limit` percentages of the port buffer; `wrr-queue
random-detect min-threshold / max-threshold QUEUE T1..T8` WRED per
threshold in percent of the queue (drop probability rising to 100 % at the
maximum), `wrr-queue threshold` tail-drop thresholds.  The DSCP of a packet
is not rewritten by egress queueing.  A CoS mapped to no queue goes to
queue 1 (the default cos-map puts CoS 0 and 1 there).
"""

from __future__ import annotations

from qosc.behaviour.model import Class, Curve
from qosc.diagnostics import Location

Lines = list[tuple[tuple[str, ...], Location | None]]


def dscp_cos(globals_: Lines) -> list[int]:
    table = [code >> 3 for code in range(64)]
    for w, _ in globals_:
        if w[:4] == ("mls", "qos", "map", "dscp-cos") and "to" in w:
            k = w.index("to")
            for x in w[4:k]:
                table[int(x)] = int(w[k + 1])
    return table


def is_pfc(lines: Lines) -> bool:
    return any(w[:1] in (("wrr-queue",), ("priority-queue",)) for w, _ in lines)


def classes(lines: Lines, globals_: Lines, where: Location | None) -> tuple[tuple[Class, ...], list[str | None]]:
    cos_queue: dict[int, str] = {}
    weights: list[int] = []
    limits: list[float] = []
    red: dict[tuple[str, int], list[float]] = {}
    for w, _ in lines:
        if w[:2] == ("wrr-queue", "cos-map") and len(w) >= 5:
            for cos in w[4:]:
                cos_queue[int(cos)] = f"queue-{w[2]}"
        elif w[:2] == ("priority-queue", "cos-map") and len(w) >= 4:
            for cos in w[3:]:
                cos_queue[int(cos)] = "priority-queue"
        elif w[:2] == ("wrr-queue", "bandwidth"):
            weights = [int(x) for x in w[2:]]
        elif w[:2] == ("wrr-queue", "queue-limit"):
            limits = [float(x) for x in w[2:]]
        elif w[:2] == ("wrr-queue", "random-detect") and len(w) >= 5 and w[2] in ("min-threshold", "max-threshold"):
            red[(w[2], int(w[3]))] = [float(x) for x in w[4:]]
    total = sum(weights) or 1
    names = sorted(set(cos_queue.values()) | {"queue-1"}, key=lambda n: (n == "priority-queue", n))
    out = []
    for name in names:
        if name == "priority-queue":
            out.append(Class(name, strict=True, origin=where))
            continue
        q = int(name.split("-")[1])
        share = round(weights[q - 1] * 100.0 / total, 6) if q <= len(weights) else None
        buffer = ("percent", limits[q - 1]) if q <= len(limits) else None
        low, high = red.get(("min-threshold", q)), red.get(("max-threshold", q))
        drop = ((0, Curve(((low[0], 0.0), (high[0], 100.0)), True, 100.0)),) if low and high else ()
        out.append(Class(name, share=share, buffer=buffer, drop=drop, queue=q, origin=where))
    table = dscp_cos(globals_)
    return tuple(out), [cos_queue.get(table[code], "queue-1") for code in range(64)]
