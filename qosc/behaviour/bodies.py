"""Behaviour values as the bodies of a qosc policy (qosc import, lift.py): a drop curve as a drop profile, a
policer envelope as a policer, a port range as a match value, a class's queue as a service's queue, a class
attribute as the policy writes it."""

from __future__ import annotations

from typing import Any

from qosc import dscp as dscp_mod
from qosc.behaviour.model import Class, Curve, Envelope, Interface
from qosc.diagnostics import Diagnostic, warning
from qosc.units import format_rate, format_size


def profile_body(curve: Curve) -> dict[str, Any]:
    """A RED ramp (0 at min, p at max, everything dropped above) as min/max/max-probability, else points."""
    pts = curve.points
    if curve.beyond == 100.0 and len(pts) == 2 and pts[0][1] == 0 and curve.interpolate:
        return {"min": pts[0][0], "max": pts[1][0], "max-probability": pts[1][1]}
    body: dict[str, Any] = {"points": [list(p) for p in pts]}
    if curve.interpolate:
        body["interpolate"] = True
    return body


def port_value(p: tuple[int, int]) -> int | str:
    return p[0] if p[0] == p[1] else f"{p[0]}-{p[1]}"


def envelope_body(env: Envelope) -> dict[str, Any]:
    body: dict[str, Any] = {"cir": format_rate(env.cir), "cbs": format_size(env.cbs)}
    for key, value in (("pir", env.pir), ("pbs", env.pbs), ("ebs", env.ebs)):
        if value is not None:
            body[key] = format_rate(value) if key == "pir" else format_size(value)
    for key, action in (("conform", env.conform), ("exceed", env.exceed), ("violate", env.violate)):
        if action is None:
            continue
        body[key] = dscp_mod.name(int(action.split()[1])) if action.startswith("dscp ") else action
    return body


def queue_body(iface: Interface, cls: Class, priority: str | None) -> tuple[dict[str, Any], list[Diagnostic]]:
    """A class's queue as a service's `queue` (share, priority, strictness, cap, ceiling, buffer, ECN), and QOS172
    for a buffer a policy cannot say."""
    queue: dict[str, Any] = {}
    found: list[Diagnostic] = []
    if cls.share is not None:
        queue["share"] = f"{cls.share:g}%"
    if priority is not None and not cls.strict:
        queue["priority"] = priority
    if cls.strict:
        queue["strict"] = True
    if cls.cap is not None:
        queue["rate-cap"] = f"{cls.cap:g}%"
    if cls.ceiling is not None:
        queue["ceiling"] = f"{cls.ceiling:g}%"
    if cls.buffer is not None and cls.buffer[0] in ("percent", "us"):
        queue["buffer"] = f"{cls.buffer[1]:g}%" if cls.buffer[0] == "percent" else f"{int(cls.buffer[1])}us"
    elif cls.buffer is not None and cls.buffer[0] == "bytes" and iface.rate:
        # a queue of bytes (Linux bfifo) is a time at the rate it drains at: its guarantee (qosc.sizing)
        drain = iface.rate * (cls.share or 100.0) / 100
        queue["buffer"] = f"{max(1, round(cls.buffer[1] * 8_000_000 / drain))}us"
    elif cls.buffer is not None:
        found.append(warning("QOS172", f"class {cls.name}: a queue of {cls.buffer[1]:g} {cls.buffer[0]} is not "
                             "imported: a policy gives buffers in percent or time, and qosc sizes the queue from "
                             "the class's rate", cls.origin, "set queue.buffer in the policy if the default does not "
                             "do"))
    if cls.ecn:
        queue["ecn"] = True
    return queue, found


CLASS_KEYS = {"share": "queue.share", "priority": "queue.priority", "strict": "queue.strict", "cap": "queue.rate-cap",
              "ceiling": "queue.ceiling", "drop": "drop-profile", "ecn": "queue.ecn"}
"""The policy key of each class attribute lift.py compares across devices."""
LEVELS = ("low", "medium-low", "medium-high", "high")
"""The policy's priorities, by rank 0..3."""


def class_value(what: str, value: Any) -> str:
    """A class attribute (a CLASS_KEYS key) as a policy says it: 40%, high, true, a drop profile in flow style
    ({min: 60, max: 95, max-probability: 5%}, per precedence {low: ..., medium: ...})."""
    if what in ("share", "cap", "ceiling"):
        return f"{value:g}%"
    if what == "priority":
        return LEVELS[value] if 0 <= value < len(LEVELS) else f"rank {value}"
    if what == "drop":
        labels, curves = {1: "low", 2: "medium", 3: "high"}, dict(value)
        return _flow(profile_body(curves[0]) if 0 in curves else
                     {labels[k]: profile_body(c) for k, c in sorted(curves.items())})
    return _flow(value)


def _flow(value: Any, key: str = "") -> str:
    """YAML flow style, numbers without a trailing .0 and max-probability with its % sign."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v, k)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"{value:g}" + ("%" if key == "max-probability" else "")
    return str(value)
