"""What an IOS MQC input policy-map does with packets: its classes as edge rules (access-list matches, `set
dscp`, police; `police aggregate` the named aggregate's, one policer shared by every class that names it), and
class-default's `set dscp` as the mark of unmatched traffic; `police` lines as token-bucket envelopes with their
colour actions (a colour's EXP or CoS action beside its DSCP one is read by read.marks).
"""

from __future__ import annotations

import dataclasses

from qosc.behaviour.model import Envelope, Rule
from qosc.diagnostics import warning
from qosc.targets.ios.read.acl import Match
from qosc.targets.ios.read.marks import MARKING_ACTIONS
from qosc.targets.ios.read.mqc import Config, PolicyClass, code


def _action(words: tuple[str, ...], i: int) -> str:
    a = words[i + 1] if i + 1 < len(words) else "transmit"
    if a in ("set-dscp-transmit", "set-ip-dscp-transmit") and i + 2 < len(words):
        return f"dscp {code(words[i + 2])}"
    return {"drop": "drop", "transmit": "transmit"}.get(a, a)


def envelope(w: tuple[str, ...], mark: int | None, policed: dict[str, dict[int, int]]) -> Envelope:
    """A `police` line: `police cir X bc Y [pir P be Z]` or `police X [Y [Z]] [pir P]`, with actions."""
    values: dict[str, int] = {}
    plain: list[int] = []
    i = 1
    while i < len(w) and not w[i].endswith("-action"):
        if w[i] in ("cir", "bc", "pir", "be") and i + 1 < len(w) and w[i + 1].isdigit():
            values[w[i]] = int(w[i + 1])
            i += 2
        elif w[i].isdigit():
            plain.append(int(w[i]))
            i += 1
        else:
            i += 1
    cir = values.get("cir", plain[0] if plain else 0)
    bc = values.get("bc", plain[1] if len(plain) > 1 else 0)
    pir = values.get("pir")
    be = values.get("be", plain[2] if len(plain) > 2 else None)
    acts: dict[str, str] = {}
    for j in range(len(w)):
        if w[j].endswith("-action"):  # a colour's EXP or CoS action beside its DSCP one: read.marks
            marking = w[j + 1:j + 2] and w[j + 1] in MARKING_ACTIONS
            acts[w[j]] = acts.get(w[j], "transmit") if marking else _action(w, j)

    # the PFC marks violating traffic down through the max-burst map, exceeding traffic through the normal-burst
    # map, except without pir and with a maximum burst equal to the normal one (or none): then through the
    # max-burst map too (Catalyst 6500 IOS Configuration Guide 12.1E, 78-14099-04, p. 31-69; 12.2SX PFC QoS)
    one_bucket = pir is None and (be is None or be == bc)

    def norm(a: str | None, which: str) -> str | None:
        if a == "policed-dscp-transmit" and mark is not None:
            got = policed.get("max-burst" if which == "violate" or one_bucket else "normal-burst", {}).get(mark)
            return f"dscp {got}" if got is not None else "transmit"
        return "transmit" if mark is not None and a == f"dscp {mark}" else a
    return Envelope(cir, bc, pir, be if pir else None, None if pir else be,
                    norm(acts.get("conform-action", "transmit"), "conform") or "transmit",
                    norm(acts.get("exceed-action", "drop"), "exceed") or "drop", norm(acts.get("violate-action"),
                                                                                     "violate"))


def _police(c: Config, pc: PolicyClass) -> tuple[tuple[str, ...] | None, str | None]:
    """The class's `police` line, and the name of the aggregate it is where several classes share one.

    Catalyst 6500 PFC: `police aggregate NAME` polices with the named aggregate `mls qos aggregate-policer NAME
    <police arguments>`; every class (of every port) naming it is policed together (Understanding Quality of
    Service on the Catalyst 6500 Switch, 8.6 Aggregates and Microflows).  An undefined name is QOS174."""
    police = next((w for w, _ in pc.lines if w[:1] == ("police",)), None)
    if police is None or police[:2] != ("police", "aggregate") or len(police) < 3:
        return police, None
    name = police[2]
    body = next((w for w, _ in c.globals if w[:3] == ("mls", "qos", "aggregate-policer") and w[3:4] == (name,)),
                None)
    if body is None:
        c.diagnostics.append(warning("QOS174", f"class {pc.name} polices with aggregate {name}, which is not "
                                     "defined", pc.origin))
        return None, None
    return ("police", *body[4:]), name


def input_rules(c: Config, policy: str, pfc: bool = False) -> tuple[list[Rule], int | None, bool]:
    """The rules of an input policy-map, the mark of unmatched traffic, and whether class-default's policer makes
    the PFC trust its DSCP.

    Catalyst 6500 PFC (`pfc`): policing with `conform-action transmit` (also the default conform action) sets the
    trust state of the class's conforming traffic to trust DSCP, so the class's `set ip dscp` does not mark it:
    the customer's DSCP is kept (Catalyst 6500 Release 12.2SX Software Configuration Guide, Configuring PFC QoS,
    police; domain.md 6); `conform-action set-dscp-transmit` marks.  Such a class is read as marking nothing."""
    rules: list[Rule] = []
    unmatched = None
    default_trusts = False
    policed: dict[str, dict[int, int]] = {}
    for w, _ in c.globals:
        if w[:4] == ("mls", "qos", "map", "policed-dscp") and "to" in w:
            k = w.index("to")
            for x in w[5:k]:
                policed.setdefault(w[4], {})[int(x)] = int(w[k + 1])
    for pc in c.policies.get(policy, []):
        mark = next((code(w[-1]) for w, _ in pc.lines if w[:2] in (("set", "dscp"), ("set", "ip"))), None)
        police, shared = _police(c, pc)
        if mark is None and police is not None:
            for j, x in enumerate(police):
                if x == "conform-action" and police[j + 1:j + 2] == ("set-dscp-transmit",):
                    mark = code(police[j + 2])
        conform = police[police.index("conform-action") + 1] if police and "conform-action" in police[:-1] else None
        trusts = pfc and police is not None and conform in (None, "transmit")
        mark = None if trusts else mark
        if pc.name == "class-default":
            unmatched, default_trusts = mark, trusts
            continue
        cm = c.class_maps.get(pc.name)
        if not (cm and cm.acls) and police is None and mark is None:
            continue  # marks no DSCP and polices nothing: a class of the 3-bit domains (read.marks), or idle
        match = Match()
        for acl in cm.acls if cm else ():
            entries = c.acls.get(acl)
            if entries is None:
                c.diagnostics.append(warning("QOS174", f"class-map {pc.name} names access list {acl}, which is "
                                             "not defined", cm.origin if cm else None))
                continue
            for e in entries:
                match.add(e)
        dscps = sorted(cm.v4 or ()) if cm and cm.v4 and len(cm.v4) < 64 else []
        rules.append(Rule(pc.name, tuple(match.sources), tuple(match.destinations), tuple(match.protocols),
                          tuple(match.source_ports), tuple(match.destination_ports), tuple(dscps), mark,
                          dataclasses.replace(envelope(police, mark, policed), shared=shared) if police else None,
                          tuple(match.families) or ("inet", "inet6"), origin=pc.origin))
    return rules, unmatched, default_trusts
