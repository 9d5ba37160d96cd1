"""The policy text cut where YAML cannot cross, and the hashes keys are made of.

Separate from the store and the records because cutting is pure text work: it
needs neither the disk nor the model, and the tests exercise it on its own.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
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
    if len(segs) < 64 or not text.isascii():  # (a few: not worth encoding the whole text)
        return {s.sid: _ht(text[s.start:s.end]) for s in segs}
    view = memoryview(text.encode("ascii"))
    blake = hashlib.blake2b
    return {s.sid: blake(view[s.start:s.end], digest_size=16).hexdigest() for s in segs}


@dataclass
class Cut:
    """A policy text cut (`segment`), with the hash of every device segment and of the rest (`_global_hash`)."""

    segs: list[Seg] | None
    digests: dict[str, str]
    glob: str


_LAST: dict[str, tuple[str, Cut]] = {}
"""Policy file -> its last text and cut, kept by a process that compiles again and again (the compile server)."""
_PLAIN = "\r\x85\u2028\u2029\ufeff\t<&*!"
"""Characters an edit must not bring near it to be cut from the last cut: those `segment` looks for everywhere."""


def cut(path: str, text: str, keep: bool) -> Cut:
    """`segment(text)` with its hashes; `keep`: from the last cut of `path` when the edit since is within one
    line of a device's body (`_edited`: the same cut, later segments moved), and remember this one."""
    last = _LAST.get(path) if keep else None
    found = _edited(*last, text) if last is not None else None
    if found is None:
        segs = segment(text)
        found = Cut(segs, hashes(text, [s for s in segs if s.sid.startswith("d:")]) if segs else {},
                    _global_hash(text, segs) if segs else "")
    if keep:
        _LAST[path] = (text, found)
    return found


def _edited(old: str, last: Cut, new: str) -> Cut | None:
    """The cut of `new` from that of `old`, if they differ only inside one line of a device's body (not its
    key line, not the indentation): what `segment` finds is then the same but for the offsets after the edit;
    None when the edit is anything else (tests/test_cache_cut.py compares with `segment` on random edits)."""
    if last.segs is None:
        return None
    if new == old:
        return last
    p = _common_prefix(old, new)
    q = _common_suffix(old, new, min(len(old), len(new)) - p)
    gone, added = old[p:len(old) - q], new[p:len(new) - q]
    near = new[max(0, p - 2):p + len(added) + 2]
    if "\n" in gone or "\n" in added or any(c in near for c in _PLAIN):
        return None
    if not new[new.rfind("\n", 0, p) + 1:p].strip():
        return None  # the edit reaches the indentation or the first character of its line
    starts = [s.start for s in last.segs]
    at = bisect_right(starts, p) - 1
    seg = last.segs[at] if at >= 0 else None
    if seg is None or not seg.sid.startswith("d:") or p <= old.find("\n", seg.start) or p + len(gone) > seg.end:
        return None  # not in the body of one device (its key line could name another one)
    delta = len(added) - len(gone)
    segs = last.segs[:at] + [Seg(seg.sid, seg.line, seg.start, seg.end + delta)] + \
        [Seg(s.sid, s.line, s.start + delta, s.end + delta) for s in last.segs[at + 1:]]
    digests = dict(last.digests)
    digests[seg.sid] = hashes(new, [segs[at]])[seg.sid]
    return Cut(segs, digests, last.glob)


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix (compared a block at a time, in C)."""
    n, lo, step = min(len(a), len(b)), 0, 1 << 16
    while lo < n:
        hi = min(n, lo + step)
        if a[lo:hi] != b[lo:hi]:
            while hi - lo > 1:  # a[:lo] == b[:lo], a[:hi] != b[:hi]
                mid = (lo + hi) // 2
                if a[lo:mid] == b[lo:mid]:
                    lo = mid
                else:
                    hi = mid
            return lo
        lo = hi
    return n


def _common_suffix(a: str, b: str, limit: int) -> int:
    """The length of the longest common suffix, at most `limit`."""
    la, lb, lo, step = len(a), len(b), 0, 1 << 16
    while lo < limit:
        hi = min(limit, lo + step)
        if a[la - hi:la - lo] != b[lb - hi:lb - lo]:
            while hi - lo > 1:  # the last lo characters agree, the last hi do not
                mid = (lo + hi) // 2
                if a[la - mid:la - lo] == b[lb - mid:lb - lo]:
                    lo = mid
                else:
                    hi = mid
            return lo
        lo = hi
    return limit


def _agrees(tree: Any, segs: list[Seg], devices: set[str] | None = None) -> bool:
    """The parsed tree has exactly the cut's keys, each on the line the cut says (devices: those given)."""
    lines: dict[str, dict[str, int]] = {"g:": {}, "d:": {}, "p:": {}}
    for seg in segs:
        if seg.sid != "g:" and (devices is None or seg.sid[0] != "d"):
            lines[seg.sid[:2]][seg.sid[2:]] = seg.line
    if devices is not None:
        every = {seg.sid[2:]: seg.line for seg in segs if seg.sid[0] == "d" and seg.sid[2:] in devices}
        lines["d:"] = every
    for sid, section in (("g:", tree), ("d:", tree.get("devices")), ("p:", tree.get("profiles"))):
        want = lines[sid]
        got = getattr(section, "key_locs", {}) if isinstance(section, dict) else {}
        if got.keys() != want.keys() or any(got[k].line != line for k, line in want.items()):
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
