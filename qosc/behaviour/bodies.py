"""Behaviour values as the bodies of a qosc policy (qosc import, lift.py): a drop curve as a drop profile, a
policer envelope as a policer, a port range as a match value."""

from __future__ import annotations

from typing import Any

from qosc import dscp as dscp_mod
from qosc.behaviour.model import Curve, Envelope
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
