"""What a Linux tc tree does: HTB classes as classes, u32 dsfield filters as the classification.

A dump is one interface (named after the dump's "dev" or its file), or
several (`dev NAME` blocks, see parse).  The root HTB qdisc's classes: the root class's
rate is the interface rate; each leaf is a class with share = rate, ceiling
= ceil (None at the root rate), priority = 7 - prio (HTB serves lower prio
first; the behaviour model ranks higher first), strict when rate = ceil
and prio 0 (a class that can neither borrow nor be starved of its rate);
its leaf qdisc gives the buffer (bfifo limit bytes, pfifo limit packets) or
the drop curve (red min/max/probability over limit).  The filters attached
to the root, in pref and handle order: a u32 match on the TOS byte (IPv4:
word 0 bits 16-23, IPv6: bits 20-27 of word 0) with a mask covering the
DSCP classifies the code points it matches to its flowid; unmatched code
points go to HTB's default class.  The EXP and PCP filters and the marks the
classes write: read.marks.  Rates in JSON are bytes/s (tc_print_rate
prints bytes/s in JSON), in text with units (tc(8) "RATES": bit, kbit,
mbit, gbit, and Kibit-style IEC).  A flowid naming no class is QOS174.
"""

from __future__ import annotations

import re
from typing import Any

from qosc.behaviour.model import Class, Curve, Device, Interface
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.targets.linux_tc.read.marks import read as read_marks
from qosc.tree import Document, Statement

_UNITS = {"": 1, "bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9, "tbit": 10**12,
          "kibit": 2**10, "mibit": 2**20, "gibit": 2**30, "bps": 8, "kbps": 8 * 10**3, "mbps": 8 * 10**6,
          "gbps": 8 * 10**9}
_NUM = re.compile(r"^([0-9.]+)([A-Za-z]*)$")


def rate(value: object) -> int:
    if isinstance(value, (int, float)):
        return int(value) * 8
    m = _NUM.match(str(value))
    if not m:
        return 0
    return int(float(m.group(1)) * _UNITS.get(m.group(2).lower(), 1))


def size(value: object) -> int:
    if isinstance(value, (int, float)):
        return int(value)
    m = _NUM.match(str(value))
    if not m:
        return 0
    unit = m.group(2).lower()
    return int(float(m.group(1)) * {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 2**20, "mb": 2**20}.get(unit, 1))


def _fields(s: Statement) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c in s.children or ():
        if c.children:
            out[c.words[0].text] = _fields(c)
        elif len(c.words) >= 2:
            out[c.words[0].text] = c.words[1].value
    return out


def _handle(value: object) -> str:
    text = str(value)
    major, _, minor = text.partition(":")
    return f"{int(major or '0', 16):x}:{int(minor, 16):x}" if minor else f"{int(major or '0', 16):x}:"


def _codes(match: dict[str, object], v6: bool) -> set[int]:
    value, mask = int(str(match.get("value", "0")), 16), int(str(match.get("mask", "0")), 16)
    if int(str(match.get("off", 0))) != 0:
        return set()
    shift = 20 if v6 else 16
    tos_v, tos_m = (value >> shift) & 0xFF, (mask >> shift) & 0xFF
    if mask & ~(0xFF << shift) & 0xFFFFFFFF:
        return set()
    return {code for code in range(64) if ((code << 2) & tos_m) == (tos_v & tos_m)}


def interpret(document: Document, platform: object = None) -> tuple[Device, list[Diagnostic]]:
    origin = document.origin if isinstance(document.origin, Location) else None
    blocks = [s for s in document.statements if s.words[0].text == "dev" and s.children is not None]
    parts = ([(b.words[1].text, b.children or (), b.origin if isinstance(b.origin, Location) else origin)
              for b in blocks] if blocks else [(document.stem, document.statements, origin)])
    interfaces: list[Interface] = []
    owned: list[tuple[str, str, Location | None]] = []
    diagnostics: list[Diagnostic] = []
    for name, statements, where in parts:
        iface, found = _interface(name, statements, where)
        diagnostics += found
        if iface is not None:
            interfaces.append(iface[0])
            owned += iface[1]
    return Device(document.stem, None, tuple(interfaces), tuple(owned), origin), diagnostics


