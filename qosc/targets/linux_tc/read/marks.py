"""linux-tc read back, the 3-bit marking domains: which class each EXP and PCP value goes to, and what each class
writes (qosc.targets.linux_tc.marks is what qosc writes; this reads any tc configuration of the same kinds).

- EXP: u32 filters of ``protocol mpls_uc`` on the root HTB whose one key is at offset 0 (the top label stack
  entry) with a mask within the traffic class bits 0x00000e00 send the EXP values they match to their flowid.
- PCP: cls_bpf filters with a classic BPF program (the dump's ``bytecode`` instructions) are run on a tagged
  frame of each PCP (read.cbpf): -1 sends it to the filter's flowid, 0 is no match, any other value is the class
  id it returns.  A program that reads packet bytes is not read (QOS172).
- Values no filter takes go to HTB's default class, where the interface has filters of that domain at all.
- The drop precedence of a value: the last digit of its filter's prio, 1 to 3 (what qosc writes: tc itself has
  none), else 1.
- What a class writes: ``action mpls modify tc V`` on a filter is EXP V for the values it matches, at their
  drop precedence; ``action skbedit priority P`` is the packet priority P, which the VLAN device turns into a PCP
  with its egress-qos-map (ip-link(8)).  With the interface's `ip -d -j link show` in the dump (a ``link``
  statement, what `qosc verify --from-device` reads), the PCP is what its map says (a priority it does not map
  is 0), and nothing where it is not a VLAN device (QOS172); without it, priorities 0..7 are read as the same
  PCP, the map qosc's wrapper requires.  On a DSCP filter the precedence is the code point's (AF drop
  precedence), also on the last filter (protocol all, matching everything: every code point no filter before
  it took).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from qosc.configtext import guard
from qosc.diagnostics import Diagnostic, Location, warning
from qosc.dscp import drop_precedence
from qosc.targets.linux_tc.read.cbpf import run as run_cbpf

Slot = tuple[str, int] | None
Entry = tuple[str, dict[str, Any], Location | None]
EXP_BITS = 0x00000E00
RET_FLOWID = 2**32 - 1


@dataclass
class Found:
    """What the marking filters of one interface say (classify_exp, classify_pcp and marks of the behaviour)."""

    exp: list[Slot] = field(default_factory=lambda: [None] * 8)
    pcp: list[Slot] = field(default_factory=lambda: [None] * 8)
    marks: dict[tuple[str, str, int], int] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    taken: set[int] = field(default_factory=set)
    """The marking filters read (id of their fields): what they say is lifted (reconciliation, Device.uses)."""

    @staticmethod
    def marking(f: dict[str, Any]) -> bool:
        """A filter this module reads rather than the DSCP classification: u32 on mpls_uc, or cls_bpf."""
        return (str(f.get("kind")), str(f.get("protocol"))) == ("u32", "mpls_uc") or str(f.get("kind")) == "bpf"

    def add(self, domain: str, cls: str, precedence: int, value: int | None) -> None:
        if value is not None:
            self.marks.setdefault((domain, cls, precedence), value)

    def tuples(self) -> tuple[tuple[Slot, ...], tuple[Slot, ...], tuple[tuple[str, str, int, int], ...]]:
        return tuple(self.exp), tuple(self.pcp), tuple(sorted((d, c, p, v) for (d, c, p), v in self.marks.items()))


def _precedence(pref: object) -> int:
    last = int(str(pref or 0)) % 10
    return last if 1 <= last <= 3 else 1


def _classid(value: int) -> str:
    return f"{value >> 16:x}:{value & 0xFFFF:x}"


def priority(text: object) -> int | None:
    """A packet priority as skbedit prints it (tc_util.c print_tc_classid: 'none', ':5', '1:10'), or None."""
    s = str(text)
    if s == "none":
        return 0
    major, colon, minor = s.partition(":")
    try:
        return (int(major or "0", 16) << 16 | int(minor or "0", 16)) if colon else int(s, 16)
    except ValueError:
        return None


class PcpMap:
    """Packet priority -> PCP of the interface (module doc)."""

    def __init__(self, name: str, links: list[Entry]) -> None:
        self.map: dict[int, int] | None = {p: p for p in range(8)}
        self.problem: str | None = None
        if not links:
            return
        kind, fields, _ = links[0]
        if kind != "vlan":
            self.map, self.problem = None, (f"{name} sets packet priorities for 802.1p, but is not a VLAN device "
                                            f"({kind}): no PCP is written from them")
            return
        data = (fields.get("linkinfo") or {}).get("info_data") or {}
        entries = data.get("egress_qos") or []
        self.map = {int(e["from"]): int(e["to"]) for e in entries if isinstance(e, dict) and "from" in e}

    def pcp(self, prio: int | None) -> int | None:
        if self.map is None or prio is None:
            return None
        return self.map.get(prio, 0)


def read(name: str, filters: list[Entry], leaves: set[str], default: str | None, major: str,
         links: list[Entry]) -> Found:
    """The marking of an interface from its root filters (in the order the kernel tries them) and its link."""
    found = Found()
    pcp_map = PcpMap(name, links)
    used = {"exp": False, "pcp": False}
    wrote_pcp = False
    for _, f, where in filters:
        with guard(found.diagnostics, f"{name}: filter pref {f.get('pref')}", where):
            wrote_pcp = _filter(found, name, f, where, leaves, major, pcp_map, used) or wrote_pcp
    for domain, table in (("exp", found.exp), ("pcp", found.pcp)):
        if used[domain] and default in leaves:
            table[:] = [slot if slot is not None else (default, 1) for slot in table]
    if wrote_pcp and pcp_map.problem:
        found.diagnostics.append(warning("QOS172", pcp_map.problem, links[0][2]))
    return found


def _filter(found: Found, name: str, f: dict[str, Any], where: Location | None, leaves: set[str], major: str,
            pcp_map: PcpMap, used: dict[str, bool]) -> bool:
    """One root filter: the EXP or PCP values it classifies, the marks its actions write; whether it sets a
    packet priority (an 802.1p rewrite)."""
    o = f.get("options")
    if not isinstance(o, dict) or str(f.get("parent", "")).split(":")[0] != major:
        return False
    proto, kind, prec = str(f.get("protocol")), str(f.get("kind")), _precedence(f.get("pref"))
    listed = o.get("actions")
    actions = [a for a in listed if isinstance(a, dict)] if isinstance(listed, list) else []
    exp = next((int(a["tc"]) for a in actions if a.get("kind") == "mpls" and a.get("mpls_action") == "modify"
                and "tc" in a), None)
    prio = next((priority(a["priority"]) for a in actions if a.get("kind") == "skbedit" and "priority" in a), None)
    flow = _flow(o.get("flowid", o.get("classid")))
    if kind == "u32" and proto == "mpls_uc":
        values = _exp_values(o.get("match"))
        if values is None:
            found.diagnostics.append(warning("QOS172", f"{name}: an mpls_uc filter matches more than the top "
                                             "label's EXP: not read", where))
            return prio is not None
        used["exp"] = True
        for value in values:
            if flow in leaves and found.exp[value] is None:
                found.exp[value] = (flow, prec)
                found.add("exp", flow, prec, exp)
                found.add("pcp", flow, prec, pcp_map.pcp(prio))
        if flow in leaves:
            found.taken.add(id(f))
    elif kind == "bpf":
        if _pcp_filter(found, name, o, flow, prec, leaves, pcp_map.pcp(prio), where):
            found.taken.add(id(f))
        used["pcp"] = True
    elif kind == "u32" and flow in leaves and prio is not None:
        match = o.get("match")
        keys = match if isinstance(match, list) else [match] if isinstance(match, dict) else [{}]
        for code in set.intersection(*(set(_codes(k if isinstance(k, dict) else {}, proto)) for k in keys)):
            found.add("pcp", flow, drop_precedence(code), pcp_map.pcp(prio))
    return prio is not None


def _flow(value: object) -> str:
    text = str(value or "")
    major, _, minor = text.partition(":")
    try:
        return f"{int(major or '0', 16):x}:{int(minor or '0', 16):x}"
    except ValueError:
        return text


def _exp_values(match: object) -> list[int] | None:
    """The EXP values the u32 keys at offset 0 match (iproute2 prints several keys as a list), None when one
    matches other bits or another offset."""
    values = list(range(8))
    for key in match if isinstance(match, list) else [match] if isinstance(match, dict) else []:
        if not isinstance(key, dict):
            return None
        value, mask = int(str(key.get("value", "0")), 16), int(str(key.get("mask", "0")), 16)
        if int(str(key.get("off", 0))) != 0 or mask & ~EXP_BITS:
            return None
        values = [v for v in values if ((v << 9) & mask) == (value & mask)]
    return values


def _codes(match: dict[str, Any], proto: str) -> list[int]:
    """The DSCP code points a DSCP filter matches (IPv4 TOS byte, IPv6 traffic class; everything for a filter of
    every protocol matching everything)."""
    value, mask = int(str(match.get("value", "0")), 16), int(str(match.get("mask", "0")), 16)
    if int(str(match.get("off", 0))) != 0:
        return []
    if proto == "all":
        return list(range(64)) if mask == 0 else []
    shift = 20 if proto == "ipv6" else 16
    if mask & ~(0xFF << shift) & 0xFFFFFFFF:
        return []
    tos_v, tos_m = (value >> shift) & 0xFF, (mask >> shift) & 0xFF
    return [c for c in range(64) if ((c << 2) & tos_m) == (tos_v & tos_m)]


def _pcp_filter(found: Found, name: str, o: dict[str, Any], flow: str, prec: int, leaves: set[str],
                pcp: int | None, where: Location | None) -> bool:
    """The PCP values a cBPF filter sends to a class; whether it was read."""
    code = o.get("bytecode")
    insns = code.get("insns") if isinstance(code, dict) else None
    if not isinstance(insns, list):
        found.diagnostics.append(warning("QOS172", f"{name}: a bpf filter without classic BPF bytecode (an eBPF "
                                         "program): not read", where))
        return False
    program = [(int(i["code"]), int(i["jt"]), int(i["jf"]), int(i["k"])) for i in insns]
    untagged = run_cbpf(program, None)
    verdicts = [run_cbpf(program, value << 13) for value in range(8)]
    if None in verdicts or untagged not in (0, None):
        found.diagnostics.append(warning("QOS172", f"{name}: a cBPF filter whose verdict depends on more than the "
                                         "802.1Q tag: not read", where))
        return False
    for value, verdict in enumerate(verdicts):
        target = flow if verdict == RET_FLOWID else _classid(verdict or 0) if verdict else None
        if target in leaves and found.pcp[value] is None:
            found.pcp[value] = (target, prec)
            found.add("pcp", target, prec, pcp)
    return True
