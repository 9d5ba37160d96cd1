"""QOS083-QOS089, QOS096-QOS097: MPLS EXP and 802.1p PCP markings carry every service to its queue.

Three bits carry at most eight behaviours (RFC 3270 section 1.2, E-LSPs), so
services may have to share a value; the checks make sure that what is shared
is a queue, that LBE never rides with best effort, that no core or trunk
rewrites a service away, and that an MPLS edge gives each service an EXP the
core classifies.  A value a service leaves undeclared falls to the default
service's class where it is classified, and is written as the default
service's value (0 when it declares none) where it is rewritten.
"""

from __future__ import annotations

from collections.abc import Iterator

from qosc import dscp
from qosc.checks.network import THREE_BIT, Claim, Network, Scratch
from qosc.diagnostics import Diagnostic, error, warning
from qosc.model import Device, Domain, Interface, Kind, Policy, Role, Service
from qosc.targets.registry import platform

CARRIER = {Domain.EXP: "mpls", Domain.PCP: "vlan"}
_BITS3 = frozenset(THREE_BIT)
WHERE = {Domain.EXP: "MPLS", Domain.PCP: "VLAN"}


def _owners(policy: Policy, services: tuple[Service, ...]) -> list[Service]:
    out: list[Service] = []
    for s in services:
        owner = policy.queue_owner(s)
        if owner not in out:
            out.append(owner)
    return out


def _queue_codes(policy: Policy, owner: Service, domain: Domain) -> tuple[int, ...]:
    """The values of a queue: its owner's and those of the services that share it."""
    return tuple(v for s in policy.services if policy.queue_owner(s) is owner for v in s.codes(domain))


def check_carriers(scratch: Scratch, device: Device) -> Iterator[Diagnostic]:
    """QOS096: a marking domain on an interface that does not carry it."""
    for iface in device.interfaces:
        if not iface.impose and _BITS3.isdisjoint(iface.trust) and _BITS3.isdisjoint(iface.rewrite):
            continue  # (DSCP only: nothing to carry)
        for domain in THREE_BIT:
            carrier = CARRIER[domain]
            if carrier in iface.encapsulation:
                continue
            for what, given in (("trust", iface.trust), ("rewrite", iface.rewrite)):
                if domain in given:
                    yield error("QOS096", f"{device.name}:{iface.name} {what}s {domain.label} but carries no "
                                f"{carrier}", iface.where.at(what),
                                f"add encapsulation: {carrier}, or remove {domain.value} from {what}")
        if iface.impose and not any(i.mpls for i in device.interfaces):
            yield error("QOS096", f"{device.name}:{iface.name} imposes EXP, but {device.name} has no mpls interface",
                        iface.where.at("impose"), "give the uplinks encapsulation: mpls, or remove impose")
        if iface.impose and iface.role is not Role.EDGE:
            yield error("QOS096", f"{device.name}:{iface.name} imposes EXP but is a {iface.role.value} interface: "
                        "labels are imposed where IP traffic enters the MPLS network", iface.where.at("impose"),
                        "set impose on the edge interfaces")


def check_values(policy: Policy, network: Network) -> Iterator[Diagnostic]:
    """QOS083: one EXP or PCP value for two queues; QOS085: LBE on best effort's value (or on none, where an
    interface of the network carries it in that domain)."""
    be = next((s for s in policy.services if s.kind is Kind.BEST_EFFORT), policy.default_service)
    for domain in THREE_BIT:
        owner_of: dict[int, Service] = {}
        for s in policy.services:
            queue = policy.queue_owner(s)
            for value in s.codes(domain):
                other = owner_of.setdefault(value, queue)
                if other is queue:
                    continue
                if Kind.LBE in (s.kind, other.kind) and be is not None and be in (other, queue):
                    continue  # QOS085 says it
                yield error("QOS083", f"{domain.label} {value} is claimed by services '{other.name}' and '{s.name}', "
                            "which do not share a queue", s.where.at(domain.value),
                            f"give one of them another {domain.label} value, or carry '{s.name}' in "
                            f"'{other.name}''s queue (queue.shared-with) if it may share it")
        if be is None:
            continue
        be_value = be.mark_in(domain)
        be_value = 0 if be_value is None and be.default else be_value
        for s in policy.services:
            if s.kind is not Kind.LBE:
                continue
            if s.codes(domain) and be_value in s.codes(domain):
                yield error("QOS085", f"LBE service '{s.name}' is carried as {domain.label} {be_value}, the value of "
                            f"best effort '{be.name}': in the {WHERE[domain]} core LBE would share best effort's "
                            "queue and hurt it (GÉANT's first trial)", s.where.at(domain.value),
                            f"give '{s.name}' an {domain.label} value of its own (LBE never shares a queue)")
            elif not s.codes(domain) and (domain.value, s.name) in network.uses:
                yield error("QOS085", f"LBE service '{s.name}' has no {domain.label} value but is carried over "
                            f"{WHERE[domain]} interfaces: there it falls into best effort's class and is "
                            f"rewritten to best effort's {domain.label}", s.where.at(domain.value, "kind"),
                            f"add {domain.value}: [N] with a value of its own (e.g. 1)")


