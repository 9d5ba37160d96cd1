"""Linux `tc -j qdisc show`, `tc -j class show` and `tc -j filter show` output (one device) into the statement
tree.

A dump is the three outputs one after the other (`for k in qdisc class
filter; do tc -j $k show dev eth0; done > eth0.json`), or one JSON object
{"dev": ..., "qdisc": [...], "class": [...], "filter": [...]}.  Several
interfaces in one dump: a line `## dev NAME` before each interface's outputs
(what `qosc verify --from-device` reads through the push driver), or one
such JSON object per interface; each interface becomes a `dev NAME` block.
Each JSON object becomes one statement (`qdisc KIND HANDLE`, `class KIND CLASSID`,
`filter PROTOCOL PREF KIND`; an `ip -j -d link show` object, `link KIND NAME`, KIND
its linkinfo's info_kind or none: the VLAN device's egress-qos-map of the 802.1p
rewrite) whose children are its fields (`key value`,
nested objects as blocks), located at the line of its opening brace.
iproute2 6.1 prints HTB classes as text even with -j (q_htb.c has no JSON
output there), so `class htb 1:10 parent 1:1 ... rate 10Mbit ceil ...`
lines are read too.  The device is the dump's "dev", else the file's stem.
Source: iproute2 6.1 tc(8), tc-htb(8), tc-u32(8); tc/q_htb.c, tc/f_u32.c.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections.abc import Hashable
from typing import Any

from qosc.configtext import LIMITS, Lines, prepare, refused, too_deep, unsafe_at
from qosc.diagnostics import Location, error
from qosc.errors import InputError, UnsafeValue
from qosc.tree import Document, Kind, Statement, Word, kw

_CLASS_LINE = re.compile(r"^class (\S+) (\S+) (.*)$")
_DEV_LINE = re.compile(r"^## dev (\S+)[ \t]*$", re.MULTILINE)
_SPACE = re.compile(r"[ \t\n]*")
_WHITE = re.compile(r"\s")
_CONSTANT = re.compile(r'-?Infinity|NaN|"(?:[^"\\]|\\.)*"')


class _NotJson(ValueError):
    """A JSON constant (Infinity, NaN) that is not JSON and no number a kernel prints."""


def _constant(name: str) -> Any:
    raise _NotJson(name)


def _pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object; a key repeated (iproute2 prints a u32 filter's keys as several "match" members) keeps
    every value, as a list."""
    out: dict[str, Any] = {}
    for key, value in items:
        if key in out:
            first = out[key]
            out[key] = [*first, value] if isinstance(first, list) and key == "match" else [first, value]
        else:
            out[key] = value
    return out


_DECODER = json.JSONDecoder(parse_constant=_constant, object_pairs_hook=_pairs)


def _make(value: object) -> Word:
    text = json.dumps(value) if not isinstance(value, str) else value
    if not text or _WHITE.search(text):
        return Word(Kind.TEXT, text or '""', value)
    return Word(Kind.KEYWORD, text, value)


@functools.lru_cache(maxsize=1 << 16)
def _scalar(_kind: str, value: Hashable) -> Word:
    """The word of a JSON scalar; the words a dump repeats (keys' values "ip", "u32", "1:") are one object (the
    type is part of the key: True and 1 are different words)."""
    return _make(value)


def _w(value: object) -> Word:
    if value is None or isinstance(value, (str, int, float)):
        return _scalar(type(value).__name__, value)
    return _make(value)


@functools.lru_cache(maxsize=1 << 12)
def _key(key: str) -> Word:
    return kw(key) if key and not _WHITE.search(key) else Word(Kind.TEXT, key or '""', key)


def _fields(obj: dict[str, Any], where: Location) -> tuple[Statement, ...]:
    out = []
    for key, value in obj.items():
        if isinstance(value, dict):
            out.append(Statement((_key(key),), _fields(value, where), origin=where))
        else:
            out.append(Statement((_key(key), _w(value)), origin=where))
    return tuple(out)


def _head(section: str, obj: dict[str, Any]) -> tuple[Word, ...]:
    if section == "link":
        info = obj.get("linkinfo")
        info = info if isinstance(info, dict) else {}
        return (kw("link"), _w(info.get("info_kind", "none")), _w(obj.get("ifname", "?")))
    if section == "filter":
        return (kw("filter"), _w(obj.get("protocol", "all")), _w(obj.get("pref", 0)), _w(obj.get("kind", "?")))
    if section == "class":
        return (kw("class"), _w(obj.get("class", "?")), _w(obj.get("handle", "?")))
    return (kw("qdisc"), _w(obj.get("kind", "?")), _w(obj.get("handle", "?")))


def _section(obj: dict[str, Any]) -> str:
    if "ifname" in obj and "ifindex" in obj:
        return "link"
    if "protocol" in obj or "pref" in obj:
        return "filter"
    if "class" in obj:
        return "class"
    return "qdisc"


