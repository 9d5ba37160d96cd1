"""The grammar of the tc batch dialect: the tc commands and options qosc writes, each with its source.

One form per command shape, from the iproute2 manual pages of the release
qosc targets (6.1; every option used here is older than 4.9, but the mpls action: iproute2 and
Linux 5.3): tc-htb(8) for
the root qdisc and classes, tc-bfifo(8), tc-red(8) and tc-fq_codel(8) for
the leaf qdiscs, tc-u32(8) for the filters and their matches (and the MPLS
label stack entry), tc-bpf(8) for the cBPF 802.1p filters, tc-mpls(8) and
tc-skbedit(8) for the EXP and 802.1p rewrite, tc(8) and
tc-bpf(8) for clsact, tc-police(8), tc-pedit(8), tc-csum(8) and
tc-actions(8) (gact) for the ingress actions.  Value types are the widths
tc parses them into (a u32 of bytes for sizes and limits, 16-bit hex class
ids, a u16 filter pref, HTB prio 0..7 for TC_HTB_NUMPRIO 8).

File-level rules say what tc -batch would refuse line by line on a real
kernel: a parent, flowid or clsact used before the batch makes it, a handle
or class id made twice, red's min above its max, and (for the wrapper, which
rewrites `dev NAME` to run the batch on another interface) one device per
batch.  Loading the batch on this machine's kernel is a separate, explicit
step (verify.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from qosc.grammar import CommandGrammar, DecimalRange, Enum, Form, IntRange, Source, String, ValueType, Violation
from qosc.targets.linux_tc.words import tc_rate
from qosc.tree import Document

RELEASE = "iproute2 6.1"
HTB = Source("tc-htb(8) 'tc qdisc ... htb [ default minor-id ]', 'tc class ... htb rate rate [ ceil rate ] "
             "[ burst bytes ] [ cburst bytes ] [ prio priority ] [ quantum bytes ]'", RELEASE)
BFIFO = Source("tc-bfifo(8) 'bfifo [ limit bytes ]'", RELEASE)
RED = Source("tc-red(8) 'red limit bytes [ min bytes ] [ max bytes ] avpkt bytes [ burst packets ] "
             "[ probability chance ] [ bandwidth rate ] [ ecn ]'; q_red.c keeps bandwidth in a u32 of bytes/s",
             RELEASE)
FQ_CODEL = Source("tc-fq_codel(8) 'fq_codel [ limit PACKETS ] [ ecn | noecn ]'", RELEASE)
U32 = Source("tc-u32(8) 'match SELECTOR' (ip|ip6 src/dst ADDR/LEN, protocol, sport/dport VAL MASK, ip dsfield, "
             "ip6 priority VAL MASK; u32 VAL MASK) and 'flowid CLASSID'; tc-filter(8) 'protocol', 'prio'", RELEASE)
CLSACT = Source("tc(8) and tc-bpf(8) 'tc qdisc add dev DEV clsact', filters attach at 'ingress'", RELEASE)
ACTIONS = Source("tc-police(8) 'police rate RATE burst BYTES conform-exceed EXCEEDACT[/NOTEXCEEDACT] "
                 "index INDEX'; tc-pedit(8) 'pedit ex munge ip dsfield | ip6 traffic_class set VAL retain MASK'; "
                 "tc-csum(8) 'csum ip4h'; tc-actions(8) control 'pipe' | 'pass', gact 'drop'", RELEASE)
MARKS = Source("tc-u32(8) 'match u32 VAL MASK at OFFSET' (the MPLS label stack entry at the network header of "
               "protocol mpls_uc, ll_proto.c; EXP/TC bits 9-11, RFC 3032 2.1); tc-bpf(8) 'bpf bytecode "
               "'s,c t f k,...'' and 'classid'/'flowid' (a cBPF program's -1 is the flowid, 0 no match); "
               "tc-mpls(8) 'mpls modify [ tc MPLS_TC ]' (0-7) with CONTROL 'pipe'; tc-skbedit(8) 'skbedit "
               "priority PRIORITY' (a class id: ':N' is priority N)", RELEASE)
ORDER = Source("tc(8): a class's parent, a qdisc's parent class, a filter's flowid and an ingress filter's "
               "clsact must exist (tc -batch runs the lines in order); 'add' of an existing handle fails", RELEASE)
RED_PARAMS = Source("Linux include/net/red.h red_check_params: refuses qth_max < qth_min", "Linux 4.9 .. 6.x")
ONE_DEV = Source("qosc's device script (templates/apply.j2, qosc_batch) rewrites ' dev NAME ' to apply the batch to "
                 "another interface, so a batch names one device")

U32_MAX = 2**32 - 1
_FACTORS = {"bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9}


@dataclass(frozen=True)
class TcRate(ValueType):
    """A rate as tc reads it (`<n>bit|kbit|mbit|gbit`, powers of ten), at most `max_bps` where tc keeps it in a
    narrower field."""

    max_bps: int | None = None

    def refuse(self, text: str) -> str | None:
        m = re.fullmatch(r"([1-9][0-9]*)(bit|kbit|mbit|gbit)", text)
        if not m:
            return f"{text!r} is not a tc rate (<n>bit, kbit, mbit or gbit)"
        if self.max_bps is not None and int(m[1]) * _FACTORS[m[2]] > self.max_bps:
            return f"{text} is above {tc_rate(self.max_bps)}"
        return None

    def to_json(self) -> Any:
        return {"tc-rate": self.max_bps}

    def describe(self) -> str:
        return "a tc rate" + (f" of at most {tc_rate(self.max_bps)}" if self.max_bps is not None else "")


TYPES = {
    "dev": String(1, 15, (r"[^/:\s]+",), (r"\.", r"\.\.")),
    "handle": String(2, 5, (r"[0-9a-f]{1,4}:",)),
    "classid": String(3, 9, (r"[0-9a-f]{1,4}:[0-9a-f]{1,4}",)),
    "minor": String(1, 4, (r"[0-9a-f]{1,4}",)),
    "rate": TcRate(),
    "red-bandwidth": TcRate(U32_MAX * 8),
    "bytes": IntRange(((1, U32_MAX),)),
    "packets": IntRange(((1, U32_MAX),)),
    "htb-prio": IntRange(((0, 7),)),
    "pref": IntRange(((1, 65535),)),
    "protocol": Enum(("ip", "ipv6")),
    "lse-tc": String(10, 10, (r"0x00000[02468ace]00",)),
    "cbpf": String(9, 4096, (r"'[1-9][0-9]*(,[0-9]+ [0-9]+ [0-9]+ [0-9]+)+'",)),
    "mpls-tc": IntRange(((0, 7),)),
    "skb-priority": String(2, 2, (r":[0-7]",)),
    "probability": DecimalRange(0.0, 1.0, 6),
    "tos": String(4, 4, (r"0x[0-9a-f][048c]",)),
    "ipproto": IntRange(((0, 255),)),
    "port": IntRange(((0, 65535),)),
    "port-mask": String(6, 6, (r"0x[0-9a-f]{4}",)),
    "prefix4": String(9, 18, (r"([0-9]{1,3}\.){3}[0-9]{1,3}/[0-9]{1,2}",)),
    "prefix6": String(4, 43, (r"[0-9a-f:]*:[0-9a-f:]*/[0-9]{1,3}",)),
    "index": IntRange(((1, U32_MAX),)),
    "police-control": Enum(("drop/pipe", "ok/pipe")),
    "control": Enum(("pipe", "pass")),
}


def _selectors(ip: str, dscp_field: str, prefix: str) -> str:
    return (f"match {ip} src <{prefix}> | match {ip} dst <{prefix}> | match {ip} protocol <ipproto> 0xff | "
            f"match {ip} sport <port> <port-mask> | match {ip} dport <port> <port-mask> | "
            f"match {ip} {dscp_field} <tos> 0xfc")


MATCH = (f"( {_selectors('ip', 'dsfield', 'prefix4')} | {_selectors('ip6', 'priority', 'prefix6')} | "
         "match u32 0 0 ) ...")
ACTION = ("( action police rate <rate> burst <bytes> conform-exceed <police-control> index <index> "
          "| action pedit ex munge ip dsfield set <tos> retain 0xfc <control> "
          "| action pedit ex munge ip6 traffic_class set <tos> retain 0xfc <control> "
          "| action csum ip4h <control> | action gact drop ) ...")
LEAF = "qdisc add dev <dev> parent <classid> handle <handle>"
LSE_TC = "match u32 <lse-tc> 0x00000e00 at 0"
MARK_ACTIONS = "( action mpls modify tc <mpls-tc> pipe | action skbedit priority <skb-priority> pipe ) ..."

FORMS = (
    Form("qdisc add dev <dev> root handle <handle> htb default <minor>", HTB),
    Form("class add dev <dev> parent ( <handle> | <classid> ) classid <classid> htb rate <rate> ceil <rate> "
         "burst <bytes> cburst <bytes> [ prio <htb-prio> ] quantum <bytes>", HTB),
    Form(f"{LEAF} bfifo limit <bytes>", BFIFO),
    Form(f"{LEAF} red limit <bytes> min <bytes> max <bytes> avpkt <bytes> burst <packets> probability <probability> "
         "bandwidth <red-bandwidth> [ ecn ]", RED),
    Form(f"{LEAF} fq_codel limit <packets> ( ecn | noecn )", FQ_CODEL),
    Form(f"filter add dev <dev> parent <handle> protocol <protocol> prio <pref> u32 {MATCH} flowid <classid> "
         f"[ {MARK_ACTIONS} ]", U32),
    Form(f"filter add dev <dev> parent <handle> protocol ( mpls_uc | all ) prio <pref> u32 "
         f"( {LSE_TC} | match u32 0 0 ) flowid <classid> [ {MARK_ACTIONS} ]", MARKS),
    Form("filter add dev <dev> parent <handle> protocol all prio <pref> bpf bytecode <cbpf> flowid <classid>", MARKS),
    Form("qdisc add dev <dev> clsact", CLSACT),
    Form(f"filter add dev <dev> ingress protocol <protocol> prio <pref> u32 {MATCH} {ACTION}", ACTIONS),
    Form(f"filter add dev <dev> ingress protocol <protocol> prio <pref> bpf bytecode <cbpf> {ACTION}", ACTIONS),
)


def _after(texts: tuple[str, ...], keyword: str) -> str | None:
    """The word after the first `keyword` of a statement's words."""
    try:
        return texts[texts.index(keyword) + 1]
    except (ValueError, IndexError):
        return None


