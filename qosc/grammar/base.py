"""What every grammar shares: the source of a rule, a violation, and the Grammar protocol."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from qosc.tree import Document, Statement


@dataclass(frozen=True)
class Source:
    """Where a grammar rule comes from: a document (or YANG module), its release and revision."""

    document: str
    release: str = ""
    module: str = ""
    revision: str = ""

    def __str__(self) -> str:
        parts = [self.document]
        if self.module:
            parts.append(f"module {self.module}" + (f"@{self.revision}" if self.revision else ""))
        if self.release:
            parts.append(f"release {self.release}")
        return ", ".join(parts)


@dataclass(frozen=True)
class Violation:
    """A statement the grammar refuses: the path from the root to it, why, and the rule's source."""

    path: tuple[Statement, ...]
    message: str
    source: Source | None = None

    @property
    def statement(self) -> Statement:
        return self.path[-1]

    def words(self) -> str:
        """The statement path as one line of words (the form of `set` commands)."""
        return " ".join(t for s in self.path for t in s.texts())

    def __str__(self) -> str:
        where = f" [{self.source}]" if self.source else ""
        return f"`{self.words()}`: {self.message}{where}"


class Grammar(Protocol):
    """A dialect's grammar: every violation of a document, in document order (empty when accepted)."""

    dialect: str

    def check(self, document: Document) -> list[Violation]: ...