def _depth(value: object) -> int:
    """How deep a decoded JSON value nests (a walk with a stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((x, depth + 1) for x in (item.values() if isinstance(item, dict) else item))
    return deepest


def _fail(message: str, where: Location) -> InputError:
    return InputError([error("QOS179", f"tc dump: {message}", where)])


def _decode(text: str, start: int, lines: Lines, source: str) -> tuple[Any, int]:
    try:
        value, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise InputError([error("QOS179", f"tc JSON: {exc.msg}", lines.at(source, exc.pos))]) from None
    except _NotJson as exc:
        at = next((m.start() for m in _CONSTANT.finditer(text, start) if m.group()[0] != '"'), start)
        raise _fail(f"{exc} is not a JSON value (tc -j prints finite numbers)", lines.at(source, at)) from None
    except RecursionError:
        raise too_deep(lines.at(source, start)) from None
    if _depth(value) > LIMITS.max_depth:
        raise too_deep(lines.at(source, start))
    return value, end


def _elements(text: str, start: int, lines: Lines, source: str) -> tuple[list[tuple[int, Any]], int]:
    """The elements of a JSON array at `start` with the offset of each (decoded one by one: linear)."""
    out: list[tuple[int, Any]] = []
    i = _SPACE.match(text, start + 1).end()  # type: ignore[union-attr]
    if text.startswith("]", i):
        return out, i + 1
    while True:
        value, end = _decode(text, i, lines, source)
        out.append((i, value))
        i = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        if text.startswith("]", i):
            return out, i + 1
        if not text.startswith(",", i):
            raise _fail("expected ',' or ']' in a JSON array", lines.at(source, i))
        i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]


def _stem(source: str) -> str:
    """The interface a file is named after: eth0.json, eth0.100.dump, eth0.tc.json -> eth0, eth0.100, eth0."""
    base = source.rsplit("/", 1)[-1]
    while "." in base and base.rsplit(".", 1)[-1] in ("json", "dump", "txt", "tc"):
        base = base.rsplit(".", 1)[0]
    return base


def parse(text: str, source: str, platform: object = None, fmt: str | None = None) -> Document:
    text = prepare(text, source)
    lines = Lines(text)
    statements: list[Statement] = []
    groups: list[str | None] = []  # the interface of each statement (`## dev` line, or the JSON object's "dev")
    marks = [(m.start(), m.group(1)) for m in _DEV_LINE.finditer(text)]
    offsets = [at for at, _ in marks]

    def marked(offset: int) -> str | None:
        k = bisect.bisect_left(offsets, offset)
        return marks[k - 1][1] if k else None

    def add(section: str, obj: dict[str, Any], at: int, group: str | None) -> None:
        where = lines.at(source, at)
        try:
            statements.append(Statement(_head(section, obj), _fields(obj, where), origin=where))
        except UnsafeValue:
            raise refused(next((ch for ch in json.dumps(obj, ensure_ascii=False) if unsafe_at(ch) == 0), "?"),
                          where) from None
        groups.append(group)

    dev = None
    texts: list[tuple[int, re.Match[str]]] = []
    i, n = 0, len(text)
    while True:
        i = _SPACE.match(text, i).end()  # type: ignore[union-attr]
        if i >= n:
            break
        if text[i] == "[":
            items, i = _elements(text, i, lines, source)
            for at, obj in items:
                if not isinstance(obj, dict):
                    raise _fail(f"a {type(obj).__name__} where a qdisc, class or filter object is expected",
                                lines.at(source, at))
                add(_section(obj), obj, at, marked(at))
        elif text[i] == "{":
            start = i
            value, i = _decode(text, i, lines, source)
            group = marked(start) or (str(value["dev"]) if isinstance(value.get("dev"), str) else None)
            dev = value.get("dev") if isinstance(value.get("dev"), str) else dev
            cursor = start + 1
            for section in ("qdisc", "class", "filter"):
                members = value.get(section, [])
                if not isinstance(members, list) or not all(isinstance(o, dict) for o in members):
                    raise _fail(f'"{section}" is not a list of objects', lines.at(source, start))
                for obj in members:
                    at = text.find("{", cursor, i)
                    cursor = at + 1 if at != -1 else cursor
                    add(section, obj, max(at, start), group)
        else:  # a text line: `## dev NAME`, iproute2 6.1's HTB classes as text, else not a tc -j dump
            end = text.find("\n", i)
            end = n if end == -1 else end
            line = text[i:end]
            m = _CLASS_LINE.match(line)
            if m is not None:
                texts.append((i, m))
            elif not _DEV_LINE.match(line):
                raise _fail(f"{line[:40]!r} is neither tc -j JSON nor a class line (dump with tc -j)",
                            lines.at(source, i))
            i = end
    for at, m in texts:
        words = m.group(3).split()
        where = lines.at(source, at)
        kids: list[Statement] = []
        k = 0
        while k < len(words):
            if words[k] == "root" or k + 1 == len(words):  # a flag
                kids.append(Statement((kw(words[k]), _w("true")), origin=where))
                k += 1
            else:
                kids.append(Statement((kw(words[k]), _w(words[k + 1])), origin=where))
                k += 2
        statements.append(Statement((kw("class"), _w(m.group(1)), _w(m.group(2))), tuple(kids), origin=where))
        groups.append(marked(at))
    if not statements:
        raise InputError([error("QOS179", "tc dump: no qdisc, class or filter found", Location(source, 1, 1))])
    base = _stem(source)
    names = list(dict.fromkeys(g for g in groups if g is not None))
    if len(names) > 1 or marks:  # interfaces named in the dump: one `dev NAME` block each, in dump order
        first: dict[str, int] = {}
        for at, name in marks:
            first.setdefault(name, at)
        blocks = []
        for name in names:
            members = tuple(st for st, g in zip(statements, groups, strict=True) if g == name)
            blocks.append(Statement((kw("dev"), _w(name)), members, origin=lines.at(source, first.get(name, 0))))
        return Document(base or "tc", "tc-json", tuple(blocks), origin=Location(source, 1, 1))
    stem = dev or base or "eth0"
    return Document(stem, "tc-json", tuple(statements), origin=Location(source, 1, 1))


def sniff(text: str) -> str | None:
    head = _DEV_LINE.sub("", text.lstrip("\ufeff")[:4000], count=1).lstrip()[:2000]
    if head.startswith(("[", "{")) and '"kind"' in head and ('"handle"' in head or '"protocol"' in head):
        return "json"
    return None
