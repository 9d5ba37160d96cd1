"""The grammar of the junos dialect: file-level rules checked on the statement tree."""

from __future__ import annotations

from qosc.grammar import Violation
from qosc.targets.junos.references import check as dangling_references
from qosc.tree import Document


class JunosGrammar:
    dialect = "junos"

    def check(self, document: Document) -> list[Violation]:
        return dangling_references(document)


GRAMMAR = JunosGrammar()