def check_eight(scratch: Scratch, device: Device) -> Iterator[Diagnostic]:
    """QOS084: more queues on a 3-bit interface than eight values can carry."""
    policy = scratch.policy
    for iface in device.interfaces:
        for domain in THREE_BIT:
            if domain not in iface.trust:
                continue
            owners = _owners(policy, policy.services_on(iface))
            if len(owners) <= 8:
                continue
            groups: dict[tuple[bool, str], list[str]] = {}
            for s in owners:
                if s.kind is not Kind.LBE:
                    groups.setdefault((s.queue.strict, s.queue.priority.label), []).append(s.name)
            could = [" and ".join(names) + f" (priority {prio}{', strict' if strict else ''})"
                     for (strict, prio), names in groups.items() if len(names) > 1]
            yield error("QOS084", f"{device.name}:{iface.name} classifies on {domain.label} and schedules "
                        f"{len(owners)} queues, but {domain.label} has eight values", iface.where.at("trust",
                                                                                                    "services"),
                        "let services share a queue (queue.shared-with): " + ("; ".join(could) if could else
                                                                             "services of the same priority"))


def claim_undeclared(scratch: Scratch, device: Device) -> Iterator[Claim]:
    """QOS087: a core or trunk rewrite that bleaches a service's marking (the service has no value there, or the
    interface does not schedule it, so its packets are classified as the default's and leave with its value);
    QOS097: a service without a value, classified as the default where it is only classified.  Each (service,
    domain, rewritten or not) once in the network: a claim (qosc.checks.network), the first device's."""
    policy = scratch.policy
    seen: set[tuple[str, str, bool]] = set()
    queue_codes = scratch.table("queue codes")
    owners_all = scratch.table("owners").get(None)
    if owners_all is None:
        owners_all = scratch.table("owners")[None] = _owners(policy, policy.services)
    for iface in device.interfaces:
        if not (iface.trust or iface.rewrite):
            continue
        for domain in THREE_BIT:
            if not (domain in iface.rewrite or domain in iface.trust):
                continue
            rewrites = domain in iface.rewrite and iface.role is not Role.EDGE
            scheduled = _owners(policy, policy.services_on(iface))
            for owner in owners_all:
                codes = queue_codes.get((owner.name, domain))
                if codes is None:
                    codes = queue_codes[owner.name, domain] = _queue_codes(policy, owner, domain)
                if owner.default or (owner.kind is Kind.LBE and not codes) or (owner in scheduled and codes):
                    continue
                if owner not in scheduled and not (codes and rewrites):
                    continue
                key = (owner.name, domain.value, rewrites)
                if key in seen:
                    continue
                seen.add(key)
                yield key, _undeclared(device, iface, owner, domain, codes, rewrites, owner in scheduled)


