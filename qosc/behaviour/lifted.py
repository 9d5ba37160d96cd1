"""The result of lifting configurations into a policy (qosc import): the policy, what was found, where each part
of the policy came from, so the policy's own diagnostics can be told at the configuration's lines, and which
elements read back it holds, so the reconciliation (qosc.behaviour.reconcile) can tell what was lifted."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from qosc.behaviour.liftable import Element
from qosc.diagnostics import Diagnostic, Location


@dataclass
class Lifted:
    policy: dict[str, Any]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    origins: dict[tuple[str, ...], Location] = field(default_factory=dict)
    """Where each service, drop profile, policer, classifier and interface of the policy came from in the
    configurations (its first class, rule or interface statement)."""
    elements: set[Element] = field(default_factory=set)
    """The interfaces, classes and rules read back that the policy holds (qosc.behaviour.liftable.element)."""
    carriers: dict[str, set[Element]] = field(default_factory=dict)
    """Service name -> the classes it was lifted from."""
    rule_elements: dict[tuple[str, str], set[Element]] = field(default_factory=dict)
    """(classifier, rule name in the policy) -> the rules read back it was lifted from."""
    interfaces: dict[tuple[str, str], Element] = field(default_factory=dict)
    """(device, interface name in the policy) -> the interface read back it was lifted from (units of one port
    are named port.unit in the policy)."""


def yaml_spans(text: str) -> list[tuple[tuple[str, ...], int, int]]:
    """(key path, first line, last line) of every mapping entry and list item of a YAML text, innermost first."""
    spans: list[tuple[tuple[str, ...], int, int]] = []

    def walk(node: yaml.Node, path: tuple[str, ...]) -> None:
        items = node.value if isinstance(node, yaml.MappingNode) else list(enumerate(node.value)) \
            if isinstance(node, yaml.SequenceNode) else []
        for key, value in items:
            sub = (*path, str(key.value if isinstance(key, yaml.Node) else key))
            walk(value, sub)
            start = key.start_mark.line + 1 if isinstance(key, yaml.Node) else value.start_mark.line + 1
            # a block collection ends where the next key starts: its last line is the one before
            last = value.end_mark.line + 1 if isinstance(value, yaml.ScalarNode) else value.end_mark.line
            spans.append((sub, start, max(start, last)))
    if (root := yaml.compose(text)) is not None:
        walk(root, ())
    return sorted(spans, key=lambda s: (s[2] - s[1], -len(s[0])))
