"""What a lifted class is: its kind (from its code points) and its priority level (from the order the device
serves classes in)."""

from __future__ import annotations

import re

from qosc import dscp as dscp_mod
from qosc.behaviour.bodies import LEVELS
from qosc.behaviour.model import Class, Interface
from qosc.diagnostics import Diagnostic, warning


def priorities(iface: Interface, kinds: dict[str, str]) -> tuple[dict[str, str], list[Diagnostic]]:
    """The policy priority of each non-strict class of an interface, keeping the order the device serves them
    in (only the order counts: vendors have different numbers of levels).

    Ranks 0..3 are the policy's own levels (JUNOS); other scales (HTB prio) are mapped by order, lowest rank
    to low and highest to high.  A device that gives no priority (IOS, Catalyst: WRR shares only) gets the
    levels the policy's own rules ask for: LBE low, every other class high.  More distinct ranks than the
    policy has levels are collapsed, with QOS172 at the class.
    """
    ranked = [c for c in iface.classes if not c.strict and c.priority is not None]
    if not ranked:
        return {c.name: "low" if kinds.get(c.name) == "lbe" else "high" for c in iface.classes if not c.strict}, []
    ranks = sorted({c.priority for c in ranked if c.priority is not None})
    if all(0 <= r <= 3 for r in ranks):
        label = {r: LEVELS[r] for r in ranks}
    elif len(ranks) <= len(LEVELS):
        picks = {1: (3,), 2: (0, 3), 3: (0, 2, 3), 4: (0, 1, 2, 3)}[len(ranks)]
        label = {r: LEVELS[i] for r, i in zip(ranks, picks, strict=True)}
    else:
        label = {r: LEVELS[round(i * 3 / (len(ranks) - 1))] for i, r in enumerate(ranks)}
    out = {c.name: label[c.priority] for c in ranked if c.priority is not None}
    diags: list[Diagnostic] = []
    if len(ranks) > len(LEVELS):
        worst = next(c for c in ranked if list(out.values()).count(out[c.name]) > 1)
        diags.append(warning("QOS172", f"interface {iface.name} serves {len(ranks)} priority levels, the policy "
                             f"language has {len(LEVELS)}: classes of neighbouring levels share one (e.g. "
                             f"{worst.name}: {out[worst.name]})", worst.origin))
    return out, diags


_SCAVENGER = re.compile(r"(^|[^a-z])(lbe|le|scavenger|less-than-best|qbss)([^a-z]|$)", re.IGNORECASE)


def kind_of(codes: frozenset[int], default: bool, cls: Class, host: bool = False, hosted: bool = False) -> str:
    """ef: premium; cs1/le: LBE, unless an assured class taking a whole precedence (IOS, Catalyst: af1x with
    cs1; told by AF code points, a share above 0, no scavenger name); cs6/cs7: network-control, unless router
    traffic is queued in another class (`hosted`: the policy puts it in its network-control service,
    qosc.behaviour.intent.device; JUNOS host-outbound-traffic says where the device puts it): then assured with AF
    code points, else other; AF: assured.  A class without DSCP: other, or network-control where it is the
    device's host class (a kind with code points of its own would give it the kind's DSCP: network-control's cs6
    and cs7)."""
    if not codes and not default:
        return "network-control" if host else "other"
    if default or 46 in codes:
        return "best-effort" if default else "premium"
    af = any(dscp_mod.af_class(c) for c in codes)
    if codes & {1, 8}:
        return "assured" if af and cls.share != 0 and not _SCAVENGER.search(cls.name) else "lbe"
    if codes & {48, 56} and not hosted:
        return "network-control"
    return "assured" if af else "other"
