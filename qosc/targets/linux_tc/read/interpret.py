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

import contextlib
import re
from dataclasses import dataclass, field, replace
from typing import Any

from qosc.behaviour.model import Class, Curve, Device, Interface
from qosc.configtext import guard
from qosc.diagnostics import Diagnostic, Location, Severity, warning
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


def interpret(document: Document, platform: object = None) -> tuple[Device, list[Diagnostic]]:
    origin = document.origin if isinstance(document.origin, Location) else None
    blocks = [s for s in document.statements if s.words[0].text == "dev" and s.children is not None]
    parts = ([(b.words[1].text, b.children or (), b.origin if isinstance(b.origin, Location) else origin)
              for b in blocks] if blocks else [(document.stem, document.statements, origin)])
    interfaces: list[Interface] = []
    owned: list[tuple[str, str, Location | None]] = []
    diagnostics: list[Diagnostic] = []
    if not blocks and not any(s.words[0].text == "dev" for s in document.statements):
        diagnostics.append(Diagnostic("QOS204", Severity.INFO, f"the dump does not name its interface: read as "
                                      f"{document.stem} (after the file's name)", origin,
                                      "put a line `## dev NAME` before the dump, or name the file NAME.json"))
    inv = Inventory()
    for name, statements, where in parts:
        with guard(diagnostics, f"interface {name}", where):
            iface, found = _interface(name, statements, where, inv)
            diagnostics += found
            if iface is not None:
                interfaces.append(iface[0])
                owned += iface[1]
    return Device(document.stem, None, tuple(interfaces), tuple(owned), origin, seen=tuple(inv.seen),
                  uses=tuple(inv.uses)), diagnostics


Entry = tuple[str, dict[str, Any], Location | None]


def _leaf(h: str, f: dict[str, Any], w: Location | None, link: int, leaf_q: dict[str, tuple[str, dict[str, Any]]],
          diagnostics: list[Diagnostic]) -> Class:
    """One leaf HTB class: its rate and ceil against the link, its prio, and its leaf qdisc's queue."""
    r, c = rate(f.get("rate", 0)), rate(f.get("ceil", f.get("rate", 0)))
    prio = int(str(f.get("prio", 0)))
    if not 0 <= prio <= 7:
        raise ValueError(f"prio {prio} is outside HTB's 0..7")
    share = round(r * 100.0 / link, 6) if link else None
    ceiling = round(c * 100.0 / link, 6) if link and c != link else None
    buffer: tuple[str, float] | None = None
    drop: tuple[tuple[int, Curve], ...] = ()
    kind, q = leaf_q.get(h, ("", {}))
    qo: dict[str, Any] = q["options"] if isinstance(q.get("options"), dict) else {}
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
    elif kind:
        diagnostics.append(warning("QOS172", f"class {h}: its leaf qdisc {kind} is not lifted (qosc gives a class a "
                                   "fifo, RED or fq_codel queue sized from its rate)", w))
    strict = prio == 0 and r == c
    # rate = ceil: a strict class (prio 0) is capped there; any other class just may not borrow
    return Class(h, share=share, strict=strict, priority=7 - prio, cap=share if strict else None,
                 ceiling=None if strict else ceiling, buffer=buffer, drop=drop, origin=w)


@dataclass
class Inventory:
    """Device.seen and Device.uses of a dump (qosc.behaviour.reconcile)."""

    seen: list[tuple[str, str, Location | None]] = field(default_factory=list)
    uses: list[tuple[tuple[str, ...], tuple[str, str]]] = field(default_factory=list)


def _tbf(name: str, root: Entry, inv: Inventory) -> Interface:
    """A root TBF: the interface shaped to its rate, one class for all traffic (tc-tbf(8))."""
    kind, f, w = root
    options: dict[str, Any] = f["options"] if isinstance(f.get("options"), dict) else {}
    link = rate(options.get("rate", 0))
    if not link:
        raise ValueError("a TBF without a rate")
    inv.uses.append((("interface", name, "0"), ("qdisc", f"{name} root {kind} {f.get('handle')}")))
    everything = tuple(["tbf"] * 64)
    return Interface(name, 0, None, link, link, (Class("tbf", share=100.0, origin=w),), (everything, everything),
                     (tuple(range(64)), tuple(range(64))), origin=w, default_class="tbf")


