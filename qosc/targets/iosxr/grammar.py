"""The grammar of the iosxr dialect: IOS XR CLI forms (forms.py) on Cisco's unified YANG of two releases.

A document is accepted when, for IOS XR 26.2.1 and 24.4.2 alike, every
statement is a form of its mode whose values the release's YANG types accept
(qosc.grammar.cliyang), the data tree they stand for keeps the YANG's
whole-tree rules (`must "value and unit"`, a class with an action, ...), and
the names it uses are defined: a policy-map's `class` names a class-map of
the configuration or class-default, `service-policy` a policy-map (the
command references' rule; the YANG types them as plain strings).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from qosc.grammar import Violation
from qosc.grammar.cliyang import CliYang
from qosc.grammar.yang import Data, YangSchema
from qosc.targets.iosxr.forms import CMD, MODES, ROOT
from qosc.tree import Document

RELEASES = ("26.2.1", "24.4.2")
"""Newest first: the newest is the one the YANG XML is written from."""
SOURCE = "YangModels/yang vendor/cisco/xr unified models (derived by scripts/derive-iosxr-grammar)"


def _schema(release: str) -> YangSchema:
    folder = Path(str(resources.files(__package__).joinpath("yang")))
    return YangSchema(folder / f"iosxr-{release}.json", SOURCE)


YANG = tuple(CliYang(_schema(r), MODES, ROOT, CMD) for r in RELEASES)


def _names(root: Data, *path: str) -> set[str]:
    nodes = [root]
    for part in path:
        nodes = [c for n in nodes for c in n.get(part)]
    return {n.keys[0] for n in nodes if n.keys}


def references(root: Data, yang: CliYang) -> list[Violation]:
    """Every class a policy-map schedules is a class-map of the configuration (or class-default); every policy a
    class or interface applies is a policy-map of the configuration."""
    class_maps = _names(root, "class-map", "type", "qos") | {"class-default"}
    policies = _names(root, "policy-map", "type", "qos")
    found = []
    for data in root.walk():
        if data.schema.path == "policy-map/type/qos/class" and data.keys[0] not in class_maps:
            found.append(Violation(data.origin, f"class {data.keys[0]} names no class-map of this configuration",
                                   yang.source))
        name = None
        if data.schema.path == "policy-map/type/qos/class/service-policy/name":
            name = data.value
        elif data.schema.path in ("interfaces/interface/service-policy/input",
                                  "interfaces/interface/service-policy/output"):
            name = data.keys[0]
        if name is not None and name not in policies:
            found.append(Violation(data.origin, f"service-policy {name} names no policy-map of this configuration",
                                   yang.source))
    return found


class IosxrGrammar:
    dialect = "iosxr"

    def __init__(self, yang: tuple[CliYang, ...] = YANG) -> None:
        self.yang = yang

    def check(self, document: Document) -> list[Violation]:
        root, found = self.yang[0].checked(document)
        found += [v for g in self.yang[1:] for v in g.check(document)]
        return found + references(root, self.yang[0])

    def data(self, document: Document) -> Data:
        """The unified-model data tree of a document (newest release), for the XML serializer."""
        root, found = self.yang[0].walk(document)
        if found:
            raise ValueError(f"not the IOS XR unified model: {found[0]}")
        return root


GRAMMAR = IosxrGrammar()
