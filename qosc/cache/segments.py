"""The policy text cut where YAML cannot cross, and the hashes keys are made of.

Separate from the store and the records because cutting is pure text work: it
needs neither the disk nor the model, and the tests exercise it on its own.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from qosc.yamlsafe import resolve_plain

_KEY = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]*):(?:[ \t]|$)", re.MULTILINE)
_NODE_PROPERTY = re.compile(r"(?:^|[\s\[\]{},])[&*!]")  # an anchor, alias or tag can tie segments together
_DOC_MARK = re.compile(r"^(?:---|\.\.\.|%)|^ *\t", re.MULTILINE)
_HEADER = re.compile(r"[A-Za-z-]+:[ \t]*(?:#[^\n]*)?\n?")


def _h(*parts: object) -> str:
    return _ht(repr(parts))


def _ht(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


@dataclass
class Seg:
    sid: str  # "g:<top-level key>" ("g:" before the first), "d:<device>", "p:<profile>"
    line: int  # 1-based line of its first character
    start: int
    end: int


def _key(text: str, pos: int) -> str | None:
    m = _KEY.match(text, pos)
    return m.group(1) if m and resolve_plain(m.group(1)) == m.group(1) else None


_TOP = re.compile(r"\n(?=[^\s#])")
_ENTRY: dict[int, re.Pattern[str]] = {}


def segment(text: str) -> list[Seg] | None:
    """Top-level sections, and device and profile entries, in file order; None when unsure."""
    if any(c in text for c in "\r\x85\u2028\u2029\ufeff") or "<<" in text:
        return None
    if any(c in text for c in "&*!") and _NODE_PROPERTY.search(text):
        return None
    if ("\t" in text or "\n-" in text or "\n." in text or "\n%" in text or text.startswith(("-", ".", "%"))) \
            and _DOC_MARK.search(text):
        return None
    starts = ([0] if text and not text[0].isspace() and text[0] != "#" else []) + \
        [m.end() for m in _TOP.finditer(text)]
    out, line, prev = [Seg("g:", 1, 0, starts[0] if starts else len(text))], 1, 0
    for i, start in enumerate(starts):
        name = _key(text, start)
        if name is None or name == "include":
            return None
        line += text.count("\n", prev, start)
        prev = start
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        if name not in ("devices", "profiles"):
            out.append(Seg("g:" + name, line, start, end))
            continue
        header = _HEADER.match(text, start)
        if header is None or header.group().split(":")[0] != name:
            return None  # a flow-style or inline section: not cut
        body = header.end()
        first = re.compile(r"^( +)(?=[^ \n#])", re.MULTILINE).search(text, body, end)
        indent = len(first.group(1)) if first else 0
        if indent > 1 and re.compile(rf"\n {{1,{indent - 1}}}[^ \n#]").search(text, body - 1, end):
            return None  # (body starts a line: a line there is found from the newline before it)
        entry_start = _ENTRY.get(indent)
        if entry_start is None:
            entry_start = _ENTRY[indent] = re.compile(rf"\n {{{indent}}}(?=[^ \n#])")
        entries = [m.start() + 1 for m in entry_start.finditer(text, body - 1, end)]
        out.append(Seg("g:" + name, line, start, entries[0] if entries else end))
        for j, pos in enumerate(entries):
            entry = _key(text, pos + indent)
            if entry is None:
                return None
            line += text.count("\n", prev, pos)
            prev = pos
            out.append(Seg(f"{name[0]}:{entry}", line, pos, entries[j + 1] if j + 1 < len(entries) else end))
    sids = [s.sid for s in out]
    return out if len(set(sids)) == len(sids) else None


def hashes(text: str, segs: list[Seg]) -> dict[str, str]:
    """_ht of every segment's text, by sid (of its bytes where the text is ASCII: no copy, no encoding)."""
    if not text.isascii():
        return {s.sid: _ht(text[s.start:s.end]) for s in segs}
    view = memoryview(text.encode("ascii"))
    blake = hashlib.blake2b
    return {s.sid: blake(view[s.start:s.end], digest_size=16).hexdigest() for s in segs}


def _agrees(tree: Any, segs: list[Seg], devices: set[str] | None = None) -> bool:
    """The parsed tree has exactly the cut's keys, each on the line the cut says (devices: those given)."""
    lines = {s.sid: s.line for s in segs}
    for sid, section in (("g:", tree), ("d:", tree.get("devices")), ("p:", tree.get("profiles"))):
        want = {k for k in lines if k.startswith(sid) and k != "g:" and (sid != "d:" or devices is None
                                                                       or k[2:] in devices)}
        got = getattr(section, "key_locs", {}) if isinstance(section, dict) else {}
        if {sid + k for k in got} != want or any(got[k[2:]].line != lines[k] for k in want):
            return False
    return True


def _global_hash(text: str, segs: list[Seg]) -> str:
    return _h([text[s.start:s.end] for s in segs if not s.sid.startswith("d:")])


def count_nodes(node: Any) -> int:
    """Nodes as the loader counts them (scalars, keys included, and collections)."""
    if isinstance(node, dict):
        return 1 + sum(1 + count_nodes(v) for v in node.values())
    if isinstance(node, list):
        return 1 + sum(count_nodes(v) for v in node)
    return 1


def tree_fingerprint(node: Any) -> str:
    """Content and source locations of a loaded subtree (for policies that cannot be cut into segments)."""
    out: list[Any] = []

    def walk(n: Any) -> None:
        if isinstance(n, dict):
            out.append(("{", getattr(n, "loc", None)))
            for k, v in n.items():
                locs = (getattr(n, "key_locs", {}).get(k), getattr(n, "value_locs", {}).get(k))
                out.append((k, *locs))
                walk(v)
            out.append("}")
        elif isinstance(n, list):
            out.append(("[", getattr(n, "loc", None), tuple(getattr(n, "item_locs", ()))))
            for v in n:
                walk(v)
            out.append("]")
        else:
            out.append((type(n).__name__, n))

    walk(node)
    return _h(out)
