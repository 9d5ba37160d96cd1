"""QOS020-QOS025: every name a policy uses must be defined (and we say what is)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator

from qosc.diagnostics import Diagnostic, Location, error
from qosc.model import Policy
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
    for d in policy.devices:
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


def check_profiles_and_classifiers(policy: Policy) -> Iterator[Diagnostic]:
    for d in policy.devices:
        for i in d.interfaces:
            if i.profile and i.profile not in policy.profiles:
                yield undefined("QOS023", "profile", i.profile, policy.profiles, f"interface {d.name}:{i.name}",
                                i.where.at("profile"))
            if i.classifier and i.classifier not in policy.classifier_map:
                yield undefined("QOS024", "classifier", i.classifier, policy.classifier_map,
                                f"interface {d.name}:{i.name}", i.where.at("classifier"))


def check_platforms(policy: Policy) -> Iterator[Diagnostic]:
    known = device_platform_names()
    for d in policy.devices:
        if d.platform not in known:
            yield undefined("QOS025", "platform", d.platform, known, f"device '{d.name}'", d.where.at("platform"))


RULES = (check_services, check_drop_profiles, check_policers, check_profiles_and_classifiers, check_platforms)
