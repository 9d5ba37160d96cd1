"""Semantic checks: small rules with stable codes, all run, every finding collected.

A rule is a function `policy -> iterable of Diagnostic`.  Adding a rule means
adding a function to one module's RULES tuple; nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from qosc.checks import (
    capacity,
    dropprofiles,
    dscp_rules,
    hosts,
    lbe,
    marking,
    platform,
    policers,
    references,
    roles,
    sls,
)
from qosc.diagnostics import Diagnostic
from qosc.model import Policy

Check = Callable[[Policy], Iterable[Diagnostic]]

RULES: tuple[Check, ...] = (
    *references.RULES,
    *dscp_rules.RULES,
    *marking.RULES,
    *capacity.RULES,
    *lbe.RULES,
    *policers.RULES,
    *dropprofiles.RULES,
    *roles.RULES,
    *platform.RULES,
    *sls.RULES,
    *hosts.RULES,
)


def run_checks(policy: Policy) -> list[Diagnostic]:
    """Every diagnostic of every rule, deduplicated and in file order."""
    found: list[Diagnostic] = []
    for rule in RULES:
        found.extend(rule(policy))
    return sorted(set(found), key=Diagnostic.sort_key)