def _undeclared(device: Device, iface: Interface, owner: Service, domain: Domain, codes: tuple[int, ...],
                rewrites: bool, scheduled: bool) -> Diagnostic:
    if rewrites and scheduled:
        return error("QOS087", f"service '{owner.name}' has no {domain.label} value, so "
                     f"{device.name}:{iface.name} rewrites its {domain.label} to the default's (0): "
                     f"the next hop queues it as best effort", owner.where.at(domain.value, "kind"),
                     f"give '{owner.name}' {domain.value}: [N], or remove {domain.value} from the "
                     "interface's rewrite")
    if rewrites:
        return error("QOS087", f"{device.name}:{iface.name} does not schedule '{owner.name}' but rewrites "
                     f"{domain.label}: its {domain.label} {', '.join(map(str, codes))} leaves as the "
                     "default's (0), and the next hop queues it as best effort",
                     iface.where.at("rewrite", "services", "encapsulation"),
                     f"schedule '{owner.name}' here, or keep its marking: role: transparent or a "
                     f"rewrite without {domain.value}")
    return warning("QOS097", f"service '{owner.name}' has no {domain.label} value: "
                   f"{device.name}:{iface.name} classifies its {WHERE[domain]} traffic into the "
                   "default service", owner.where.at(domain.value, "kind"),
                   f"give '{owner.name}' {domain.value}: [N]")


def check_imposition(scratch: Scratch, device: Device) -> Iterator[Diagnostic]:
    """QOS088: an edge imposes an EXP that no core classifies into its service (the topology is not in the
    policy: a core that schedules it somewhere is taken to be on its path; the cores are the network's
    context); QOS089: the box's default EXP merges services."""
    policy, cores = scratch.policy, scratch.context
    if not any("mpls" in i.encapsulation for i in device.interfaces):
        return
    for iface in device.interfaces:
        if iface.role is not Role.EDGE:
            continue
        entering = _owners(policy, policy.services_on(iface))
        if iface.impose:
            for s in entering:
                if not _queue_codes(policy, s, Domain.EXP) or s.default:
                    continue
                if cores and not any(s.name in services for _, services in cores):
                    missing = [label for label, _ in cores]
                    yield warning("QOS088", f"{device.name}:{iface.name} imposes EXP {s.mark_in(Domain.EXP)} for "
                                  f"'{s.name}', which no MPLS core interface schedules ({_few(missing)}): in the "
                                  "core it is queued as the default service", iface.where.at("impose", "role"),
                                  f"schedule '{s.name}' on the core interfaces (services:)")
            continue
        data = platform(device.platform)
        if getattr(data, "exp_default", None) != "ip-precedence":
            continue
        by_value: dict[int, list[str]] = {}
        for s in entering:
            for code in {c for x in policy.services if policy.queue_owner(x) is s for c in x.dscp}:
                names = by_value.setdefault(dscp.precedence(code), [])
                if s.name not in names:
                    names.append(s.name)
        for value, names in sorted(by_value.items()):
            if len(names) > 1:
                yield warning("QOS089", f"{device.name}:{iface.name} leaves EXP to {device.platform}'s default, "
                              f"which copies IP precedence: {' and '.join(repr(n) for n in names)} all enter the "
                              f"MPLS network as EXP {value} and share one class in the core",
                              iface.where.at("impose", "role"),
                              "remove impose: false (qosc then imposes each service's exp), or give the services "
                              "code points of different precedences")


def _few(names: list[str]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def check_collapse(policy: Policy, network: Network) -> Iterator[Diagnostic]:
    """QOS086: drop precedences a service's DSCPs tell apart that its EXP or PCP values do not."""
    for s in policy.services:
        levels = sorted({dscp.drop_precedence(c) for c in s.dscp})
        if len(levels) < 2:
            continue
        for domain in THREE_BIT:
            marking = s.marking(domain)
            if not marking or (domain.value, s.name) not in network.uses:
                continue
            lost = [lv for lv in levels[1:] if marking.mark(lv) == marking.mark(1)
                    and (domain is not Domain.PCP or lv not in marking.precedences())]
            if lost:
                codes = [dscp.name(c) for c in s.dscp if dscp.drop_precedence(c) in lost]
                yield warning("QOS086", f"service '{s.name}': {', '.join(codes)} travel as {domain.label} "
                              f"{marking.mark(1)} with drop precedence low, like its in-contract traffic: in the "
                              f"{WHERE[domain]} core WRED cannot drop them first", s.where.at(domain.value),
                              f"give {domain.value} a value per drop precedence, e.g. {{low: [{marking.mark(1)}], "
                              "high: [N]}")


DEVICE_RULES = (check_carriers, check_eight, check_imposition)
NETWORK_RULES = (check_values, check_collapse)
CLAIMS = (claim_undeclared,)
