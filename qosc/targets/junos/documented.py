"""Values Juniper's YANG leaves open (typed as plain strings) but the box checks: documented rules, with sources.

The configuration YANG types a scheduler's `priority`, a firewall term's
`dscp` match and a policer's rates as strings; the commit refuses values
outside these sets.
"""

from __future__ import annotations

from collections.abc import Iterable

from qosc.grammar import Enum, IntRange, Source, String, Union, ValueType, Violation
from qosc.targets.junos.references import BUILTIN_ALIASES, _matcher, _matches
from qosc.tree import Statement

_PRIORITY = Source("Junos OS Class of Service User Guide, 'priority (Schedulers)': low | medium-low | medium-high | "
                   "high | strict-high; 'excess-priority': low | medium-low | medium-high | high | none",
                   "Junos OS 12.3 .. 23.4")
PRIORITIES = ("low", "medium-low", "medium-high", "high", "strict-high")
"""The scheduler priorities of every platform; a platform's strict_priorities add to them (junos-acx: low-latency,
"Transmission Priority Scheduling", whose levels 'vary depending on the platform')."""
_DSCP = Source("Junos OS Routing Policies, Firewall Filters and Traffic Policers User Guide, 'Firewall Filter Match "
               "Conditions for IPv4 Traffic' (dscp: a number 0..63 or an alias be, cs0..cs7, af11..af43, ef) and "
               "'... for IPv6 Traffic' (traffic-class: the same values)", "Junos OS 12.3 .. 23.4")
_RATE = Source("Junos OS Routing Policies, Firewall Filters and Traffic Policers User Guide, 'bandwidth-limit', "
               "'burst-size-limit', 'committed-information-rate': a decimal number with an optional k, m or g "
               "suffix", "Junos OS 12.3 .. 23.4")

_BURST = Source("Junos OS CLI reference, 'shaping-rate (Schedulers)': shaping-rate (percent percentage | rate) "
                 "<burst-size bytes>, burst-size 0 through 1,000,000,000 bytes (MIC and MPC interfaces on MX Series, "
                 "Junos OS 11.4 and later)", "Junos OS 11.4 .. 23.4")

_CODES = Source("Junos OS CoS User Guide, 'Default Aliases for CoS Value Bit Patterns Overview' and 'Configuring "
                "and Applying IEEE 802.1ad Classifiers': an MPLS EXP or IEEE 802.1p code point is 3 bits, an IEEE "
                "802.1ad one 4 (the PCP, then the DEI bit), or an alias (a letter, up to 64 characters); the YANG "
                "types classifier code-points as a plain string", "Junos OS 12.3 .. 23.4")

_NUMBER = String(1, 32, (r"[0-9]+(\.[0-9]+)?[kmg]?",))
_ALIAS = String(1, 64, (r"[a-zA-Z].*",))
_DSCP_VALUE: ValueType = Union((IntRange(((0, 63),)), Enum(tuple(sorted(
    {a for a in BUILTIN_ALIASES if not a.startswith("nc")} | {f"cs{i}" for i in range(8)})))))

RULES: tuple[tuple[str, int, ValueType, Source], ...] = (
    ("class-of-service schedulers * excess-priority *", 4,
     Enum(("low", "medium-low", "medium-high", "high", "none")), _PRIORITY),
    ("firewall family inet filter * term * from dscp *", 9, _DSCP_VALUE, _DSCP),
    ("firewall family inet6 filter * term * from traffic-class *", 9, _DSCP_VALUE, _DSCP),
    ("firewall policer * if-exceeding bandwidth-limit *", 5, _NUMBER, _RATE),
    ("firewall policer * if-exceeding burst-size-limit *", 5, _NUMBER, _RATE),
    ("firewall three-color-policer * <single-rate|two-rate> * *", 5, _NUMBER, _RATE),
    ("class-of-service schedulers * transmit-rate *", 4, Union((_NUMBER, Enum(("percent", "remainder")))), _RATE),
    ("class-of-service schedulers * shaping-rate *", 4, Union((_NUMBER, Enum(("percent",)))), _RATE),
    ("class-of-service schedulers * shaping-rate * burst-size *", 4, _NUMBER, _RATE),
    ("class-of-service schedulers * shaping-rate * burst-size *", 6, IntRange(((0, 1_000_000_000),)), _BURST),
    ("class-of-service schedulers * shaping-rate percent * burst-size *", 7, IntRange(((0, 1_000_000_000),)),
     _BURST),
    ("class-of-service interfaces * shaping-rate *", 4, _NUMBER, _RATE),
    ("class-of-service interfaces * unit * shaping-rate *", 6, _NUMBER, _RATE),
    ("class-of-service classifiers <exp|ieee-802.1> * forwarding-class * loss-priority * code-points *", 9,
     Union((String(3, 3, (r"[01]{3}",)), _ALIAS)), _CODES),
    ("class-of-service classifiers ieee-802.1ad * forwarding-class * loss-priority * code-points *", 9,
     Union((String(4, 4, (r"[01]{4}",)), _ALIAS)), _CODES),
)
_COMPILED = [(_matcher(p), at, t, s) for p, at, t, s in RULES]
_SCHEDULER_PRIORITY = _matcher("class-of-service schedulers * priority *")


def check(commands: Iterable[tuple[tuple[Statement, ...], tuple[str, ...]]],
          priorities: tuple[str, ...] = PRIORITIES) -> list[Violation]:
    """What the documented rules refuse; `priorities`: the scheduler priorities the platform has."""
    found = []
    rules = [*_COMPILED, (_SCHEDULER_PRIORITY, 4, Enum(priorities), _PRIORITY)]
    for path, words in commands:
        for matcher, at, vtype, source in rules:
            if not _matches(matcher, words, prefix=False):
                continue
            value = words[at]
            why = vtype.refuse(value)
            if why is not None:
                found.append(Violation(path, why, source))
    return found
