"""Catalyst 6500 PFC QoS egress: CoS -> queue/threshold (per port); the device-wide CoS maps are cosmap.py.

Egress queueing on the PFC is by CoS, and the port type fixes the queues
(typed platform data ``CatalystPlatform.port_types``: WRR queues, thresholds per queue,
priority queue, drop modes).  The queue-mapping rule:

1. CoS: cosmap.py (CoS = the service's PCP of a code point's drop precedence, else its IP precedence).
2. Queues, per interface.  A strict-priority service goes to the priority
   queue when the port type has one (else it becomes the top WRR queue, with
   warning QOS127).  The other queue owners fill WRR queues 1, 2, ... in
   ascending (priority, LBE before best effort/default before the rest,
   policy order): LBE always gets a queue of its own at the bottom.  More
   owners than WRR queues: QOS125 at the interface's services.  Services that
   use another's queue (shared-with) ride in it on a lower threshold.  Queues
   left over get weight 1, queue-limit 1% and no CoS.
3. CoS values of no service scheduled on the interface go to the default
   service's queue and threshold.
4. ``wrr-queue bandwidth``: the shares in percent when all are whole numbers
   (91/9 stays 9 91 in queue order, best effort in queue 1), else scaled so the
   largest weight is 255; at least 1.
5. ``wrr-queue queue-limit``: the buffers (else the shares) in percent,
   normalised to 100 across the WRR queues; the priority queue's size is
   fixed by the port type.
6. Thresholds: member i of a queue (sharers first, owner last) uses threshold
   i.  Its drop profile (the one for AF drop precedence low: CoS cannot tell
   AFx1 from AFx3, warning QOS122) gives WRED min/max percentages, or a
   tail-drop percentage equal to the profile's max on ports without WRED
   (warning QOS128); no profile: 100%.  Unused thresholds repeat the last.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from qosc import dscp as dscp_mod
from qosc.model import Interface, Kind, Policy, Service
from qosc.targets.ios.common import (
    Command,
    Findings,
    chunks,
    is_integral,
    members,
    ramp_differs,
    share_percent,
)


def _weights(pcts: list[float | None]) -> list[int]:
    known = [p for p in pcts if p]
    if known and all(is_integral(p) for p in known) and max(known) <= 255:
        return [max(1, round(p)) if p else 1 for p in pcts]
    top = max(known) if known else 1.0
    return [max(1, round(p * 255 / top)) if p else 1 for p in pcts]


def _normalise(values: list[float], total: int) -> list[int]:
    """Integers >= 1 proportional to `values`, summing to `total` (largest remainder)."""
    if not values:
        return []
    weight = sum(values)
    raw = [(v if weight else 1.0) * total / (weight or len(values)) for v in values]
    out = [max(1, int(r)) for r in raw]
    for i in sorted(range(len(raw)), key=lambda i: (-(raw[i] - int(raw[i])), i))[:max(0, total - sum(out))]:
        out[i] += 1
    while sum(out) > total and max(out) > 1:
        out[out.index(max(out))] -= 1
    return out


class PortPlan:
    """The egress queue plan of one interface: lowering of rules 2-6."""

    def __init__(self, policy: Policy, iface: Interface, spec: Mapping[str, Any], found: Findings,
                 wred_max: float):
        self.policy, self.iface, self.spec, self.found = policy, iface, spec, found
        self.wred_max = wred_max
        """The drop probability port WRED reaches at the max threshold (CatalystPlatform.wred_max_probability)."""
        default = policy.default_service
        own = [s for s in policy.services_on(iface) if not s.queue.shared_with]
        self.pq: Service | None = None
        strict = [s for s in own if s.queue.strict]
        for s in strict:  # the port's queues have weights, not rates: a cap of its own would be dropped
            if s.queue.rate_cap is not None and s.policer not in policy.policer_map:
                found.warning("QOS195", f"strict-priority service '{s.name}' has a rate-cap, but the PFC's "
                              "egress queues have weights, not rates: the cap is not written, and its priority "
                              "queue is served first, uncapped, unless an edge policer caps it",
                              s.where.at("queue.rate-cap"), "police the service at the edge (policer:), or say "
                              "rate-cap: none")
        if strict and spec["priority_queue"]:
            self.pq = strict[0]
        elif strict:
            found.warning("QOS127", f"strict-priority service '{strict[0].name}' is served by a WRR queue: "
                          f"port type {self.port_type} has no priority queue",
                          strict[0].where.at("queue.strict"), "use a port type with a priority queue, e.g. 1p2q2t")

        def rank(s: Service) -> tuple[int, int, int, int]:
            kind = 0 if s.kind is Kind.LBE else 1 if (s is default or s.kind is Kind.BEST_EFFORT) else 2
            return (int(s.queue.strict), int(s.queue.priority), kind, policy.services.index(s))

        self.wrr = sorted([s for s in own if s is not self.pq], key=rank)
        if len(self.wrr) > spec["queues"]:
            found.error("QOS125", f"{iface.name} needs {len(self.wrr)} WRR queues "
                        f"({', '.join(s.name for s in self.wrr)}) but port type {self.port_type} has "
                        f"{spec['queues']}" + (" (its priority queue takes only a strict-priority service)"
                                               if spec["priority_queue"] else ""),
                        iface.where.at("services", "port-type"),
                        "carry fewer services here, share a queue (shared-with, never LBE), or use a larger port type")
            self.wrr = self.wrr[:spec["queues"]]

    @property
    def port_type(self) -> str:
        return str(self.spec["name"])

    def queue_of(self, service: Service) -> tuple[int | str, int] | None:
        """(queue number or 'pq', threshold) of a service scheduled on this interface."""
        owner = self.policy.queue_owner(service)
        carried = members(self.policy, owner, self.iface)
        if service not in carried:
            return None
        if owner is self.pq:
            return ("pq", 1)
        if owner in self.wrr:
            return (self.wrr.index(owner) + 1, min(carried.index(service) + 1, int(self.spec["thresholds"])))
        return None

    def _levels(self, owner: Service) -> tuple[str, list[tuple[int, int]]]:
        carried = members(self.policy, owner, self.iface)
        if len(carried) > self.spec["thresholds"]:
            self.found.error("QOS125", f"queue of '{owner.name}' on {self.iface.name} carries {len(carried)} services "
                             f"but port type {self.port_type} has {self.spec['thresholds']} thresholds per queue",
                             carried[0].where.at("queue.shared-with"), "let fewer services share this queue")
        levels, profiled = [], []
        for m in carried:
            names = {n for _, n in m.drop_profiles}
            if len(names) > 1:
                self.found.info("QOS122", f"catalyst6500 queues by CoS (= precedence), so service '{m.name}' "
                                   "cannot drop its AF drop precedences differently; it uses its 'low' drop profile",
                                   m.where.at("drop-profile"), "use one drop profile for the service on this platform")
            dp = self.policy.drop_profile_map.get(m.drop_profile_for(1) or "") if m.queue.aqm == "red" else None
            if dp is None:
                levels.append((100, 100))
                continue
            profiled.append(m)
            lo, hi, _ = dp.thresholds()
            ramp_differs(self.found, "catalyst6500", dp, (lo, hi, self.wred_max),
                         "PFC port WRED has min and max thresholds only, no drop-probability parameter "
                         "(catalyst6500 platform data, wred_source); write min/max with max-probability: "
                         f"{self.wred_max:g}%")
            low = min(100, max(1, round(lo)))
            levels.append((low, min(100, max(low, round(hi)))))
        modes = self.spec["drop"]
        mode = "wred" if (profiled and "wred" in modes) or "tail-drop" not in modes else "tail-drop"
        if profiled and mode == "tail-drop":
            self.found.warning("QOS128", f"port type {self.port_type} has tail-drop thresholds "
                               f"only: drop profile of '{profiled[0].name}' becomes a tail-drop threshold at its "
                               "maximum fill level", profiled[0].where.at("drop-profile"),
                               "use a port type with WRED (1p2q2t, 1p3q8t, 1p7q8t) or remove the drop profile")
        levels += [levels[-1]] * (int(self.spec["thresholds"]) - len(levels))
        return mode, levels[: int(self.spec["thresholds"])]

    def commands(self, claimants: Mapping[int, Service]) -> tuple[list[Command], list[dict[str, Any]]]:
        n = int(self.spec["queues"])
        unused = n - len(self.wrr)
        pcts = [share_percent(s, self.iface) for s in self.wrr]
        bufs = []
        for s, pct in zip(self.wrr, pcts, strict=True):
            buf = s.queue.buffer
            bufs.append(buf.percent.value if buf is not None and buf.percent is not None else (pct or 0.0))
        weights = _weights(pcts) + [1] * unused
        limits = _normalise(bufs, 100 - unused) + [1] * unused
        cmds: list[Command] = [["wrr-queue", "bandwidth", *weights], ["wrr-queue", "queue-limit", *limits]]
        plan: list[dict[str, Any]] = []
        for q, owner in enumerate(self.wrr, 1):
            mode, levels = self._levels(owner)
            both = "wred" in self.spec["drop"] and "tail-drop" in self.spec["drop"]
            if mode == "wred":
                cmds += [["wrr-queue", "random-detect", q]] if both else []
                cmds += [["wrr-queue", "random-detect", "min-threshold", q, *[lo for lo, _ in levels]],
                         ["wrr-queue", "random-detect", "max-threshold", q, *[hi for _, hi in levels]]]
            else:
                cmds += [["no", "wrr-queue", "random-detect", q]] if both else []
                cmds += [["wrr-queue", "threshold", q, *[hi for _, hi in levels]]]
            plan.append({"queue": q, "services": [m.name for m in members(self.policy, owner, self.iface)],
                         "weight": weights[q - 1], "limit": limits[q - 1], "drop": mode, "cos": {}})
        default = self.policy.default_service
        home = self.queue_of(default) if default is not None else None
        home = home or (1, 1)
        by_slot: dict[tuple[int | str, int], list[int]] = {}
        for c in range(8):
            claimant = claimants.get(c)
            slot = (self.queue_of(claimant) if claimant is not None else None) or home
            by_slot.setdefault(slot, []).append(c)
        for (queue, t), cos in sorted(by_slot.items(), key=lambda kv: (kv[0][0] == "pq", str(kv[0]))):
            if queue != "pq" and not 1 <= int(queue) <= len(plan):
                continue  # no WRR queue carries a service here (an interface given no service): nothing to map
            if queue == "pq":
                cmds += [["priority-queue", "cos-map", 1, *part] for part in chunks(cos, 8)]
                plan.append({"queue": "pq", "services": [self.pq.name] if self.pq else [], "cos": {1: cos}})
            else:
                cmds += [["wrr-queue", "cos-map", queue, t, *part] for part in chunks(cos, 8)]
                plan[int(queue) - 1]["cos"].setdefault(t, []).extend(cos)
        return cmds, plan


def describe(plan: list[dict[str, Any]], port_type: str) -> list[str]:
    """Comment lines that show the queue plan to the reviewer."""
    notes = [f"port type {port_type}"]
    for q in plan:
        cos = " ".join(str(c) for t in sorted(q["cos"]) for c in q["cos"][t]) or "none"
        where = "priority queue" if q["queue"] == "pq" else f"queue {q['queue']}"
        notes.append(f"{where}: {', '.join(q['services']) or 'unused'} (CoS {cos})")
    return notes


def dscp_name(code: int) -> str:
    return dscp_mod.name(code, "ios")
