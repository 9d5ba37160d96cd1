"""The result of lifting configurations into a policy (qosc import): the policy, what was found, and where each
part of the policy came from, so the policy's own diagnostics can be told at the configuration's lines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from qosc.diagnostics import Diagnostic, Location


@dataclass
class Lifted:
    policy: dict[str, Any]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    origins: dict[tuple[str, ...], Location] = field(default_factory=dict)
    """Where each service, drop profile, policer, classifier and interface of the policy came from in the
    configurations (its first class, rule or interface statement)."""

    def relocate(self, diagnostics: Sequence[Diagnostic], policy_text: str, policy_path: str) -> list[Diagnostic]:
        """The diagnostics of the written policy that have a configuration origin, again at that origin: a
        flaw of the configuration (shares above 100%, LBE above best effort) is reported at its own line."""
        spans = yaml_spans(policy_text)
        out = []
        for d in diagnostics:
            if d.location is None or d.location.file != policy_path:
                continue
            path = next((p for p, lo, hi in spans if lo <= d.location.line <= hi and p in self.origins), None)
            if path is not None:
                out.append(replace(d, location=self.origins[path],
                                   message=f"{d.message} (imported as {'.'.join(path)}, {d.location})"))
        return out


def yaml_spans(text: str) -> list[tuple[tuple[str, ...], int, int]]:
    """(key path, first line, last line) of every mapping entry of a YAML text, innermost first."""
    spans: list[tuple[tuple[str, ...], int, int]] = []

    def walk(node: yaml.Node, path: tuple[str, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = (*path, str(key.value))
                walk(value, sub)
                # a block collection ends where the next key starts: its last line is the one before
                last = value.end_mark.line + 1 if isinstance(value, yaml.ScalarNode) else value.end_mark.line
                spans.append((sub, key.start_mark.line + 1, max(key.start_mark.line + 1, last)))
    if (root := yaml.compose(text)) is not None:
        walk(root, ())
    return sorted(spans, key=lambda s: (s[2] - s[1], -len(s[0])))