def _interface(name: str, statements: tuple[Statement, ...], origin: Location | None) -> tuple[
        tuple[Interface, list[tuple[str, str, Location | None]]] | None, list[Diagnostic]]:
    """One interface's tree: its behaviour and its HTB classes (owned: "<dev> <classid>")."""
    diagnostics: list[Diagnostic] = []
    Entry = tuple[str, dict[str, Any], Location | None]
    qdiscs: list[Entry] = []
    classes: list[Entry] = []
    filters: list[Entry] = []
    links: list[Entry] = []
    for s in statements:
        where = s.origin if isinstance(s.origin, Location) else None
        fields = _fields(s)
        if len(s.words) >= 3 and s.words[0].text == "class":
            fields.setdefault("handle", s.words[2].text)
        entry = (s.words[1].text, fields, where)
        {"qdisc": qdiscs, "class": classes, "filter": filters, "link": links}[s.words[0].text].append(entry)
    root = next(((k, f, w) for k, f, w in qdiscs if f.get("root") in (True, "true")), None)
    if root is None or root[0] != "htb":
        return None, [warning("QOS172", f"{name}: no root HTB qdisc: nothing qosc reads", origin)]
    major = _handle(root[1]["handle"]).split(":")[0]
    opts = root[1].get("options", {})
    default = f"{major}:{int(str(opts.get('default', '0')), 16):x}" if isinstance(opts, dict) else None
    htb = {_handle(f["handle"]): (f, w) for k, f, w in classes if k == "htb"}
    parents = {str(_handle(f["parent"])) for f, _ in htb.values() if "parent" in f}
    top = [h for h, (f, _) in htb.items() if f.get("root") in (True, "true") or "parent" not in f]
    link = rate(htb[top[0]][0].get("rate", 0)) if top else 0
    leaves = {h: (f, w) for h, (f, w) in htb.items() if h not in parents and h not in top}
    leaf_q = {_handle(f.get("parent", "0:0")): (k, f) for k, f, _ in qdiscs if "parent" in f}
    out: list[Class] = []
    for h, (f, w) in leaves.items():
        r, c = rate(f.get("rate", 0)), rate(f.get("ceil", f.get("rate", 0)))
        prio = int(str(f.get("prio", 0)))
        share = round(r * 100.0 / link, 6) if link else None
        ceiling = round(c * 100.0 / link, 6) if link and c != link else None
        buffer: tuple[str, float] | None = None
        drop: tuple[tuple[int, Curve], ...] = ()
        kind, q = leaf_q.get(h, ("", {}))
        qo = q.get("options", {}) if isinstance(q.get("options"), dict) else {}
        assert isinstance(qo, dict)
        if kind == "bfifo":
            buffer = ("bytes", float(size(qo.get("limit", 0))))
        elif kind == "pfifo":
            buffer = ("packets", float(size(qo.get("limit", 0))))
        elif kind == "red" and size(qo.get("limit", 0)):
            limit = size(qo["limit"])
            p = float(str(qo.get("probability", 0.02))) * 100
            drop = ((0, Curve(((round(size(qo.get("min", 0)) * 100 / limit, 1), 0.0),
                               (round(size(qo.get("max", 0)) * 100 / limit, 1), p)), True, 100.0)),)
            buffer = ("bytes", float(limit))
        strict = prio == 0 and r == c
        # rate = ceil: a strict class (prio 0) is capped there; any other class just may not borrow
        out.append(Class(h, share=share, strict=strict, priority=7 - prio, cap=share if strict else None,
                         ceiling=None if strict else ceiling, buffer=buffer, drop=drop, origin=w))
    classify: list[list[str | None]] = [[None] * 64, [None] * 64]
    ordered = sorted(filters, key=lambda e: (int(str(e[1].get("pref", 0))), str(e[1].get("options", {}))))
    ordered = sorted(ordered, key=lambda e: (int(str(e[1].get("pref", 0))),
                                             int(str((e[1].get("options") or {}).get("order", 0)))))
    for _, f, w in ordered:
        o = f.get("options")
        if not isinstance(o, dict) or "flowid" not in o or not isinstance(o.get("match"), dict):
            continue
        if _handle(f.get("parent", "0:")) != f"{major}:":
            continue
        flow = _handle(o["flowid"])
        if flow not in leaves:
            diagnostics.append(warning("QOS174", f"filter sends to class {flow}, which is not a leaf HTB class", w))
            continue
        fams = {"ip": (0,), "ipv6": (1,), "all": (0, 1)}.get(str(f.get("protocol")), ())
        for fam in fams:
            for code in _codes(o["match"], fam == 1):  # type: ignore[arg-type]
                if classify[fam][code] is None:
                    classify[fam][code] = flow
    for fam in (0, 1):
        classify[fam] = [x if x is not None else (default if default in leaves else None) for x in classify[fam]]
    ident = tuple(range(64))
    found = read_marks(name, ordered, set(leaves),
                       default if default in leaves else None, major, links)
    diagnostics += found.diagnostics
    exp, pcp, written = found.tuples()
    iface = Interface(name, 0, None, link or None, None, tuple(out), (tuple(classify[0]),
                      tuple(classify[1])), (ident, ident), classify_exp=exp, classify_pcp=pcp, marks=written,
                      origin=root[2])
    return (iface, [("htb class", f"{name} {h}", w) for h, (_, w) in htb.items()]), diagnostics
