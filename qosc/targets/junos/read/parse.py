"""JUNOS configuration text (curly-brace hierarchy or `set` commands) into the statement tree.

Curly text becomes one statement per hierarchy level, set text one flat
statement per command (the words after `set`), XML (read.xml) one statement
per element as the CLI shows it; `paths()` flattens either
into the same full-path leaves, which is what the interpreter reads.  Words are
typed as integers where they are plain numbers and as keywords otherwise,
bracket lists (`[ a b ]`) as one group word.  Every statement's origin is
the file:line:column it was read from.  Syntax follows the Junos OS CLI
User Guide ("Junos OS configuration statement hierarchy", "set
configuration mode command"), Junos OS 21.4; `deactivate`/`delete` and
annotations are not configuration and are refused as syntax errors
(QOS179), `inactive:` statements are dropped (they do nothing).
"""

from __future__ import annotations

import re

from qosc.diagnostics import Location, error
from qosc.errors import InputError
from qosc.targets.junos.read.facts import word
from qosc.targets.junos.read.xml import parse_xml
from qosc.tree import Document, Statement, Word, group

_TOKEN = re.compile(r'#[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|[{};\[\]]|[^\s{};\[\]"#]+', re.DOTALL)


class _Lines:
    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def at(self, source: str, offset: int) -> Location:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return Location(source, lo + 1, offset - self.starts[lo] + 1)


def _fail(message: str, where: Location) -> InputError:
    return InputError([error("QOS179", f"JUNOS configuration syntax: {message}", where)])


def parse_curly(text: str, source: str) -> tuple[Statement, ...]:
    lines = _Lines(text)
    stack: list[tuple[list[Word], Location | None, list[Statement]]] = [([], None, [])]
    words: list[Word] = []
    start: Location | None = None
    listing: list[Word] | None = None
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok.startswith(("#", "/*")):
            continue
        where = lines.at(source, m.start())
        if listing is not None:
            if tok == "]":
                words.append(group(listing))
                listing = None
            elif tok in "{};[":
                raise _fail(f"unexpected {tok!r} inside [ ]", where)
            else:
                listing.append(word(tok))
            continue
        if tok == "[":
            listing = []
        elif tok == "{":
            if not words:
                raise _fail("a block without a name", where)
            stack.append((words, start, []))
            words, start = [], None
        elif tok == ";":
            if not words:
                raise _fail("an empty statement", where)
            stack[-1][2].append(Statement(tuple(words), origin=start))
            words, start = [], None
        elif tok == "}":
            if words:
                raise _fail(f"statement {' '.join(map(str, words))!r} without ';'", where)
            if len(stack) == 1:
                raise _fail("unbalanced '}'", where)
            head, at, children = stack.pop()
            if head[0].text != "inactive:":
                stack[-1][2].append(Statement(tuple(head), tuple(children), origin=at))
        else:
            if start is None:
                start = where
            if tok == "inactive:" and words:
                raise _fail("'inactive:' inside a statement", where)
            words.append(word(tok))
    if listing is not None or words or len(stack) > 1:
        raise _fail("unexpected end of configuration (missing '}' or ';')", lines.at(source, len(text)))
    return tuple(s for s in stack[0][2] if s.words[0].text != "inactive:")


def parse_set(text: str, source: str) -> tuple[Statement, ...]:
    out: list[Statement] = []
    for number, line in enumerate(text.splitlines(), 1):
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        col = line.index(body) + 1
        where = Location(source, number, col)
        raw = [m.group() for m in _TOKEN.finditer(body) if not m.group().startswith(("#", "/*"))]
        if raw[0] != "set":
            raise _fail(f"{raw[0]!r}: only 'set' commands are configuration", where)
        words: list[Word] = []
        listing: list[Word] | None = None
        for tok in raw[1:]:
            if tok == "[":
                listing = []
            elif tok == "]" and listing is not None:
                words.append(group(listing))
                listing = None
            elif tok in "{};[]":
                raise _fail(f"unexpected {tok!r} in a set command", where)
            elif listing is not None:
                listing.append(word(tok))
            else:
                words.append(word(tok))
        if listing is not None or not words:
            raise _fail("incomplete set command", where)
        out.append(Statement(tuple(words), origin=where))
    return tuple(out)


def sniff(text: str) -> str | None:
    head = text.lstrip()[:4096]
    if head.startswith("<") and re.search(r"<(?:\w+:)?configuration[\s>/]", text[:1 << 20]) and \
            "class-of-service" in text:
        return "xml"
    body = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if not body:
        return None
    if all(ln.startswith("set ") for ln in body[:20]) and any("class-of-service" in ln or "firewall" in ln
                                                               for ln in body):
        return "set"
    if re.match(r"^(class-of-service|firewall|interfaces|system|version|groups)\s*\{", body[0]) and \
            "class-of-service" in text:
        return "conf"
    return None


def parse(text: str, source: str, platform: object = None, fmt: str | None = None) -> Document:
    form = fmt or sniff(text) or "conf"
    if form not in ("conf", "set", "xml"):
        raise InputError([error("QOS179", f"JUNOS reader: unknown format {form!r} (conf, set or xml)",
                                Location(source, 1, 1))])
    statements = {"set": parse_set, "xml": parse_xml}.get(form, parse_curly)(text, source)
    return Document(source.rsplit("/", 1)[-1].split(".")[0] or "config", f"junos-{form}", statements,
                    origin=Location(source, 1, 1))


def paths(statements: tuple[Statement, ...]) -> list[tuple[tuple[str, ...], Location | None]]:
    """Every leaf as its full path of words from the top of the hierarchy (lists spelled out one item per
    path), with where it was read: curly and set text of one configuration give the same paths."""
    out: list[tuple[tuple[str, ...], Location | None]] = []

    def leaf(prefix: tuple[str, ...], s: Statement) -> None:
        head: list[tuple[str, ...]] = [prefix]
        for w in s.words:
            items = [x.text for x in w.words]
            head = [h + (x,) for h in head for x in items]
        for h in head:
            if s.children:
                for c in s.children:
                    leaf(h, c)
            else:
                out.append((h, s.origin if isinstance(s.origin, Location) else None))

    for s in statements:
        leaf((), s)
    return out
