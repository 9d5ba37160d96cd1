"""The 3-bit marking domains of an IOS configuration read back (issue 21): EXP and 802.1p CoS classification,
rewrite and imposition, as qosc.behaviour.model.Interface's classify_exp, classify_pcp and marks.

MQC (the reverse of qosc.targets.ios.marks, on what Cisco documents):

- classify_exp / classify_pcp: the output policy's class-maps that match `mpls experimental [topmost]` (`cos`)
  values, the first class in policy order for each value, the rest class-default; none: the interface does not
  classify on the domain.  Drop precedence: `set discard-class D` in an input class matching the value (D = the
  drop precedence, qosc's convention; 1 otherwise: an MQC class carries none).
- marks 'exp': where an output class sets `set mpls experimental topmost M`: M for that class, and the EXP each
  other class keeps (IOS swaps a label keeping its EXP: Document ID 47815, Default Behavior) where one value is
  classified into it at a drop precedence.  'pcp': `set cos M` of an output class.
- marks 'impose': the input policy's `set mpls experimental imposition E` (12.0S `set mpls experimental E`) for
  the (class, drop precedence) its traffic lands in (the class of the DSCP it marks, of the DSCPs, CoS or EXP it
  matches; class-default's traffic unmarked: class-default), and per policer colour `set-mpls-exp-imposition-
  transmit` / `set-mpls-exp-transmit` for the class of the colour's DSCP (else the colour's drop precedence).

Catalyst 6500 PFC: a port with `mls qos trust cos` classifies each CoS through `mls qos map cos-dscp` (default
CoS x 8) to an internal DSCP, whose queue and drop precedence (its AF drop precedence) the value takes, and leaves
with the CoS the DSCP-to-CoS map gives that DSCP (the 'pcp' marks); the PFC has no EXP (Catalyst platform data).
"""

from __future__ import annotations

from qosc.diagnostics import Location
from qosc.dscp import drop_precedence
from qosc.targets.ios.read.mqc import Config, PolicyClass, code

MARKING_ACTIONS = frozenset({"set-mpls-exp-imposition-transmit", "set-mpls-exp-transmit",
                             "set-mpls-exp-topmost-transmit", "set-cos-transmit", "set-discard-class-transmit",
                             "set-qos-transmit"})
"""Police actions that mark a 3-bit domain (or an internal value) and transmit: the DSCP of the colour is kept."""
IMPOSE_ACTIONS = ("set-mpls-exp-imposition-transmit", "set-mpls-exp-transmit")

Slot = tuple[str, int] | None
Mark = tuple[str, str, int, int]
Lines = list[tuple[tuple[str, ...], Location | None]]
NONE: tuple[Slot, ...] = (None,) * 8


def _value(lines: Lines, *head: str) -> int | None:
    """The value of the first `head V` line of a class (V 0..7)."""
    n = len(head)
    for w, _ in lines:
        if w[:n] == head and len(w) == n + 1 and w[n].isdigit() and int(w[n]) < 8:
            return int(w[n])
    return None


def classify3(c: Config, output: list[PolicyClass], inputs: list[PolicyClass], which: str) -> tuple[Slot, ...]:
    """classify_exp ('exp') or classify_pcp ('cos') of an interface (module doc)."""
    names: list[str | None] = [None] * 8
    seen = False
    for pc in output:
        cm = c.class_maps.get(pc.name)
        values = getattr(cm, which) if cm is not None else None
        if values is None:
            continue
        seen = True
        for v in values:
            names[v] = names[v] or pc.name
    if not seen:
        return NONE
    precedence: dict[int, int] = {}
    for pc in inputs:
        cm = c.class_maps.get(pc.name)
        values = getattr(cm, which) if cm is not None else None
        level = _value(pc.lines, "set", "discard-class")
        if level is not None:
            for v in values or ():
                precedence.setdefault(v, min(3, max(1, level)))
    return tuple((names[v] or "class-default", precedence.get(v, 1)) for v in range(8))


def rewrites(output: list[PolicyClass], exp: tuple[Slot, ...]) -> list[Mark]:
    """The 'exp' and 'pcp' marks of the output classes (module doc)."""
    out: list[Mark] = []
    topmost = {pc.name: v for pc in output if (v := _value(pc.lines, "set", "mpls", "experimental", "topmost"))
               is not None}
    if topmost:
        kept: dict[tuple[str, int], set[int]] = {}
        for v, slot in enumerate(exp):
            if slot is not None:
                kept.setdefault(slot, set()).add(v)
        for pc in output:
            if pc.name in topmost:
                out += [("exp", pc.name, p, topmost[pc.name]) for p in (1, 2, 3)]
            else:
                out += [("exp", cls, p, min(vs)) for (cls, p), vs in kept.items() if cls == pc.name and len(vs) == 1]
    for pc in output:
        cos = _value(pc.lines, "set", "cos")
        out += [("pcp", pc.name, p, cos) for p in (1, 2, 3)] if cos is not None else []
    return out


