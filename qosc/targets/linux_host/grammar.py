"""Grammars of the linux-host files, each rule with its source in the kernel and iproute2 documentation.

sysctl.d drop-in: only the keys qosc owns, each with the type and range the
kernel's handler accepts (values outside are refused by `sysctl -p`, which
then skips the line), a triple in the order autotuning needs, each key once.
txqueuelen script: `set -e` and `ip link set dev IFNAME txqueuelen N`, an
interface name the kernel accepts, each interface once.
"""

from __future__ import annotations

from collections import Counter

from qosc.grammar import CommandGrammar, Form, IntRange, Source, String, Violation
from qosc.tree import Document, Kind

INT_MAX = 2**31 - 1
_CORE = Source("Documentation/admin-guide/sysctl/net.rst; net/core/sysctl_net_core.c (proc_dointvec_minmax, "
               "min_rcvbuf = SOCK_MIN_RCVBUF 2304, min_sndbuf = SOCK_MIN_SNDBUF 4608)", "Linux 4.9 .. 6.x")
_IPV4 = Source("Documentation/networking/ip-sysctl.rst; net/ipv4/sysctl_net_ipv4.c (tcp_rmem, tcp_wmem: three "
               "ints, each 1..INT_MAX; tcp_congestion_control: TCP_CA_NAME_MAX 16 including the NUL)",
               "Linux 4.9 .. 6.x")
_QDISC = Source("Documentation/admin-guide/sysctl/net.rst default_qdisc; net/sched/sch_api.c qdisc_set_default "
                "(a registered qdisc id, at most IFNAMSIZ - 1 characters)", "Linux 4.9 .. 6.x")
_IPLINK = Source("ip-link(8) 'ip link set dev IFNAME txqueuelen NUMBER'; net/core/dev.c dev_valid_name "
                 "(1..15 characters, not '.' or '..', no '/', ':' or white space); dev->tx_queue_len is an "
                 "unsigned int", "iproute2 4.9 .. 6.x")
_SH = Source("POSIX sh 'set -e': exit on the first failing command")

TYPES = {
    "rcvbuf": IntRange(((2304, INT_MAX),)),
    "sndbuf": IntRange(((4608, INT_MAX),)),
    "bytes": IntRange(((1, INT_MAX),)),
    "algorithm": String(1, 15, (r"[a-z0-9_]+",)),
    "qdisc": String(1, 15, (r"[a-z0-9_]+",)),
    "ifname": String(1, 15, (r"[^/:\s]+",), (r"\.", r"\.\.")),
    "uint32": IntRange(((0, 2**32 - 1),)),
}

SYSCTL_FORMS = (
    Form("net.core.rmem_max <rcvbuf>", _CORE),
    Form("net.core.wmem_max <sndbuf>", _CORE),
    Form("net.ipv4.tcp_rmem <bytes> <bytes> <bytes>", _IPV4),
    Form("net.ipv4.tcp_wmem <bytes> <bytes> <bytes>", _IPV4),
    Form("net.ipv4.tcp_congestion_control <algorithm>", _IPV4),
    Form("net.core.default_qdisc <qdisc>", _QDISC),
)


def _once(what: str, key: int, source: Source):  # type: ignore[no-untyped-def]
    """A file-level rule: the statement identified by its first `key` words appears once."""
    def rule(doc: Document) -> list[Violation]:
        counts = Counter(s.texts()[:key] for s in doc.statements)
        return [Violation((s,), f"{what} {' '.join(s.texts()[:key])} is set more than once (the last one wins)",
                          source) for s in doc.statements if counts[s.texts()[:key]] > 1]
    return rule


def _ordered(doc: Document) -> list[Violation]:
    """tcp_rmem / tcp_wmem: min <= default <= max (the kernel does not check; autotuning then clamps wrongly)."""
    found = []
    for s in doc.statements:
        if s.keyword in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem") and len(s.words) == 2:
            values = [w.value for w in s.words[1].words if w.kind is Kind.SIZE]
            if len(values) == 3 and not values[0] <= values[1] <= values[2]:
                found.append(Violation((s,), f"triple {' '.join(map(str, values))} is not min <= default <= max",
                                       _IPV4))
    return found


SYSCTL = CommandGrammar("sysctl", {"sysctl.d": SYSCTL_FORMS}, "sysctl.d", TYPES,
                        rules=(_once("sysctl", 1, Source("sysctl.d(5): a later assignment overrides an earlier one")),
                               _ordered))

SHELL = CommandGrammar("sh", {"script": (Form("set -e", _SH),
                                         Form("ip link set dev <ifname> txqueuelen <uint32>", _IPLINK))},
                       "script", TYPES, rules=(_once("interface", 5, _IPLINK),))
