"""The grammar of each Cisco dialect (ios-gsr, ios-xe, catalyst6500), checked on the statement tree.

One grammar per dialect, compiled from that platform's command table
(qosc.targets.ios.table: the one description of the dialect, with a source
for every form and range).  `check(document)` walks the tree: every
statement must be a command of the mode it sits in (the children of a
statement are in the mode its command enters), within the ranges and counts
of its slots; every name a statement uses (`{ref:...}`) must be defined
once (`{def:...}`); no comment line may end in white space.  The pipeline
reports a refused statement as QOS199 at the policy line it came from.

`words(mode, texts)` types the words of a statement by the slots they fill
(the table's `kinds`): lowering (lower.py) builds its statements with it, so
the kinds of the words are the grammar's, never a second description.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from qosc.dscp import parse_dscp
from qosc.errors import QoscError
from qosc.grammar import Violation
from qosc.targets.ios.platform import platforms
from qosc.targets.ios.table import Command, Table, match, table_for
from qosc.tree import (
    Document,
    Statement,
    Word,
    address,
    dscp,
    integer,
    kw,
    name,
    percent,
    port,
    prefix,
    rate,
    size,
    text,
    walk,
)

ROOT = "global"
_IP = re.compile(r"[0-9A-Fa-f:.]*[:.][0-9A-Fa-f:.]*(/[0-9]+)?")


def _typed(word: str, kind: str, table: Table) -> Word:
    """One word of a slot of the given kind (a keyword where the slot's alternative is a literal)."""
    if kind == "name":
        return name(word)
    if kind == "text":
        return text(word)
    if kind == "dscp" and (word.isdigit() or ("DSCP" in table.tokens and table.tokens["DSCP"].fullmatch(word))):
        try:
            return dscp(int(word) if word.isdigit() else parse_dscp(word), word)
        except (QoscError, ValueError):
            return kw(word)
    if kind == "ip" and _IP.fullmatch(word) and any(c.isdigit() for c in word):
        return prefix(word) if "/" in word else address(word)
    if not word.isdigit():
        return kw(word)
    value = int(word)
    if kind == "rate":
        return rate(value, word)
    if kind == "rate-kbps":
        return rate(value * 1000, word)
    if kind == "size":
        return size(value, word)
    if kind == "percent":
        return percent(float(value), word)
    if kind == "port":
        return port(value, value, word)
    return integer(value, text=word)


def _words(command: Command, m: re.Match[str], texts: Sequence[str], table: Table) -> tuple[Word, ...]:
    spans = [(m.start(a.group), m.end(a.group), a.word_kind) for a in command.args if m[a.group] is not None]
    out, pos = [], 0
    for t in texts:
        kind = next((k for lo, hi, k in spans if lo <= pos < hi), "keyword")
        out.append(_typed(t, kind, table))
        pos += len(t) + 1
    return tuple(out)


class IosGrammar:
    """The grammar of one Cisco dialect (its platform's command table)."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect

    @property
    def table(self) -> Table:
        return table_for(self.dialect)

    def command(self, mode: str, line: str) -> tuple[Command, re.Match[str]] | tuple[Command | None, str]:
        return _match(self.dialect, mode, line)

    def words(self, mode: str, texts: Sequence[str]) -> tuple[Word, ...]:
        """The words of a statement of `mode`, typed by the slots of the command they form (keywords and
        integers where they form none: check() then refuses the statement)."""
        return _typed_words(self.dialect, mode, tuple(texts))

    def enters(self, mode: str, texts: Sequence[str]) -> str | None:
        command, m = self.command(mode, " ".join(texts))
        return command.enters if command is not None and not isinstance(m, str) else None

    def check(self, document: Document) -> list[Violation]:
        found: list[Violation] = []
        defined: dict[tuple[str, str], tuple[Statement, ...]] = {}
        used: list[tuple[str, str, tuple[Statement, ...], Command]] = []
        modes: dict[int, str] = {}
        for path in walk(document.statements):
            s = path[-1]
            mode = modes.get(id(path[-2]), "") if len(path) > 1 else ROOT
            found.extend(Violation(path, f"comment line {line!r} has trailing or tab white space")
                         for line in s.comment if line != line.rstrip() or "\t" in line)
            if not mode:  # under a refused or leaf statement: already reported
                continue
            command, m = self.command(mode, " ".join(s.texts()))
            if command is None or isinstance(m, str):
                found.append(Violation(path, f"not valid in {mode} mode: {m}", command.source if command else None))
                continue
            if s.children is not None:
                if command.enters is None:
                    found.append(Violation(path, f"{command.syntax!r} takes no sub-statements", command.source))
                    continue
                modes[id(s)] = command.enters
            for arg in command.args:
                if arg.role == "def" and arg.kind:
                    key = (arg.kind, m[arg.group])
                    if key in defined:
                        found.append(Violation(path, f"{arg.kind} {m[arg.group]} is defined twice", command.source))
                    defined.setdefault(key, path)
                elif arg.role == "ref" and arg.kind:
                    used.append((arg.kind, m[arg.group], path, command))
        builtins = self.table.builtins
        for kind, ref, path, command in used:
            if (kind, ref) not in defined and ref not in builtins.get(kind, frozenset()):
                found.append(Violation(path, f"{kind} {ref} is used but never defined", command.source))
        return found


@lru_cache(maxsize=65536)
def _match(dialect: str, mode: str, line: str) -> tuple[Command, re.Match[str]] | tuple[Command | None, str]:
    """A configuration repeats most of its statements: match each (dialect, mode, line) once."""
    return match(table_for(dialect).modes[mode], line)


@lru_cache(maxsize=65536)
def _typed_words(dialect: str, mode: str, texts: tuple[str, ...]) -> tuple[Word, ...]:
    """Words are immutable: a statement repeated across interfaces and devices is typed once."""
    command, m = _match(dialect, mode, " ".join(texts))
    if command is None or isinstance(m, str):
        return tuple(integer(int(t), text=t) if t.isdigit() else kw(t) for t in texts)
    return _words(command, m, texts, table_for(dialect))


GRAMMARS = {d: IosGrammar(d) for d in platforms()}
"""One grammar per dialect: each IOS platform is a dialect (its own command table)."""


__all__ = ["GRAMMARS", "ROOT", "IosGrammar"]
