"""The grammar of the junos dialect: Juniper's YANG of two releases, plus what the YANG cannot say.

A document is accepted when the YANG-derived grammars of Junos 23.4R1 (current)
and 17.4R1 (old) both accept every statement (yang_grammar.py: paths, keys,
keyword-less leaves, value types, a leaf set twice, two cases of one choice,
max-elements), every name it refers to is defined (references.py), and the
values the YANG leaves as plain strings are ones the box takes
(documented.py, each rule with its source), the scheduler priorities among them per platform (a platform's
strict_priorities: low-latency on junos-acx alone, JunosGrammar.for_platform).
"""

from __future__ import annotations

from qosc.grammar import Violation
from qosc.targets.junos.documented import PRIORITIES
from qosc.targets.junos.documented import check as documented_check
from qosc.targets.junos.must import Configuration
from qosc.targets.junos.platform import JunosPlatform
from qosc.targets.junos.references import dangling
from qosc.targets.junos.serialize import leaves
from qosc.targets.junos.yang_grammar import YangGrammar
from qosc.tree import Document

RELEASES = ("23.4R1", "17.4R1")
YANG = tuple(YangGrammar(r) for r in RELEASES)


class JunosGrammar:
    dialect = "junos"

    def __init__(self, yang: tuple[YangGrammar, ...] = YANG, priorities: tuple[str, ...] = PRIORITIES) -> None:
        self.yang = yang
        self.priorities = priorities
        """The scheduler priorities accepted: the documented ones and the platform's strict ones."""

    @classmethod
    def for_platform(cls, platform: JunosPlatform) -> JunosGrammar:
        """The grammar of one platform: a scheduler priority it has besides every platform's (low-latency on
        junos-acx) is accepted there only."""
        extra = tuple(p for p in platform.strict_priorities if p not in PRIORITIES)
        return _PLATFORM.setdefault(extra, cls(priorities=PRIORITIES + extra))

    def check(self, document: Document) -> list[Violation]:
        config = Configuration()  # recorded by the first release's walk, read by every release's musts
        found = [v for g in self.yang for v in g.check(document, config=config)]
        commands = leaves(document)
        return found + dangling(commands) + documented_check(commands, self.priorities)


GRAMMAR = JunosGrammar()
_PLATFORM: dict[tuple[str, ...], JunosGrammar] = {(): GRAMMAR}
