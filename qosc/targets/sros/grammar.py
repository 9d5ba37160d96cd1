"""The grammar of the sros dialect: Nokia's SR OS YANG (nokia-conf) of two releases, plus what the YANG cannot say.

A document is accepted when the facts derived from nokia-conf of SR OS 26.3
(rel26) and 25.10 (rel25) both accept every statement (qosc.grammar.yang:
paths, keys, value types, a leaf set twice, two cases of one choice,
max-elements, mandatory leaves, leafrefs to policies the document defines,
`when` and `must` where they can be evaluated), and the rules of documented.py
(what the YANG leaves as a description) hold.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from qosc.grammar import Violation
from qosc.grammar.yang import Data, YangSchema
from qosc.targets.sros.documented import check as documented_check
from qosc.tree import Document

RELEASES = ("26.3", "25.10")
"""Newest first: the newest is the one the NETCONF XML is written from."""
SOURCE = "nokia/7x50_YangModels nokia-conf (derived by scripts/derive-sros-grammar)"


def _schema(release: str) -> YangSchema:
    folder = Path(str(resources.files(__package__).joinpath("yang")))
    return YangSchema(folder / f"sros-{release}.json", SOURCE)


YANG = tuple(_schema(r) for r in RELEASES)


class SrosGrammar:
    dialect = "sros"

    def __init__(self, yang: tuple[YangSchema, ...] = YANG) -> None:
        self.yang = yang

    def check(self, document: Document) -> list[Violation]:
        root, found = self.yang[0].checked(document)
        found += [v for g in self.yang[1:] for v in g.check(document)]
        return found + documented_check(root)

    def data(self, document: Document) -> Data:
        """The nokia-conf data tree of a document (newest release), for the XML serializer."""
        root, found = self.yang[0].walk(document)
        if found:
            raise ValueError(f"not nokia-conf: {found[0]}")
        return root


GRAMMAR = SrosGrammar()