def _bytes(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _file_rules(doc: Document) -> list[Violation]:
    """One pass over the batch: one device, references to what earlier lines made, nothing made twice, red's
    min at most its max."""
    found: list[Violation] = []
    first_dev: str | None = None
    made: set[str] = set()
    for s in doc.statements:
        texts = s.texts()
        dev = _after(texts, "dev")
        if dev is not None and first_dev is None:
            first_dev = dev
        elif dev is not None and dev != first_dev:
            found.append(Violation((s,), f"names device {dev!r}, the batch's first line names {first_dev!r}",
                                   ONE_DEV))
        clsact = texts[-1:] == ("clsact",)
        wanted = [ref for k in ("parent", "flowid") if (ref := _after(texts, k)) is not None]
        if not clsact and "ingress" in texts[:5]:
            wanted.append("clsact")
        found.extend(Violation((s,), f"{ref!r} is used before the batch makes it", ORDER)
                     for ref in wanted if ref not in made)
        new = [ref for k in ("handle", "classid") if (ref := _after(texts, k)) is not None]
        for ref in [*new, "clsact"] if clsact else new:
            if ref in made:
                found.append(Violation((s,), f"{ref!r} is made twice", ORDER))
            made.add(ref)
        if "red" in texts:
            low, high = _bytes(_after(texts, "min")), _bytes(_after(texts, "max"))
            if low is not None and high is not None and high < low:
                found.append(Violation((s,), f"red max {high} is below min {low}", RED_PARAMS))
    return found


class BatchGrammar(CommandGrammar):
    """The forms engine with a memory: a network repeats the same batch lines on every interface of equal
    settings and on every device of one profile, so each distinct line is matched against the forms once."""

    MEMORY = 100_000

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._known_lines: dict[tuple[tuple[str, ...], str], tuple[Form | None, str]] = {}

    def form_of(self, words: Sequence[str], mode: str) -> tuple[Form | None, str]:
        key = (tuple(words), mode)
        found = self._known_lines.get(key)
        if found is None:
            found = super().form_of(words, mode)
            if len(self._known_lines) < self.MEMORY:
                self._known_lines[key] = found
        return found


RULES: tuple[Callable[[Document], list[Violation]], ...] = (_file_rules,)
GRAMMAR = BatchGrammar("tc", {"batch": FORMS}, "batch", TYPES, rules=RULES)
