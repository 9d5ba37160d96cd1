"""SR OS configuration (MD-CLI tree, MD-CLI flat lines, nokia-conf XML) into one statement tree.

All three become the same statements: one per leaf line, its full path from
/configure (`qos network-queue "nq" queue 1 rate cir 5`), the words typed
from the YANG facts of the newest release (names and descriptions as text,
numbers as integers or decimals, port and SAP identifiers as identifiers,
enumerations as keywords), each with the file:line:column it was read from.
So the tree form, the flat form and the XML of one configuration read back
to the same statements, and what qosc writes reads back as what it lowered.

Tree form: `configure { ... }` or the `info` of /configure, `#` comments,
double-quoted strings with `\\` escapes, `[a b]` for several values of a
leaf-list.  Flat form: `/configure ...` lines (or lines relative to /configure,
as `info flat` prints them).  XML: a `<configure>` element (alone, inside a
NETCONF `<data>` or `<config>`), list keys as the entry's key elements; read
with lxml without entities, DTDs or network (the push extra).  Statements
outside the facts qosc holds are kept, typed as keywords.  Text that is none
of these is QOS237 at the place it stops making sense.
"""

from __future__ import annotations

import re

from qosc.diagnostics import Location, error
from qosc.errors import InputError
from qosc.grammar.types import DecimalRange, Enum, IntRange, Union, ValueType
from qosc.grammar.yang import SchemaNode
from qosc.targets.sros.grammar import YANG
from qosc.tree import Document, Kind, Statement, Word, decimal, group, integer, kw, name, text

_TOKEN = re.compile(r'#[^\n]*|"(?:[^"\\\n]|\\.)*"|[{}\[\]\n]|[^\s{}\[\]"#]+')
IDENTIFIERS = frozenset({"port-id", "sap-id", "port"})
"""Leaves whose value MD-CLI shows bare although nokia-conf types it as a string (port and SAP identifiers)."""


def fail(message: str, where: Location) -> InputError:
    return InputError([error("QOS237", f"SR OS configuration: {message}", where)])


