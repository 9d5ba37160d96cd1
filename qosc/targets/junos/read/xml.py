"""JUNOS configuration XML (a NETCONF `<get-config>` reply, `show configuration | display xml`, or the
`<configuration>` element alone) into the statement tree the text reader builds.

Elements are turned into JUNOS statements by the same walk of the YANG-derived
grammar that writes qosc's NETCONF XML (push/xml.py `to_stmts`, leniently:
elements outside the subset qosc writes are kept, spelled from the XML), so
XML, curly and set text of one configuration give the same paths.  Each
statement's origin is the element's line in the XML.  The XML is parsed
without entities, DTDs or network access (lxml, the `push` extra); a reply
without `<configuration>` or `<data>` is a located QOS179.
"""

from __future__ import annotations

from qosc.diagnostics import Location, error
from qosc.errors import InputError
from qosc.targets.junos.read.facts import word as typed
from qosc.tree import Statement, Word, group


def _fail(message: str, where: Location, hint: str | None = None) -> InputError:
    return InputError([error("QOS179", f"JUNOS configuration XML: {message}", where, hint)])


def parse_xml(text: str, source: str) -> tuple[Statement, ...]:
    try:
        from lxml import etree

        from qosc.targets.junos.push.text import Stmt
        from qosc.targets.junos.push.xml import GRAMMAR, ConversionError, to_stmts
    except ImportError as exc:  # lxml comes with the push extra
        raise _fail(f"reading XML needs lxml ({exc})", Location(source, 1, 1),
                    "pip install 'qosc[push]', or read the configuration as text") from None
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                             remove_comments=True, remove_pis=True)
    try:
        root = etree.fromstring(text.encode("utf-8"), parser)
    except etree.XMLSyntaxError as exc:
        line, col = exc.position or (1, 1)
        raise _fail(str(exc.msg or exc), Location(source, max(line, 1), max(col, 1))) from None
    conf = root if etree.QName(root).localname in ("configuration", "data") else next(
        (e for e in root.iter() if isinstance(e.tag, str) and etree.QName(e).localname in ("configuration", "data")),
        None)
    if conf is None:
        raise _fail(f"no <configuration> or <data> in <{etree.QName(root).localname}>",
                    Location(source, root.sourceline or 1, 1))
    if etree.QName(conf).localname == "data":  # RFC 6241 reply: the configuration's top elements under <data>
        inner = next((e for e in conf if isinstance(e.tag, str) and etree.QName(e).localname == "configuration"),
                     None)
        conf = inner if inner is not None else conf
    lines = text.splitlines()
    try:
        stmts = to_stmts(conf, GRAMMAR.root, lenient=True)
    except ConversionError as exc:  # only reachable for a schema node of an unexpected shape
        raise _fail(str(exc), Location(source, conf.sourceline or 1, 1)) from None

    def where(line: int | None, name: str) -> Location:
        if not line:
            return Location(source, conf.sourceline or 1, 1)
        body = lines[line - 1] if line <= len(lines) else ""
        col = body.find(f"<{name}")
        return Location(source, line, col + 1 if col >= 0 else 1)

    def word(w: str | list[str]) -> Word:
        return group(typed(x) for x in w) if isinstance(w, list) else typed(w)

    def convert(items: list[Stmt]) -> tuple[Statement, ...]:
        return tuple(Statement(tuple(word(w) for w in st.words),
                               convert(st.children) if st.children is not None else None,
                               origin=where(st.line, st.keyword)) for st in items)

    return convert(stmts)