def _interface(name: str, statements: tuple[Statement, ...], origin: Location | None, inv: Inventory) -> tuple[
        tuple[Interface, list[tuple[str, str, Location | None]]] | None, list[Diagnostic]]:
    """One interface's tree: its behaviour and its HTB classes (owned: "<dev> <classid>")."""
    diagnostics: list[Diagnostic] = []
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
        sections = {"qdisc": qdiscs, "class": classes, "filter": filters, "link": links}
        if s.words[0].text in sections:
            sections[s.words[0].text].append(entry)
    unread = ("unread", name)
    for k, f, w in qdiscs:
        place = "root" if f.get("root") in (True, "true") else f"under {f.get('parent')}"
        inv.seen.append(("qdisc", f"{name} {place} {k} {f.get('handle')}", w))
    root = next(((k, f, w) for k, f, w in qdiscs if f.get("root") in (True, "true")), None)
    if root is not None and root[0] == "tbf":
        return (_tbf(name, root, inv), []), diagnostics
    if root is None or root[0] != "htb":
        what = f"root qdisc {root[0]}" if root is not None else "no root qdisc"
        inv.uses += [(unread, ("qdisc", obj)) for kind, obj, _ in inv.seen if kind == "qdisc" and obj.startswith(name)]
        return None, [warning("QOS172", f"{name}: {what}, not HTB or TBF: nothing qosc lifts (qosc schedules Linux "
                              "classes with HTB)", root[2] if root is not None else origin)]
    iface_el = ("interface", name, "0")
    inv.uses.append((iface_el, ("qdisc", f"{name} root htb {root[1].get('handle')}")))
    major = _handle(root[1]["handle"]).split(":")[0]
    opts = root[1].get("options", {})
    default = f"{major}:{int(str(opts.get('default', '0')), 16):x}" if isinstance(opts, dict) else None
    htb: dict[str, tuple[dict[str, Any], Location | None]] = {}
    for k, f, w in classes:
        if k == "htb":
            with guard(diagnostics, f"HTB class {f.get('handle')}", w):
                htb[_handle(f["handle"])] = (f, w)
    inv.seen += [("htb class", f"{name} {h}", w) for h, (_, w) in htb.items()]
    parents = {str(_handle(f["parent"])) for f, _ in htb.values() if "parent" in f}
    top = [h for h, (f, _) in htb.items() if f.get("root") in (True, "true") or "parent" not in f]
    inner_tops = [h for h in top if h in parents]
    link = rate(htb[inner_tops[0]][0].get("rate", 0)) if inner_tops else 0
    if not inner_tops and len(top) == 1:  # one class under the qdisc: it shapes the link
        link = rate(htb[top[0]][0].get("ceil", htb[top[0]][0].get("rate", 0)))
    diagnostics.extend(warning("QOS172", f"{name}: HTB class {h} is a second root class with classes under it: "
                               f"its shares are read against {inner_tops[0]}'s rate", htb[h][1])
                       for h in inner_tops[1:])
    inv.uses += [(iface_el, ("htb class", f"{name} {h}")) for h in htb if h in parents]
    leaves = {h: (f, w) for h, (f, w) in htb.items() if h not in parents and h not in inner_tops}
    leaf_q: dict[str, tuple[str, dict[str, Any]]] = {}
    for k, f, _ in qdiscs:
        with guard(diagnostics, f"qdisc {k}", None):
            if "parent" in f and not f.get("root"):
                leaf_q[_handle(f["parent"])] = (k, f)
    out: list[Class] = []
    for h, (f, w) in leaves.items():
        with guard(diagnostics, f"HTB class {h}", w):
            cls = _leaf(h, f, w, link, leaf_q, diagnostics)
            if h in top and len(top) > 1:  # a root class of its own: capped at its ceil, borrowing from nothing
                cls = replace(cls, strict=False, cap=None, ceiling=None, cap_rate=rate(f.get("ceil", f.get("rate"))))
            out.append(cls)
            element = ("class", name, "0", h)
            inv.uses.append((element, ("htb class", f"{name} {h}")))
            if h in leaf_q:
                kind, q = leaf_q[h]
                obj = ("qdisc", f"{name} under {q.get('parent')} {kind} {q.get('handle')}")
                inv.uses.append((element if kind in ("bfifo", "pfifo", "red") else unread, obj))
    read = {c.name for c in out}
    classify: list[list[str | None]] = [[None] * 64, [None] * 64]
    ordered = sorted(filters, key=_order)
    found = read_marks(name, ordered, read, default if default in read else None, major, links)
    diagnostics += found.diagnostics
    for _, f, w in ordered:
        with guard(diagnostics, f"filter pref {f.get('pref')}", w):
            o = f.get("options")
            if not isinstance(o, dict) or ("flowid" not in o and "classid" not in o):
                continue  # a u32 hash table or chain head: no match of its own
            obj = ("filter", f"{name} pref {f.get('pref')} {o.get('fh', '')} to {o.get('flowid', o.get('classid'))}")
            inv.seen.append((*obj, w))
            # an EXP or PCP filter is read by read.marks, which names what it cannot read
            took = id(f) in found.taken if found.marking(f) else _filter(f, w, major, read, classify, diagnostics)
            inv.uses.append((iface_el if took else unread, obj))
    for fam in (0, 1):
        classify[fam] = [x if x is not None else (default if default in read else None) for x in classify[fam]]
    ident = tuple(range(64))
    exp, pcp, written = found.tuples()
    iface = Interface(name, 0, None, link or None, None, tuple(out), (tuple(classify[0]),
                      tuple(classify[1])), (ident, ident), classify_exp=exp, classify_pcp=pcp, marks=written,
                      origin=root[2], default_class=default if default in read else None)
    return (iface, [("htb class", f"{name} {h}", w) for h, (_, w) in htb.items()]), diagnostics


