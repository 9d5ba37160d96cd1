"""Test helpers: a JUNOS configuration text as the set of its statements (word tuples), read independently.

The curly form is read by the push layer's parser (push/text.py), the set
form line by line, so the tests compare what the two files say without using
the serializers that wrote them.
"""

from __future__ import annotations

from qosc.targets.junos.push.text import Stmt, parse
from qosc.targets.junos.serialize import ORDERED

Statement = tuple[str, ...]


def parse_conf(text: str) -> set[Statement]:
    found: set[Statement] = set()

    def visit(items: list[Stmt], prefix: tuple[str, ...]) -> None:
        for st in items:
            words = st.words
            if st.children is not None:
                visit(st.children, prefix + tuple(w if isinstance(w, str) else " ".join(w) for w in words))
                continue
            head, last = words[:-1], words[-1]
            lead = prefix + tuple(w if isinstance(w, str) else " ".join(w) for w in head)
            if isinstance(last, list) and st.keyword not in ORDERED:
                found.update((*lead, v) for v in last)
            elif isinstance(last, list):
                found.add((*lead, "[", *last, "]"))
            else:
                found.add((*lead, last))

    visit(parse(text), ())
    return found


def parse_set(text: str) -> set[Statement]:
    found: set[Statement] = set()
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        words = line.split()
        assert words[0] == "set", line
        found.add(tuple(words[1:]))
    return found
