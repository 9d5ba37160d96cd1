"""The grammar of the junos dialect: Juniper's YANG of two releases, plus what the YANG cannot say.

A document is accepted when the YANG-derived grammars of Junos 23.4R1 (current)
and 17.4R1 (old) both accept every statement (yang_grammar.py: paths, keys,
keyword-less leaves, value types, a leaf set twice, two cases of one choice,
max-elements), every name it refers to is defined (references.py), and the
values the YANG leaves as plain strings are ones the box takes
(documented.py, each rule with its source).
"""

from __future__ import annotations

from qosc.grammar import Violation
from qosc.targets.junos.documented import check as documented_check
from qosc.targets.junos.must import Configuration
from qosc.targets.junos.references import dangling
from qosc.targets.junos.serialize import leaves
from qosc.targets.junos.yang_grammar import YangGrammar
from qosc.tree import Document

RELEASES = ("23.4R1", "17.4R1")
YANG = tuple(YangGrammar(r) for r in RELEASES)


class JunosGrammar:
    dialect = "junos"

    def __init__(self, yang: tuple[YangGrammar, ...] = YANG) -> None:
        self.yang = yang

    def check(self, document: Document) -> list[Violation]:
        config = Configuration()  # recorded by the first release's walk, read by every release's musts
        found = [v for g in self.yang for v in g.check(document, config=config)]
        commands = leaves(document)
        return found + dangling(commands) + documented_check(commands)


GRAMMAR = JunosGrammar()
