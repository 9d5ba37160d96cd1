"""Cisco IOS / IOS XE running-config text (MQC, ACLs, Catalyst 6500 `mls qos` and `wrr-queue`) into the
statement tree.

A running-config is a list of lines whose indentation is their hierarchy
(`class-map`, `policy-map` > `class` > `police`, `interface`, `ip
access-list`): one statement per line, children by deeper indentation,
origins file:line:column.  `!` lines are comments; `end` closes the
configuration; a `banner` (its text up to the closing delimiter, `^C` as
show running-config prints it) is one statement.  Every line is kept, owned
by qosc or not (hostname, routing, the `Building configuration...` and
prompt lines of a capture), as a plain statement.  The text is first checked
by qosc.configtext.prepare (size, byte-order mark, control and invisible
characters: QOS200, QOS179); a tab in the indentation or blocks nested deeper
than the readers' limit are refused at their line.  Source: Cisco IOS Configuration Fundamentals
Configuration Guide, "Using the Cisco IOS Command-Line Interface" (IOS XE 17);
Catalyst 6500 Release 12.2SX Software Configuration Guide, "Configuring PFC QoS".
"""

from __future__ import annotations

import re
from collections.abc import Callable

from qosc.configtext import LIMITS, prepare, too_deep
from qosc.diagnostics import Location, error
from qosc.errors import InputError
from qosc.targets.base import SelfCheckError
from qosc.targets.ios.grammar import GRAMMARS, ROOT
from qosc.tree import Document, Kind, Statement, Word, integer, kw


def _word(text: str) -> Word:
    return integer(int(text), text=text) if text.isdigit() else kw(text)


def _typer(platform: object) -> Callable[[str, list[str]], tuple[tuple[Word, ...], str]]:
    """How the words of a line in a mode are typed, and the mode of its sub-statements: by the grammar of the
    platform's dialect (the same as a compiled tree's), else as keywords and integers (no platform, or a line
    of no form of the dialect, e.g. `hostname`)."""
    grammar = GRAMMARS.get(getattr(platform, "name", ""))

    def typed(mode: str, texts: list[str]) -> tuple[tuple[Word, ...], str]:
        if grammar is None or not mode:
            return tuple(_word(t) for t in texts), ""
        return grammar.words(mode, texts), grammar.enters(mode, texts) or ""

    return typed


def parse(text: str, source: str, platform: object = None, fmt: str | None = None) -> Document:
    """The statement tree of a running-config; with an IOS platform, in its dialect, words typed by its grammar."""
    root: list[Statement] = []
    typed = _typer(platform)
    # stack of (indent, words, origin, children, mode of the children)
    stack: list[tuple[int, tuple[Word, ...], Location, list[Statement], str]] = []

    def close(to: int) -> None:
        while stack and stack[-1][0] >= to:
            _, words, origin, kids, _ = stack.pop()
            made = Statement(words, tuple(kids) if kids else None, origin=origin)
            (stack[-1][3] if stack else root).append(made)

    text = prepare(text, source)
    banner: str | None = None
    for number, line in enumerate(text.split("\n"), 1):
        body = line.rstrip()
        if banner is not None:  # the banner's text, up to the line that closes it
            banner = None if banner in body else banner
            continue
        stripped = body.lstrip(" ")
        if not stripped or stripped.startswith("!"):
            continue
        where = Location(source, number, len(body) - len(stripped) + 1)
        if "\t" in body[: len(body) - len(stripped) + 1]:
            raise InputError([error("QOS179", "IOS configuration syntax: a tab in the indentation", where)])
        if stripped == "end" and len(body) == len(stripped):
            break
        indent = len(body) - len(stripped)
        if stack and indent > stack[-1][0] + 8:
            raise InputError([error("QOS179", "IOS configuration syntax: indented deeper than any block", where)])
        if not stack and indent > 0 and not root:
            raise InputError([error("QOS179", "IOS configuration syntax: the first line is indented", where)])
        close(indent)
        if len(stack) >= LIMITS.max_depth:
            raise too_deep(where)
        texts = stripped.split()
        banner = _banner(texts)
        words, inner = typed(stack[-1][4] if stack else ROOT, texts)
        words = tuple(Word(Kind.TEXT, t, t) if '"' in t else w for t, w in zip(texts, words, strict=True))
        stack.append((indent, words, where, [], inner))
    close(0)
    dialect = getattr(platform, "name", "") if getattr(platform, "name", "") in GRAMMARS else "ios-cli"
    return Document(source.rsplit("/", 1)[-1].split(".")[0] or "config", dialect, tuple(root),
                    origin=Location(source, 1, 1))


def _banner(texts: list[str]) -> str | None:
    """The delimiter that closes a multi-line `banner TYPE <d>text<d>` started on this line, else None."""
    if texts[0] != "banner" or len(texts) < 3:
        return None
    mark = texts[2][:2] if texts[2].startswith("^") else texts[2][:1]
    rest = " ".join(texts[2:])[len(mark):]
    return None if mark in rest else mark


def sniff(text: str) -> str | None:
    owned = re.search(r"^(policy-map|class-map|mls qos)\b", text, re.MULTILINE)
    if owned and re.search(r"^interface \S", text, re.MULTILINE):
        return "cfg"
    return None


def check_text(config: str, dialect: str) -> None:
    """A configuration text (as a device shows it) against the dialect's grammar: SelfCheckError naming the
    first refused line (for tests and for text that did not come from a statement tree)."""
    bad = GRAMMARS[dialect].check(parse(config, "config"))
    if bad:
        where = bad[0].statement.origin
        raise SelfCheckError(f"line {getattr(where, 'line', '?')}: {bad[0]}")
