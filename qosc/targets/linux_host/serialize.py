"""Serializers of the linux-host dialects: sysctl.d (`key = value`) and POSIX shell commands.

Both write the document's header as `#` comment lines, then each statement,
preceded by a blank line and its comment lines when it has a comment.
"""

from __future__ import annotations

from qosc.tree import Document, Rendered, Statement, Writer


def _header(out: Writer, doc: Document) -> None:
    for line in doc.header:
        out.line(f"# {line}" if line else "#", doc.origin)


def _commented(out: Writer, s: Statement) -> None:
    if s.comment:
        out.line("", None)
        for line in s.comment:
            out.line(f"# {line}", s.origin)


def sysctl(doc: Document) -> Rendered:
    """A sysctl.d(5) file: `key = value`, a triple written as three space-separated numbers."""
    out = Writer()
    _header(out, doc)
    for s in doc.statements:
        _commented(out, s)
        key, *values = s.words
        out.line(f"{key.text} = {' '.join(str(v) for v in values)}", s.origin)
    return out.done()


def shell(doc: Document) -> Rendered:
    """A /bin/sh script: the interpreter line, the header, one command per statement."""
    out = Writer()
    out.line("#!/bin/sh", doc.origin)
    _header(out, doc)
    for s in doc.statements:
        _commented(out, s)
        out.line(" ".join(s.texts()), s.origin)
    return out.done()
