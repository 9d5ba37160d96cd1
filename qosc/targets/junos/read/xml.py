"""JUNOS configuration XML (a NETCONF `<get-config>` reply, `show configuration | display xml`, or the
`<configuration>` element alone) into the statement tree the text reader builds.

Elements are turned into JUNOS statements by the same walk of the YANG-derived
grammar that writes qosc's NETCONF XML (push/xml.py `to_stmts`, leniently:
elements outside the subset qosc writes are kept, spelled from the XML), so
XML, curly and set text of one configuration give the same paths.  Each
statement's origin is the element's line in the XML.  Text with spaces (an
interface description, a login message) is a text word, an empty element
(`<description/>`, `<scheduler-map/>`) an empty one.  The XML is parsed
without entities, DTDs or network access (lxml, the `push` extra), no deeper
than the readers' limit (QOS200).  A reply that carries the configuration as
text (`<get-configuration format="text">`: `<configuration-text>`, or the
`show configuration` RPC's `<configuration-information><configuration-output>`;
`format="set"`: `<configuration-set>`) is read as that text, at the lines of
the XML.  A reply with none of these is a located QOS179.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from qosc.configtext import LIMITS, refused, too_deep, unsafe_at
from qosc.diagnostics import Location, error
from qosc.errors import InputError, UnsafeValue
from qosc.targets.junos.read.facts import word as typed
from qosc.tree import Kind, Statement, Word, group

_WHITE = re.compile(r"\s")
TextParser = Callable[[str, str], tuple[Statement, ...]]
_TEXT_FORMS = {"configuration-text": "conf", "configuration-output": "conf", "configuration-set": "set"}


def _fail(message: str, where: Location, hint: str | None = None) -> InputError:
    return InputError([error("QOS179", f"JUNOS configuration XML: {message}", where, hint)])


def _depth(root: object, source: str) -> None:
    """QOS200 at the first element nested deeper than the readers' limit (a walk with a stack: linear)."""
    stack = [(root, 1)]
    while stack:
        el, depth = stack.pop()
        if depth > LIMITS.max_depth:
            raise too_deep(Location(source, getattr(el, "sourceline", None) or 1, 1))
        stack.extend((child, depth + 1) for child in el)  # type: ignore[attr-defined]


def _as_text(el: object, source: str, parser: TextParser) -> tuple[Statement, ...]:
    """The configuration a reply carries as text, its lines numbered as the XML's."""
    body = getattr(el, "text", None) or ""
    line = getattr(el, "sourceline", None) or 1
    at = unsafe_at(body)
    if at is not None:  # a character reference (&#x202E;) the text itself did not show
        raise refused(body[at], Location(source, line + body.count("\n", 0, at), 1))
    return parser("\n" * (line - 1) + body, source)


def parse_xml(text: str, source: str, curly: TextParser, sets: TextParser) -> tuple[Statement, ...]:
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
    _depth(root, source)

    def local(e: object) -> str:
        return etree.QName(e).localname if isinstance(getattr(e, "tag", None), str) else ""

    wanted = ("configuration", "data", *_TEXT_FORMS)
    conf = root if local(root) in wanted else next((e for e in root.iter() if local(e) in wanted), None)
    if conf is None:
        raise _fail(f"no <configuration>, <data> or configuration text in <{local(root)}>",
                    Location(source, root.sourceline or 1, 1),
                    "give the reply of <get-config> or <get-configuration>, or `show configuration | display xml`")
    if local(conf) in _TEXT_FORMS:
        return _as_text(conf, source, sets if _TEXT_FORMS[local(conf)] == "set" else curly)
    if local(conf) == "data":  # RFC 6241 reply: the configuration's top elements under <data>
        inner = next((e for e in conf if local(e) == "configuration"), None)
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

    def one(value: str, at: Location) -> Word:
        text = value.strip().replace("\n", "\\n").replace("\t", "\\t")  # as the CLI shows it: `message "a\nb"`
        try:
            if not text:
                return Word(Kind.TEXT, '""', "")
            return Word(Kind.TEXT, text, text) if _WHITE.search(text) else typed(text)
        except UnsafeValue:
            bad = unsafe_at(text)
            raise refused(text[bad] if bad is not None else text[0], at) from None

    def word(w: str | list[str], at: Location) -> Word:
        return group(one(x, at) for x in w) if isinstance(w, list) else one(w, at)

    def convert(items: list[Stmt]) -> tuple[Statement, ...]:
        out = []
        for st in items:
            at = where(st.line, st.keyword)
            out.append(Statement(tuple(word(w, at) for w in st.words),
                                 convert(st.children) if st.children is not None else None, origin=at))
        return tuple(out)

    return convert(stmts)
