"""QOS020-QOS025: every name a policy uses must be defined (and we say what is)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from typing import Any

from qosc.checks.network import Network, Scratch
from qosc.diagnostics import Diagnostic, Location, error
from qosc.model import Device, Policy
from qosc.targets.registry import device_platform_names


def undefined(code: str, what: str, name: str, defined: Iterable[str], user: str,
              loc: Location | None) -> Diagnostic:
    """'X refers to <what> 'name', which is not defined' with a did-you-mean hint."""
    names = sorted(defined)
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    listing = ", ".join(names) if names else "none"
    hint = (f"did you mean '{close[0]}'? " if close else "") + f"defined {what}s: {listing}"
    return error(code, f"{user} refers to {what} '{name}', which is not defined", loc, hint)


def check_services(policy: Policy) -> Iterator[Diagnostic]:
    names = policy.service_map
    for s in policy.services:
        if s.queue.shared_with and s.queue.shared_with not in names:
            yield undefined("QOS020", "service", s.queue.shared_with, names, f"service '{s.name}'",
                            s.where.at("queue.shared-with"))
    for c in policy.classifiers:
        for r in c.rules:
            if r.service not in names:
                yield undefined("QOS020", "service", r.service, names, f"rule '{r.name}' of classifier '{c.name}'",
                                r.where.at("service"))


def check_interface_services(scratch: Scratch, d: Device) -> Iterator[Diagnostic]:
    names = scratch.policy.service_map
    for i in d.interfaces:
        for name in i.services:
            if name not in names:
                yield undefined("QOS020", "service", name, names, f"interface {d.name}:{i.name}",
                                i.where.at("services"))


def check_drop_profiles(policy: Policy) -> Iterator[Diagnostic]:
    for s in policy.services:
        for _, name in sorted(set(s.drop_profiles)):
            if name not in policy.drop_profile_map:
                yield undefined("QOS021", "drop profile", name, policy.drop_profile_map, f"service '{s.name}'",
                                s.where.at("drop-profile"))


def check_policers(policy: Policy) -> Iterator[Diagnostic]:
    known = policy.policer_map
    for s in policy.services:
        if s.policer and s.policer not in known:
            yield undefined("QOS022", "policer", s.policer, known, f"service '{s.name}'", s.where.at("policer"))
    for c in policy.classifiers:
        for r in c.rules:
            if r.policer and r.policer not in known:
                yield undefined("QOS022", "policer", r.policer, known, f"rule '{r.name}' of classifier '{c.name}'",
                                r.where.at("policer"))


def check_profiles_and_classifiers(scratch: Scratch, d: Device) -> Iterator[Diagnostic]:
    policy = scratch.policy
    for i in d.interfaces:
        if i.profile and i.profile not in policy.profiles:
            yield undefined("QOS023", "profile", i.profile, policy.profiles, f"interface {d.name}:{i.name}",
                            i.where.at("profile"))
        if i.classifier and i.classifier not in policy.classifier_map:
            yield undefined("QOS024", "classifier", i.classifier, policy.classifier_map,
                            f"interface {d.name}:{i.name}", i.where.at("classifier"))


def check_platforms(scratch: Scratch, d: Device) -> Iterator[Diagnostic]:
    known = device_platform_names()
    if d.platform not in known:
        yield undefined("QOS025", "platform", d.platform, known, f"device '{d.name}'", d.where.at("platform"))


def _case_clashes(what: str, named: Iterable[tuple[str, Location | None]], why: str,
                  scope: str = "") -> Iterator[Diagnostic]:
    """QOS026 for each name equal to an earlier one but for case (reported at the later one)."""
    first: dict[str, tuple[str, Location | None]] = {}
    for name, loc in named:
        key = name.casefold()
        if key not in first:
            first[key] = (name, loc)
            continue
        other, other_loc = first[key]
        if other == name:
            continue  # the same name twice is the loader's QOS005
        at = f" at {other_loc}" if other_loc is not None else ""
        yield error("QOS026", f"{what} '{name}'{scope} differs only by case from '{other}'{at}; {why}", loc,
                    f"rename one of them (names are compared case-insensitively): e.g. '{name}-2'")


def named(policy: Policy, section: str, items: Iterable[Any]) -> Iterator[tuple[str, Location | None]]:
    """(name, location of its key in `section`) for each entity, falling back to the entity's own location."""
    root = policy.where.nodes[-1] if policy.where.nodes else None
    table = root.get(section) if isinstance(root, dict) else None
    keys = getattr(table, "key_locs", {})
    for item in items:
        yield item.name, keys.get(item.name) or item.where.loc


FILES = "they would be written to the same file on a case-insensitive file system"


def check_case_collisions(policy: Policy) -> Iterator[Diagnostic]:
    """QOS026: names that differ only by case collide as file names (case-insensitive file systems: macOS,
    Windows) and as vendor object names (IOS class-maps and JUNOS names as operators read and type them)."""
    objects = "they would name the same configuration object on a device"
    yield from _case_clashes("host", named(policy, "hosts", policy.hosts), FILES)
    for what, section, items in (("service", "services", policy.services),
                                 ("drop profile", "drop-profiles", policy.drop_profiles),
                                 ("policer", "policers", policy.policers),
                                 ("classifier", "classifiers", policy.classifiers)):
        yield from _case_clashes(what, named(policy, section, items), objects)
    for c in policy.classifiers:
        rules = ((r.name, r.where.at("name")) for r in c.rules)
        yield from _case_clashes("rule", rules, objects, f" of classifier '{c.name}'")


def check_device_names(policy: Policy, network: Network) -> Iterator[Diagnostic]:
    """QOS026 for device names (see check_case_collisions), from the network's names and where their keys are."""
    yield from _case_clashes("device", network.names, FILES)


RULES = (check_services, check_drop_profiles, check_policers, check_case_collisions)
DEVICE_RULES = (check_interface_services, check_profiles_and_classifiers, check_platforms)
NETWORK_RULES = (check_device_names,)
