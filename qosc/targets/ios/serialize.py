"""The IOS CLI serializer: a Cisco statement tree as `show running-config` lays it out, with its source map.

Mechanical, the same for every Cisco dialect: the document's header as `!`
lines, then `!`; each top-level statement on its own line, a block's
children one space deeper than the block; a block's comment lines (the
notes a reviewer reads, e.g. why a queue has the size it has) are `!` lines
first inside the block, a leaf's just before it; `!` after every top-level
block and after a run of top-level leaves; `end` last.  Every line names the
policy origin of its statement (a comment line its statement's; `!`
separators and `end` none).
"""

from __future__ import annotations

from qosc.tree import Document, Rendered, Statement, Writer, origin_of


def cli(doc: Document) -> Rendered:
    out = Writer()
    for note in doc.header:
        out.line(f"! {note}", doc.origin)
    out.line("!")

    def emit(s: Statement, depth: int, path: tuple[Statement, ...]) -> None:
        here = (*path, s)
        origin = origin_of(here)
        pad = " " * depth
        if s.children is None:
            for note in s.comment:
                out.line(f"{pad}! {note}", origin)
            out.line(pad + " ".join(s.texts()), origin)
            return
        out.line(pad + " ".join(s.texts()), origin)
        for note in s.comment:
            out.line(f"{pad} ! {note}", origin)
        for child in s.children:
            emit(child, depth + 1, here)

    leaves = False
    for s in doc.statements:
        if s.children is None:
            emit(s, 0, ())
            leaves = True
            continue
        if leaves:
            out.line("!")
            leaves = False
        emit(s, 0, ())
        out.line("!")
    if leaves:
        out.line("!")
    out.line("end")
    return out.done()

