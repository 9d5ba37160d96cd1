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

from qosc.diagnostics import Location
from qosc.targets.sros.read.words import fail, type_line
from qosc.tree import Document, Statement

_TOKEN = re.compile(r'#[^\n]*|"(?:[^"\\\n]|\\.)*"|[{}\[\]\n]|[^\s{}\[\]"#]+')


def _lines(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _at(starts: list[int], source: str, offset: int) -> Location:
    import bisect
    line = bisect.bisect_right(starts, offset) - 1
    return Location(source, line + 1, offset - starts[line] + 1)


def _unquote(tok: str) -> str:
    return re.sub(r"\\(.)", r"\1", tok[1:-1]) if tok.startswith('"') else tok


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