def _order(e: Entry) -> tuple[int, int]:
    f = e[1]
    options: dict[str, Any] = f["options"] if isinstance(f.get("options"), dict) else {}
    with contextlib.suppress(ValueError):
        return int(str(f.get("pref", 0))), int(str(options.get("order", 0)))
    return 1 << 30, 0


def _filter(f: dict[str, Any], w: Location | None, major: str, read: set[str], classify: list[list[str | None]],
            diagnostics: list[Diagnostic]) -> bool:
    """One filter of the dump: a u32 filter on the root HTB qdisc matching the DSCP classifies its code points
    to its class; any other filter is named (QOS172) with what it matches."""
    o = f.get("options")
    if not isinstance(o, dict) or ("flowid" not in o and "classid" not in o):
        return False  # a u32 hash table or chain head: no match of its own
    parent = _handle(f.get("parent", "0:"))
    flow = _handle(o.get("flowid", o.get("classid")))
    pref, kind, proto = f.get("pref"), f.get("kind", "?"), str(f.get("protocol"))
    what = f"filter pref {pref} ({kind}, protocol {proto}) to class {flow}"
    if parent != f"{major}:":
        diagnostics.append(warning("QOS172", f"{what}: attached to {parent}, not the root HTB qdisc: not lifted", w))
        return False
    if kind != "u32" or not isinstance(o.get("match"), (dict, list)):
        diagnostics.append(warning("QOS172", f"{what}: not lifted (qosc classifies Linux traffic by DSCP with u32 "
                                   "filters)", w))
        return False
    if flow not in read:
        diagnostics.append(warning("QOS174", f"filter sends to class {flow}, which is not a leaf HTB class", w))
        return False
    keys = o["match"] if isinstance(o["match"], list) else [o["match"]]
    fams = {"ip": (0,), "ipv6": (1,), "all": (0, 1)}.get(proto, ())
    if not fams:
        diagnostics.append(warning("QOS172", f"{what}: protocol {proto} is not IP: not lifted", w))
        return False
    for fam in fams:
        codes, other = _codes_of(keys, fam == 1)
        if other:
            diagnostics.append(warning("QOS172", f"{what}: matches {', '.join(other)}, not only the DSCP: not "
                                       "lifted (qosc classifies Linux traffic by DSCP only)", w))
            return False
        for code in codes:
            if classify[fam][code] is None:
                classify[fam][code] = flow
    return True


def _codes_of(keys: list[Any], v6: bool) -> tuple[set[int], list[str]]:
    """The code points every u32 key of a filter matches, and what it matches besides the DSCP (described)."""
    codes = set(range(64))
    other: list[str] = []
    for key in keys:
        if not isinstance(key, dict):
            raise TypeError(f"a u32 key that is not an object: {key!r}")
        value, mask = int(str(key.get("value", "0")), 16), int(str(key.get("mask", "0")), 16)
        off = int(str(key.get("off", 0)))
        if key.get("offmask") not in (None, "", "0"):
            other.append(f"a key after the next header at offset {off}")
            continue
        shift = 20 if v6 else 16
        if off == 0 and not mask & ~(0xFF << shift) & 0xFFFFFFFF:
            tos_v, tos_m = (value >> shift) & 0xFF, (mask >> shift) & 0xFF
            codes &= {code for code in range(64) if ((code << 2) & tos_m) == (tos_v & tos_m)}
        elif mask == 0:
            continue  # match u32 0 0: every packet
        else:
            other.append(_described(off, value, mask, v6))
    return codes, other


def _described(off: int, value: int, mask: int, v6: bool) -> str:
    """A u32 key in the words of tc-u32(8)'s `match ip` selectors, where it is one of them."""
    if not v6 and off in (12, 16) and mask:
        length = mask.bit_count()
        address = ".".join(str((value >> s) & 0xFF) for s in (24, 16, 8, 0))
        return f"{'source' if off == 12 else 'destination'} {address}/{length}"
    if not v6 and off == 8 and mask == 0x00FF0000:
        proto = (value >> 16) & 0xFF
        return f"protocol {_PROTOCOLS.get(proto, proto)}"
    if not v6 and off == 0 and mask & 0xFFFF:
        return f"total length (value 0x{value & 0xFFFF:x} mask 0x{mask & 0xFFFF:x})"
    return f"offset {off} value 0x{value:08x} mask 0x{mask:08x}"


_PROTOCOLS = {1: "icmp", 6: "tcp", 17: "udp", 47: "gre", 58: "ipv6-icmp"}
