"""JUNOS schedulers and scheduler maps as the classes of an interface.

Source: Junos OS Class of Service User Guide (Routing Devices), release 21.4: "Configuring Schedulers"
(transmit-rate percent, an absolute rate, `remainder` (what the other schedulers' rates leave, shared by the
schedulers that take the remainder), `exact` (the rate is also a cap); shaping-rate percent or absolute (a cap);
buffer-size percent, temporal (microseconds) or remainder; priority low .. strict-high, low-latency (strict:
facts.STRICT); drop-profile-map by loss
priority, protocol any or tcp (non-tcp maps are not TCP traffic's); explicit-congestion-notification (ECN
marking instead of early drop, "Understanding CoS Explicit Congestion Notification")), "Configuring Drop
Profiles" (interpolate fill-level / drop-probability, or segmented fill-level .. drop-probability points).
An absolute rate is a share of the port's speed where the configuration or the port's name says it (`speed`
under interfaces, or `chassis fpc F pic P port N speed` for the ports F/P/N (Junos OS Interfaces Fundamentals,
"Port Speed"); ge- 1 Gbit/s, xe- 10 Gbit/s, fe- 100 Mbit/s: Junos OS Interfaces Fundamentals, "Interface
Naming Overview"); a statement of a scheduler the policy language has no word for is named (QOS172).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from qosc.behaviour.model import Class, Curve
from qosc.configtext import guard
from qosc.diagnostics import Location, info, warning
from qosc.targets.junos.read.config import Config, Path
from qosc.targets.junos.read.facts import DEFAULT_QUEUES, LOSS_PRECEDENCE, PRIORITY, STRICT, number

_BY_NAME = {"ge-": 10**9, "xe-": 10**10, "fe-": 10**8}
_READ = frozenset({"transmit-rate", "shaping-rate", "priority", "excess-priority", "buffer-size", "drop-profile-map",
                   "explicit-congestion-notification"})


def port_rate(c: Config, port: str) -> int | None:
    """The speed of a port in bit/s: its `speed` statement, else what its name says (None: not known)."""
    speed = c.speeds.get(port) or c.speeds.get(port.partition("-")[2].partition(":")[0])
    if speed is not None:
        return number(speed)
    return next((bps for prefix, bps in _BY_NAME.items() if port.startswith(prefix)), None)


def curve(lines: list[Path]) -> Curve:
    fills = [float(p[2]) for p in lines if p[:2] == ("interpolate", "fill-level")]
    probs = [float(p[2]) for p in lines if p[:2] == ("interpolate", "drop-probability")]
    if fills:
        return Curve(tuple(zip(fills, probs, strict=False)), interpolate=True, beyond=100.0)
    steps = sorted((float(p[1]), float(p[3])) for p in lines if p[0] == "fill-level" and len(p) >= 4)
    return Curve(tuple(steps), interpolate=False)


def _pct(value: str, rate: int | None) -> float | None:
    """An absolute rate as a percent of the port (None where the port's speed is not known)."""
    return round(number(value) * 100.0 / rate, 6) if rate else None


def _statement(c: Config, sched: str, p: Path, share_left: float, remainders: int, rate: int | None,
               exact: bool) -> dict[str, Any]:
    """What one statement of a scheduler says, as the class attributes it sets."""
    if p[0] not in _READ:
        c.diagnostics.append(warning("QOS172", f"scheduler {sched}: `{' '.join(p)}` not read (the policy "
                                     "language has no word for it)", c.where.get(("scheduler", sched))))
        return {}
    if p[0] == "transmit-rate" and len(p) >= 2:
        if p[1] == "percent":
            return {"share": float(p[2]), "cap": float(p[2])} if exact else {"share": float(p[2])}
        if p[1] == "remainder":
            return {"share": round(share_left / max(remainders, 1), 6)}
        if p[1] in ("exact", "rate-limit"):
            return {}
        known = _pct(p[1], rate)
        if exact:
            return {"share": known, "cap": known, "cap_rate": number(p[1]) if known is None else None}
        if known is None:
            c.diagnostics.append(warning("QOS172", f"scheduler {sched}: transmit-rate {p[1]} on a port whose "
                                         "speed the configuration does not say: its share is not known, not "
                                         "lifted", c.where.get(("scheduler", sched)),
                                         "set the port's speed, or give the rate in percent"))
        return {"share": known}
    if p[0] == "shaping-rate" and len(p) >= 2:
        if p[1] == "percent":
            return {"cap": float(p[2])}
        if p[1] == "burst-size":  # the shaper's burst: qosc sizes it from the cap (qosc.sizing)
            return {}
        cap = _pct(p[1], rate)
        return {"cap": cap, "cap_rate": number(p[1]) if cap is None else None}
    if p[0] == "explicit-congestion-notification":
        return {"ecn": True}
    if p[0] == "priority" and len(p) >= 2:
        return {"strict": p[1] in STRICT, "strict_rank": STRICT.get(p[1]), "priority": PRIORITY.get(p[1])}
    if p[0] == "excess-priority" and len(p) >= 2:
        return {"excess": PRIORITY.get(p[1])}
    if p[0] == "buffer-size" and len(p) >= 3:
        return {"buffer": ("percent", float(p[2])) if p[1] == "percent" else ("us", float(p[2]))
                if p[1] == "temporal" else None}
    if p[0] == "drop-profile-map" and len(p) >= 7 and p[4] in ("any", "tcp"):
        prof = c.profiles.get(p[6])
        if prof is None:
            c.diagnostics.append(warning("QOS174", f"scheduler {sched} names drop profile {p[6]}, which is not "
                                         "defined", c.where.get(("scheduler", sched))))
            return {}
        return {"drop": (LOSS_PRECEDENCE.get(p[2], 0), curve(prof))}
    return {}


def scheduler_class(c: Config, fc: str, sched: str, share_left: float, remainders: int,
                    loc: Location | None, rate: int | None = None) -> Class:
    lines = c.schedulers.get(sched, [])
    share = cap = None
    cap_rate: int | None = None
    strict = ecn = False
    priority = strict_rank = None
    buffer = None
    drops: dict[int, Curve] = {}
    # `exact` is a sibling of the rate: on the same line or its own (`transmit-rate { percent 20; exact; }`)
    exact = any(p[0] == "transmit-rate" and "exact" in p[1:] for p in lines)
    excess = None
    for p in lines:
        with guard(c.diagnostics, f"scheduler {sched}: {' '.join(p)}", c.where.get(("scheduler", sched))):
            got = _statement(c, sched, p, share_left, remainders, rate, exact)
            share = got.get("share", share)
            cap = got.get("cap", cap)
            cap_rate = got.get("cap_rate", cap_rate)
            ecn = got.get("ecn", ecn)
            strict = got.get("strict", strict)
            strict_rank = got.get("strict_rank", strict_rank)
            priority = got.get("priority", priority)
            excess = got.get("excess", excess)
            buffer = got.get("buffer", buffer)
            if "drop" in got:
                drops[got["drop"][0]] = got["drop"][1]
    priority = priority if priority is not None else excess
    if 2 not in drops and 3 in drops and 1 in drops:
        drops[2] = drops[3]  # two loss priorities (M-series): medium drop precedence is classified high
    if set(drops) == {1, 2, 3} and len(set(drops.values())) == 1:
        drops = {0: drops[1]}
    return Class(fc, share=share, strict=strict, priority=priority, strict_rank=strict_rank if strict else None,
                 cap=cap, cap_rate=cap_rate, buffer=buffer,
                 drop=tuple(sorted(drops.items())), ecn=ecn, queue=c.queues.get(fc, DEFAULT_QUEUES.get(fc)),
                 origin=loc)


DEFAULT_MAP = {0: 95.0, 3: 5.0}
"""Junos's implicit scheduler map of a port without one: queue -> transmit-rate and buffer-size %, priority low,
tail drop; every other queue 0 %.  "Default Schedulers Overview", Junos OS Class of Service User Guide: best
effort 95 %, network control 5 %, expedited and assured forwarding no reserved bandwidth or buffer, every queue may
use what others leave; "Configuring Forwarding Classes": "the default scheduler transmission rate and buffer size
percentages for queues 0 through 7 are 95, 0, 0, 5, 0, 0, 0, and 0 percent"."""


def default_classes(c: Config, origin: Location | None) -> tuple[Class, ...]:
    """The classes of a unit whose port has no scheduler map but classifies or rewrites: Junos's default map, one
    class per queue a forwarding class uses (queues 0 to 3 always, by their default classes; queues 4 to 7 where
    the configuration defines a forwarding class on them), named after the forwarding class that uses it (the
    default name where none is defined)."""
    names = default_map_classes(c)
    return tuple(Class(names[q], share=DEFAULT_MAP.get(q, 0.0), priority=PRIORITY["low"],
                       buffer=("percent", DEFAULT_MAP.get(q, 0.0)), queue=q, origin=origin) for q in sorted(names))


def default_map_classes(c: Config) -> dict[int, str]:
    """Queue -> the forwarding class Junos's default map schedules on it (default_classes)."""
    names = {q: n for n, q in DEFAULT_QUEUES.items()}
    names.update({q: n for n, q in c.queues.items() if 0 <= q <= 7})
    return names


def classes(c: Config, smap: str, rate: int | None = None) -> tuple[Class, ...]:
    entries = c.maps.get(smap, {})
    fixed = 0.0
    for s in entries.values():
        for p in c.schedulers.get(s, []):
            if p[:2] == ("transmit-rate", "percent"):
                fixed += float(p[2])
            elif p[0] == "transmit-rate" and len(p) >= 2 and p[1] not in ("remainder", "exact", "rate-limit"):
                fixed += _pct(p[1], rate) or 0.0
    remainders = sum(1 for s in entries.values() for p in c.schedulers.get(s, []) if p[:2] == ("transmit-rate",
                                                                                                "remainder"))
    out = []
    for fc, sched in entries.items():
        loc = c.where.get(("map-entry", f"{smap}/{fc}"))
        if sched not in c.schedulers:
            c.diagnostics.append(warning("QOS174", f"scheduler map {smap} names scheduler {sched}, which is not "
                                         "defined", loc))
        out.append(scheduler_class(c, fc, sched, max(100.0 - fixed, 0.0), remainders, loc, rate))
    return _behind_strict(c, smap, tuple(out))


def _behind_strict(c: Config, smap: str, klasses: tuple[Class, ...]) -> tuple[Class, ...]:
    """The transmit rates of a map whose strict-high queues' caps and transmit rates add up to more than the port:
    Junos serves strict-high first, up to its shaping rate, and the other queues share what it leaves in proportion
    to their transmit rates (Junos OS Class of Service User Guide (Routing Devices), "excess-rate (Schedulers)":
    excess bandwidth is "the extra port bandwidth left after strict-high priority queues and the guaranteed minimum
    bandwidth requirements of other queues (as determined by each queue's transmit rate) are satisfied";
    "transmit-rate (Schedulers)": without a limit on the strict-high queue "the other queues may not meet their
    guaranteed bandwidths").  So each is guaranteed its rate scaled to what the strict caps leave: that is its
    share, said at the map (QOS206).  A strict queue without a cap in percent leaves nothing known: unchanged."""
    strict = [k for k in klasses if k.strict]
    shared = [k for k in klasses if not k.strict and k.share]
    caps = sum(k.cap or 0.0 for k in strict)
    rates = sum(k.share or 0.0 for k in shared)
    if not strict or any(k.cap is None for k in strict) or caps + rates <= 100.0 + 1e-6 or caps >= 100.0:
        return klasses
    factor = (100.0 - caps) / rates
    c.diagnostics.append(info("QOS206", f"scheduler map {smap}: transmit rates ({rates:g}%) and strict-high caps "
                              f"({caps:g}%) add up to {caps + rates:g}% of the port: Junos serves strict-high first "
                              f"and the other queues share what it leaves, so each is guaranteed "
                              f"{factor * 100:.4g}% of its transmit rate, read as its share",
                              c.where.get(("scheduler-map", smap)),
                              "give the queues transmit rates that fit beside the strict-high caps"))
    return tuple(replace(k, share=round(k.share * factor, 6)) if not k.strict and k.share else k for k in klasses)
