"""QOS210-QOS212: classifier rules on the Ethernet header, and interfaces that carry Ethernet frames only.

A rule matches the IP header (source, destination, protocol, ports, dscp) or the Ethernet header (pcp, source-mac,
destination-mac), never both (QOS210: no target has one match for both layers; JUNOS matches them in filters of
different families, inet and ccc).  An interface that carries Ethernet frames only (encapsulation vlan alone:
qosc.marking.ethernet_only) routes no IP: its classifier's rules may not match IP fields or mark a DSCP (QOS211);
a rule on the Ethernet header is for such interfaces alone (QOS212: a JUNOS family inet filter cannot match MAC
addresses or 802.1p, Junos OS Routing Policies, Firewall Filters and Traffic Policers User Guide, "Firewall Filter
Match Conditions for IPv4 Traffic"; the Layer 2 conditions are those of "Firewall Filter Match Conditions for
Layer 2 CCC Traffic" and "... for Layer 2 Bridging Traffic").
"""

from __future__ import annotations

from collections.abc import Iterator

from qosc import dscp
from qosc.checks.network import Scratch
from qosc.classifier import ETHERNET_KEYS, IP_KEYS
from qosc.diagnostics import Diagnostic, error
from qosc.model import Device, Policy, Rule
from qosc.rulemarks import rule_mark


def _ip_key(rule: Rule) -> str:
    """The first IP key a rule matches on, as the policy spells it."""
    values = (rule.sources, rule.destinations, rule.protocols, rule.source_ports, rule.destination_ports,
              rule.match_dscp)
    return next(key for key, value in zip(IP_KEYS, values, strict=True) if value)


def _ethernet_key(rule: Rule) -> str:
    values = (rule.pcp, rule.source_macs, rule.destination_macs)
    return next(key for key, value in zip(ETHERNET_KEYS, values, strict=True) if value)


def check_layers(policy: Policy) -> Iterator[Diagnostic]:
    """QOS210: a rule that matches both headers, or marks a DSCP (set-dscp) while matching the Ethernet header."""
    for c in policy.classifiers:
        for r in c.rules:
            if not r.ethernet:
                continue
            if r.ip:
                yield error("QOS210", f"rule '{r.name}' of classifier '{c.name}' matches the Ethernet header "
                            f"({_ethernet_key(r)}) and the IP header ({_ip_key(r)})",
                            r.where.at(f"match.{_ethernet_key(r)}", "match"),
                            "make a rule per header: Ethernet keys for interfaces that carry Ethernet frames "
                            "only, IP keys for the others")
            elif r.set_dscp is not None:
                yield error("QOS210", f"rule '{r.name}' of classifier '{c.name}' matches the Ethernet header "
                            f"({_ethernet_key(r)}) and marks DSCP {dscp.name(r.set_dscp)}: frames that are not "
                            "routed keep their payload as it came", r.where.at("set-dscp"),
                            "remove set-dscp: the rule classifies into its service, which writes its PCP")


def check_interfaces(scratch: Scratch, d: Device) -> Iterator[Diagnostic]:
    """QOS211: an Ethernet-only interface whose classifier matches IP or marks DSCP; QOS212: a rule on the Ethernet
    header in the classifier of an interface that carries IP.  Once per (classifier, rule, kind of interface)."""
    policy = scratch.policy
    for i in d.interfaces:
        classifier = policy.classifier_map.get(i.classifier or "")
        if classifier is None:
            continue
        name = f"{d.name}:{i.name}" + (f" unit {i.unit}" if i.unit else "")
        for r in classifier.rules:
            if i.ethernet_only and r.ip:
                yield error("QOS211", f"rule '{r.name}' of classifier '{classifier.name}' matches the IP header "
                            f"({_ip_key(r)}), but {name} carries Ethernet frames only (encapsulation vlan)",
                            r.where.at(f"match.{_ip_key(r)}", "match"),
                            "match the Ethernet header (pcp, source-mac, destination-mac), or add ip to the "
                            "interface's encapsulation if it routes IP")
            elif i.ethernet_only and (mark := rule_mark(r, policy.service_map.get(r.service))) is not None:
                yield error("QOS211", f"rule '{r.name}' of classifier '{classifier.name}' marks DSCP "
                            f"{dscp.name(mark)}, but {name} carries Ethernet frames only (encapsulation vlan): "
                            "no DSCP is written there", r.where.at("mark", "service"),
                            "add mark: false (classify into the service without marking), or match the "
                            "Ethernet header")
            elif not i.ethernet_only and r.ethernet:
                yield error("QOS212", f"rule '{r.name}' of classifier '{classifier.name}' matches the Ethernet "
                            f"header ({_ethernet_key(r)}), but {name} carries IP "
                            f"(encapsulation {' '.join(i.encapsulation)})",
                            r.where.at(f"match.{_ethernet_key(r)}", "match"),
                            "use the classifier on interfaces that carry Ethernet frames only (encapsulation: "
                            "vlan), or match the IP header here")


RULES = (check_layers,)
DEVICE_RULES = (check_interfaces,)