def _lines(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _at(starts: list[int], source: str, offset: int) -> Location:
    import bisect
    line = bisect.bisect_right(starts, offset) - 1
    return Location(source, line + 1, offset - starts[line] + 1)


def _unquote(tok: str) -> str:
    return re.sub(r"\\(.)", r"\1", tok[1:-1]) if tok.startswith('"') else tok


def typed(node: SchemaNode | None, value: str) -> Word:
    """A key or leaf value as the facts type it."""
    if node is None or node.type is None:
        return kw(value) if value and not any(c.isspace() for c in value) else text(value or '""')
    if node.name == "description":
        return text(value)
    if node.name in IDENTIFIERS:
        return Word(Kind.ADDRESS, value, value)
    return _by_type(node.type, value)


def _by_type(t: ValueType, value: str) -> Word:
    if isinstance(t, Union):
        fitting = next((m for m in t.types if m.refuse(value) is None), t.types[0])
        return _by_type(fitting, value)
    if isinstance(t, IntRange) and re.fullmatch(r"-?\d+", value):
        return integer(int(value), text=value)
    if isinstance(t, DecimalRange) and re.fullmatch(r"-?\d+(\.\d+)?", value):
        return decimal(float(value), value)
    if isinstance(t, Enum | IntRange | DecimalRange):
        return kw(value)
    return name(value) if value and not any(c.isspace() for c in value) else text(value)


def type_line(texts: list[str], where: Location) -> Statement:
    """One leaf line of raw texts as typed words, walking the facts (unknown parts are kept as keywords)."""
    here: SchemaNode | None = YANG[0].root
    words: list[Word] = []
    i = 0
    while i < len(texts):
        node = here.children.get(texts[i]) if here is not None else None
        words.append(kw(texts[i]))
        i += 1
        if node is None:
            here = None
            continue
        if node.kind in ("container", "list"):
            for n, key in enumerate(node.keys):
                if n and i < len(texts) and texts[i] == key:
                    words.append(kw(texts[i]))
                    i += 1
                if i < len(texts):
                    words.append(typed(node.children.get(key), texts[i]))
                    i += 1
            here = node
        elif node.kind in ("leaf", "leaf-list") and i < len(texts):
            values = texts[i:]
            if node.kind == "leaf-list" and len(values) > 1:
                words.append(group(typed(node, v) for v in values))
            else:
                words.append(typed(node, texts[i]))
            i = len(texts) if node.kind == "leaf-list" else i + 1
    return Statement(tuple(words), origin=where)


def parse_tree(text_: str, source: str) -> tuple[Statement, ...]:
    starts = _lines(text_)
    out: list[Statement] = []
    stack: list[tuple[list[str], int, Location | None]] = []
    """Open blocks: their words, how many lines were out when they opened, where they started."""
    words: list[str] = []
    listing: list[str] | None = None
    start: Location | None = None
    for m in _TOKEN.finditer(text_):
        tok = m.group()
        where = _at(starts, source, m.start())
        if tok.startswith("#"):
            continue
        if listing is not None:
            if tok == "]":
                words.extend(listing)
                listing = None
            elif tok in "{}[":
                raise fail(f"unexpected {tok!r} inside [ ]", where)
            elif tok != "\n":
                listing.append(_unquote(tok))
            continue
        if tok == "[":
            listing = []
        elif tok == "{":
            if not words:
                raise fail("a block without a name", where)
            stack.append((words, len(out), start))
            words, start = [], None
        elif tok == "}":
            if words:
                out.append(_emit(stack, words, start))
                words, start = [], None
            if not stack:
                raise fail("'}' without its '{'", where)
            block, before, opened = stack.pop()
            if len(out) == before and _path([*(w for w, _, _ in stack), block]):
                out.append(_emit(stack, block, opened))  # an empty block is a line of its own
        elif tok == "\n":
            if words:
                out.append(_emit(stack, words, start))
                words, start = [], None
        else:
            start = start or where
            words.append(_unquote(tok))
    if stack or listing is not None:
        raise fail("the configuration ends inside a block", _at(starts, source, len(text_)))
    if words:
        out.append(_emit(stack, words, start))
    return tuple(out)


def _path(levels: list[list[str]]) -> list[str]:
    flat = [w for level in levels for w in level]
    return flat[1:] if flat[:1] == ["configure"] else flat


def _emit(stack: list[tuple[list[str], int, Location | None]], words: list[str], where: Location | None
          ) -> Statement:
    return type_line(_path([w for w, _, _ in stack]) + words, where or Location("", 1, 1))


def parse_flat(text_: str, source: str) -> tuple[Statement, ...]:
    out = []
    for number, line in enumerate(text_.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        toks = [m.group() for m in _TOKEN.finditer(stripped) if m.group() not in ("\n", "[", "]")]
        if toks[:1] == ["/configure"]:
            toks = toks[1:]
        elif toks[0].startswith("/"):
            raise fail(f"{toks[0]!r} is not under /configure", Location(source, number, 1))
        if any(t in ("{", "}") for t in toks):
            raise fail("a flat line holds no block", Location(source, number, 1))
        out.append(type_line([_unquote(t) for t in toks], Location(source, number, 1)))
    return tuple(out)


def sniff(text_: str) -> str | None:
    head = text_.lstrip()
    if head.startswith("<") and "urn:nokia.com:sros:ns:yang:sr:conf" in text_[:4000]:
        return "xml"
    lines = [ln.strip() for ln in text_.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if lines and lines[0].startswith("/configure"):
        return "flat"
    if lines and lines[0] == "configure {":
        return "cfg"
    return None


def parse(text_: str, source: str, platform: object = None, fmt: str | None = None) -> Document:
    first = next((ln.strip() for ln in text_.splitlines() if ln.strip() and not ln.strip().startswith("#")), "")
    kind = fmt or sniff(text_) or ("flat" if first.startswith("/") else "cfg")
    if kind == "xml":
        from qosc.targets.sros.read.xml import parse_xml
        statements = parse_xml(text_, source)
    elif kind == "flat":
        statements = parse_flat(text_, source)
    else:
        statements = parse_tree(text_, source)
    return Document(source, "sros", statements)