def impositions(c: Config, inputs: list[PolicyClass], classify: list[str | None], pcp: tuple[Slot, ...],
                exp: tuple[Slot, ...]) -> list[Mark]:
    """The 'impose' marks of an input policy (module doc); `classify` is the output class of each DSCP (IPv4)."""
    found: dict[tuple[str, int], int] = {}
    for pc in inputs:
        cm = c.class_maps.get(pc.name)
        level = _value(pc.lines, "set", "mpls", "experimental", "imposition")
        level = _value(pc.lines, "set", "mpls", "experimental") if level is None else level
        police = next((w for w, _ in pc.lines if w[:1] == ("police",)), None)
        colours = _colours(police) if police else []
        mark = next((code(w[-1]) for w, _ in pc.lines if w[:2] in (("set", "dscp"), ("set", "ip")) and
                     w[-2] == "dscp"), None)
        mark = colours[0][1] if mark is None and colours and colours[0][1] is not None else mark
        targets: list[tuple[str, int]]
        if mark is not None:
            targets = [(cls, drop_precedence(mark))] if (cls := classify[mark]) else []
        elif cm is not None and cm.v4 and len(cm.v4) < 64:
            targets = [(cls, drop_precedence(x)) for x in sorted(cm.v4) if (cls := classify[x])]
        elif cm is not None and (cm.cos or cm.exp):
            table, values = (pcp, cm.cos) if cm.cos else (exp, cm.exp or [])
            targets = [slot for v in values if (slot := table[v]) is not None]
        else:
            targets = [("class-default", 1)] if pc.name == "class-default" else []
        for k, (kind, dscp, value) in enumerate(colours, 1):
            value = value if value is not None else level
            if kind == "drop" or value is None:
                continue
            cls = classify[dscp] if dscp is not None else (targets[0][0] if targets else None)
            if cls is not None:
                found.setdefault((cls, drop_precedence(dscp) if dscp is not None else k), value)
        for target in targets if level is not None else ():
            found.setdefault(target, level or 0)
    return [("impose", cls, p, v) for (cls, p), v in found.items()]


def _colours(w: tuple[str, ...]) -> list[tuple[str, int | None, int | None]]:
    """(action kind, DSCP set, EXP imposed) per colour of a police line (several actions a colour where the IOS XE
    police block gives them)."""
    out: dict[str, tuple[str, int | None, int | None]] = {}
    for j, word in enumerate(w[:-1]):
        if not word.endswith("-action"):
            continue
        kind, dscp, value = out.get(word, ("transmit", None, None))
        action = w[j + 1]
        if action == "drop":
            kind = "drop"
        elif action in ("set-dscp-transmit", "set-ip-dscp-transmit") and j + 2 < len(w):
            dscp = code(w[j + 2])
        elif action in IMPOSE_ACTIONS and j + 2 < len(w) and w[j + 2].isdigit():
            value = int(w[j + 2])
        out[word] = (kind, dscp, value)
    return [out[k] for k in ("conform-action", "exceed-action", "violate-action") if k in out]


def pfc_cos(lines: Lines, globals_: Lines, by_code: list[str | None], dscp_cos: list[int]) -> tuple[
        tuple[Slot, ...], list[Mark]]:
    """classify_pcp and the 'pcp' marks of a Catalyst port that trusts CoS (module doc)."""
    if not any(w[:4] == ("mls", "qos", "trust", "cos") for w, _ in lines):
        return NONE, []
    to_dscp = [8 * v for v in range(8)]
    for w, _ in globals_:
        if w[:4] == ("mls", "qos", "map", "cos-dscp") and len(w) == 12 and all(x.isdigit() for x in w[4:]):
            to_dscp = [min(63, int(x)) for x in w[4:]]
    table = tuple((by_code[d] or "queue-1", drop_precedence(d)) for d in to_dscp)
    written: dict[tuple[str, int], set[int]] = {}
    for v, slot in enumerate(table):
        written.setdefault(slot, set()).add(dscp_cos[to_dscp[v]])
    marks = [("pcp", cls, p, min(vs)) for (cls, p), vs in written.items() if len(vs) == 1]
    return table, marks
