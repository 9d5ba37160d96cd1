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

import json
import re
from typing import Any

from qosc.diagnostics import Location, error
from qosc.errors import InputError
from qosc.tree import Document, Kind, Statement, Word, kw

_CLASS_LINE = re.compile(r"^class (\S+) (\S+) (.*)$", re.MULTILINE)
_DEV_LINE = re.compile(r"^## dev (\S+)[ \t]*$", re.MULTILINE)


def _w(value: object) -> Word:
    text = json.dumps(value) if not isinstance(value, str) else value
    if not text or any(ch.isspace() for ch in text):
        return Word(Kind.TEXT, text or '""', value)
    return Word(Kind.KEYWORD, text, value)


def _fields(obj: dict[str, Any], where: Location) -> tuple[Statement, ...]:
    out = []
    for key, value in obj.items():
        if isinstance(value, dict):
            out.append(Statement((kw(key),), _fields(value, where), origin=where))
        else:
            out.append(Statement((kw(key), _w(value)), origin=where))
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


def _line_of(text: str, offset: int, source: str) -> Location:
    line = text.count("\n", 0, offset) + 1
    return Location(source, line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def parse(text: str, source: str, platform: object = None, fmt: str | None = None) -> Document:
    decoder = json.JSONDecoder()
    statements: list[Statement] = []
    groups: list[str | None] = []  # the interface of each statement (`## dev` line, or the JSON object's "dev")
    marks = [(m.start(), m.group(1)) for m in _DEV_LINE.finditer(text)]

    def marked(offset: int) -> str | None:
        return next((name for at, name in reversed(marks) if at < offset), None)

    dev = None
    i = 0
    spans: list[tuple[int, int]] = []
    while True:
        start = text.find("[", i)
        brace = text.find("{", i)
        if brace != -1 and (start == -1 or brace < start) and text[:brace].strip() == "":
            start = brace
        if start == -1:
            break
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            raise InputError([error("QOS179", f"tc JSON: {exc.msg}", _line_of(text, exc.pos, source))]) from exc
        spans.append((start, end))
        items: list[tuple[str, dict[str, Any]]] = []
        group = marked(start)
        if isinstance(value, dict):
            dev = value.get("dev", dev)
            group = group or (str(value["dev"]) if "dev" in value else None)
            for section in ("qdisc", "class", "filter"):
                items += [(section, o) for o in value.get(section, [])]
        else:
            items = [(_section(o), o) for o in value if isinstance(o, dict)]
        cursor = start
        for section, obj in items:
            at = text.find("{", cursor, end)
            if at != -1:  # the element's own brace: step over the whole object, nested ones included
                cursor = decoder.raw_decode(text, at)[1] if isinstance(value, list) else at + 1
            where = _line_of(text, max(at, start), source)
            statements.append(Statement(_head(section, obj), _fields(obj, where), origin=where))
            groups.append(group)
        i = end
    pieces, last = [], 0
    for a, b in spans:  # blank the JSON out, keeping offsets, and read the text lines left
        pieces += [text[last:a], re.sub(r"[^\n]", " ", text[a:b])]
        last = b
    rest = "".join([*pieces, text[last:]])
    for m in _CLASS_LINE.finditer(rest):
        words = m.group(3).split()
        where = _line_of(text, m.start(), source)
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
        groups.append(marked(m.start()))
    if not statements:
        raise InputError([error("QOS179", "tc dump: no qdisc, class or filter found", Location(source, 1, 1))])
    base = source.rsplit("/", 1)[-1]  # a file named after its interface: eth0.json, eth0.100.dump, eth0.tc
    base = base.rsplit(".", 1)[0] if base.rsplit(".", 1)[-1] in ("json", "dump", "txt", "tc") else base
    names = list(dict.fromkeys(g for g in groups if g is not None))
    if len(names) > 1 or marks:  # interfaces named in the dump: one `dev NAME` block each, in dump order
        first: dict[str, int] = {}
        for at, name in marks:
            first.setdefault(name, at)
        blocks = []
        for name in names:
            members = tuple(st for st, g in zip(statements, groups, strict=True) if g == name)
            blocks.append(Statement((kw("dev"), _w(name)), members, origin=_line_of(text, first.get(name, 0), source)))
        return Document(base or "tc", "tc-json", tuple(blocks), origin=Location(source, 1, 1))
    stem = dev or base or "eth0"
    return Document(stem, "tc-json", tuple(statements), origin=Location(source, 1, 1))


def sniff(text: str) -> str | None:
    head = _DEV_LINE.sub("", text[:4000], count=1).lstrip()[:2000]  # a multi-interface dump starts `## dev NAME`
    if head.startswith(("[", "{")) and '"kind"' in head and ('"handle"' in head or '"protocol"' in head):
        return "json"
    return None
