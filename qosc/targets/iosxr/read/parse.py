"""IOS XR running-config text into the statement tree.

`show running-config` (and qosc's .cfg) indents each level by one space: a
line's children are the following lines indented deeper.  `!` lines are
comments or block ends, ` end-class-map` / ` end-policy-map` close their
block, `end` the configuration; a `Building configuration...` or timestamp
banner before the first statement is skipped.  Every other line is kept
(owned by qosc or not) with its origin file:line:column.  Source: IOS XR
System Management Configuration Guide, 'Configuration Management'
(running-config format), Release 7.x.
"""

from __future__ import annotations

import re

from qosc.diagnostics import Location, error
from qosc.errors import InputError
from qosc.tree import Document, Statement, Word, integer, kw

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SKIP = ("end-class-map", "end-policy-map", "end", "Building configuration...")
_BANNER = re.compile(r"^(!! .*|(Mon|Tue|Wed|Thu|Fri|Sat|Sun) .*|Building configuration.*)$")


def _word(text: str) -> Word:
    return integer(int(text), text=text) if text.isdigit() else kw(text)


def sniff(text: str) -> str | None:
    """'cfg' for IOS XR MQC text: end-policy-map / end-class-map are XR's alone."""
    return "cfg" if re.search(r"^ end-(policy|class)-map$", text, re.MULTILINE) else None


def parse(text: str, source: str, platform: object = None, fmt: str | None = None) -> Document:
    root: list[Statement] = []
    stack: list[tuple[int, tuple[Word, ...], Location, list[Statement]]] = []

    def close(depth: int) -> None:
        while stack and stack[-1][0] >= depth:
            _, words, where, children = stack.pop()
            made = Statement(words, tuple(children) if children else None, (), where)
            (stack[-1][3] if stack else root).append(made)

    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith("!") or stripped in _SKIP or (not root and not stack and
                                                                             _BANNER.match(stripped)):
            continue
        if _CONTROL.search(line) or "\t" in line:
            raise InputError([error("QOS247", "control character in an IOS XR configuration line",
                                    Location(source, n, 1), "read a configuration as the router shows it")])
        depth = len(line) - len(line.lstrip(" "))
        close(depth)
        words = tuple(_word(t) for t in stripped.split())
        stack.append((depth, words, Location(source, n, depth + 1), []))
    close(0)
    return Document(source, "iosxr", tuple(root), (), Location(source, 1, 1))
