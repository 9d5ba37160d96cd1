"""Serializers of the junos dialect: curly-brace text and set commands, both one walk of the same tree.

Curly (`<device>.conf`, for `load merge`): JUNOS's own layout, four spaces
per level, `words;` for a leaf and `words {` ... `}` for a block, several
values of one slot as `[ a b ]`.  Set (`<device>.set`, for `load set`): one
`set` line per leaf, the path of its ancestors before it; a leaf-list of
unordered values (code points, match values) is one line per value, as JUNOS
shows it (`show configuration | display set`), while an ordered list
(`interpolate fill-level [ ... ]`) stays one bracketed value.  Both start with
the document's header as `#` comments.  The NETCONF XML of the same tree
(`netconf_xml`) is built by the walk of the YANG-derived grammar (push/xml.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from qosc.tree import Document, Kind, Rendered, Statement, Word, Writer, origin_of

ORDERED = frozenset({"fill-level", "drop-probability"})
"""Leaf-lists whose order means something (interpolate's points): never split into one value per line."""


def word(w: Word) -> str:
    if w.kind is Kind.GROUP:
        return "[ " + " ".join(x.text for x in w.words) + " ]"
    if w.kind is Kind.TEXT:
        return '"' + w.text.replace("\\", "/").replace('"', "'") + '"'
    return w.text


def words(s: Statement) -> str:
    return " ".join(word(w) for w in s.words)


def _header(out: Writer, doc: Document) -> None:
    for line in doc.header:
        out.line(f"# {line}", doc.origin)


def curly(doc: Document) -> Rendered:
    out = Writer()
    _header(out, doc)

    def emit(items: Iterable[Statement], depth: int, path: tuple[Statement, ...]) -> None:
        pad = "    " * depth
        for s in items:
            here = (*path, s)
            origin = origin_of(here)
            if s.children is None:
                out.line(f"{pad}{words(s)};", origin)
            else:
                out.line(f"{pad}{words(s)} {{", origin)
                emit(s.children, depth + 1, here)
                out.line(f"{pad}}}", None)

    emit(doc.statements, 0, ())
    return out.done()


def leaves(doc: Document) -> list[tuple[tuple[Statement, ...], tuple[str, ...]]]:
    """Every set command of a document as (statement path, words), in the order `set` writes them."""
    found: list[tuple[tuple[Statement, ...], tuple[str, ...]]] = []

    def visit(items: Iterable[Statement], path: tuple[Statement, ...], prefix: tuple[str, ...]) -> None:
        for s in items:
            here = (*path, s)
            if s.children is not None:
                visit(s.children, here, prefix + tuple(word(w) for w in s.words))
                continue
            *head, last = s.words
            lead = prefix + tuple(word(w) for w in head)
            if last.kind is Kind.GROUP and s.keyword not in ORDERED:
                found.extend((here, (*lead, v.text)) for v in last.words)
            else:
                found.append((here, (*lead, word(last))))

    visit(doc.statements, (), ())
    return found


def netconf_xml(doc: Document) -> str:
    """The NETCONF XML of a document (what the RFC 6241 push path sends), from the same tree."""
    from lxml import etree

    from qosc.targets.junos.push.xml import document_xml  # lxml is the push extra: only when asked
    return etree.tostring(document_xml(doc), pretty_print=True, encoding="unicode")


def set_commands(doc: Document) -> Rendered:
    out = Writer()
    _header(out, doc)
    for path, line in leaves(doc):
        out.line("set " + " ".join(line), origin_of(path))
    return out.done()
