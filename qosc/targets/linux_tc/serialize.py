"""The tc batch serializer: one line per statement, its words separated by one space, nothing else.

`tc -batch` reads one command per line (without the leading `tc`) and has no
comments, so the document header and statement comments are not written;
the line's origin is the statement's (the source map of the .tc file).
"""

from __future__ import annotations

from qosc.tree import Document, Rendered, Writer


def batch(doc: Document) -> Rendered:
    out = Writer()
    for s in doc.statements:
        out.line(" ".join(s.texts()), s.origin)
    return out.done()
