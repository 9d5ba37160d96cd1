"""Reading a vendor's published YANG text, for the scripts that derive a target's grammar data from it.

Target-neutral: a YANG statement parser (RFC 7950 section 6 lexical rules:
quoted strings with `+` concatenation, comments, blocks), an index of the
modules and submodules of one folder (groupings and typedefs by prefix,
submodules sharing their module's namespace), `uses` expansion, type
conversion to the value types of qosc.grammar.types (enumerations, integer
and decimal ranges, string lengths and patterns, unions, booleans), and
XSD-to-Python pattern translation.  No pyang needed; nothing here runs when
qosc compiles (the derived JSON is what targets load).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Stmt = tuple[str, str | None, list[Any]]
"""A YANG statement: keyword, argument (None when absent), sub-statements."""

_TOKEN = re.compile(r'\s+|//[^\n]*|/\*.*?\*/|"(?:[^"\\]|\\.)*"|\'[^\']*\'|[{};]|[^\s{};"\']+', re.DOTALL)


def _unquote(tok: str) -> str:
    if tok.startswith('"'):
        # RFC 7950 6.1.3: \n \t \" \\ are the escapes; any other backslash stays (YANG 1.0 kept it)
        return re.sub(r'\\([nt"\\])', lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), tok[1:-1])
    if tok.startswith("'"):
        return tok[1:-1]
    return tok


def parse(text: str) -> list[Stmt]:
    """The statements of a YANG file."""
    toks = [t for t in (m.group(0) for m in _TOKEN.finditer(text)) if not t.isspace() and not t.startswith(("//",
                                                                                                          "/*"))]
    pos = 0

    def block() -> list[Stmt]:
        nonlocal pos
        out: list[Stmt] = []
        while pos < len(toks):
            kw = toks[pos]
            pos += 1
            if kw == "}":
                return out
            arg = None
            if toks[pos] not in ("{", ";"):
                parts = [_unquote(toks[pos])]
                pos += 1
                while toks[pos] == "+":
                    parts.append(_unquote(toks[pos + 1]))
                    pos += 2
                arg = "".join(parts)
            if toks[pos] == ";":
                pos += 1
                out.append((kw, arg, []))
            else:
                pos += 1
                out.append((kw, arg, block()))
        return out

    return block()


def sub(stmt: Stmt, keyword: str) -> str | None:
    """The argument of a statement's first sub-statement with this keyword."""
    return next((s[1] for s in stmt[2] if s[0] == keyword), None)


@dataclass
class Module:
    """A module or submodule: its name, revision, prefixes and definitions."""

    name: str
    body: list[Stmt]
    namespace_of: str
    """The module whose namespace it defines things in (itself, or the module a submodule belongs to)."""
    revision: str = ""
    prefixes: dict[str, str] = field(default_factory=dict)
    groupings: dict[str, Stmt] = field(default_factory=dict)
    typedefs: dict[str, Stmt] = field(default_factory=dict)

    @classmethod
    def load(cls, stmt: Stmt) -> Module:
        name = stmt[1] or ""
        belongs = next((s for s in stmt[2] if s[0] == "belongs-to"), None)
        module = cls(name, stmt[2], belongs[1] or name if belongs else name)
        module.revision = next((s[1] or "" for s in stmt[2] if s[0] == "revision"), "")
        module.prefixes = {sub(s, "prefix") or "": s[1] or "" for s in stmt[2] if s[0] == "import"}
        own = sub(stmt, "prefix") or (sub(belongs, "prefix") if belongs else None)
        if own:
            module.prefixes[own] = module.namespace_of
        module._index(stmt[2])
        return module

    def _index(self, body: list[Stmt]) -> None:
        for s in body:
            if s[0] == "grouping":
                self.groupings[s[1] or ""] = s
            elif s[0] == "typedef":
                self.typedefs[s[1] or ""] = s
            if s[2] and s[0] not in ("type", "description"):
                self._index(s[2])


class Library:
    """Every module and submodule of a folder, with `uses` and typedef resolution across them."""

    def __init__(self, folder: Path) -> None:
        self.modules: dict[str, Module] = {}
        for path in sorted(folder.glob("*.yang")):
            for stmt in parse(path.read_text(encoding="utf-8")):
                if stmt[0] in ("module", "submodule"):
                    self.modules[stmt[1] or ""] = Module.load(stmt)
        self.dropped_patterns: set[str] = set()

    def family(self, namespace: str) -> Iterator[Module]:
        """A module and its submodules (they share groupings and typedefs)."""
        return (m for m in self.modules.values() if m.namespace_of == namespace)

    def resolve(self, module: Module, ref: str, table: str) -> tuple[Module, Stmt]:
        prefix, _, local = ref.rpartition(":")
        namespace = module.prefixes[prefix] if prefix else module.namespace_of
        for candidate in ([module] if not prefix else []) + list(self.family(namespace)):
            found = getattr(candidate, table).get(local)
            if found is not None:
                return candidate, found
        raise KeyError(f"{module.name}: {table[:-1]} {ref} not found")

    def expand(self, module: Module, body: list[Stmt], skip: tuple[str, ...] = ()) -> list[tuple[Module, Stmt]]:
        """A body's statements with every `uses` replaced by its grouping's (recursively); `skip`: groupings left
        out (by local name)."""
        out = []
        for s in body:
            if s[0] == "uses":
                if (s[1] or "").rpartition(":")[2] in skip:
                    continue
                gm, g = self.resolve(module, s[1] or "", "groupings")
                out += self.expand(gm, g[2], skip)
            else:
                out.append((module, s))
        return out

    # -- types ----------------------------------------------------------------------------------------------

    def type_of(self, module: Module, leaf: Stmt) -> Any:
        """The value type (qosc.grammar.types JSON) of a leaf; 'empty' for an empty leaf; leafrefs as
        {'leafref': path} for the caller to resolve."""
        t = next(s for s in leaf[2] if s[0] == "type")
        return self.convert(module, t)

    def inherited(self, module: Module, leaf: Stmt, keyword: str) -> str | None:
        """A leaf's `units` or `default`, else the first one its typedef chain states (RFC 7950 7.3.4, 7.6.1)."""
        found = sub(leaf, keyword)
        t = next(s for s in leaf[2] if s[0] == "type")
        while found is None and (t[1] or "").rpartition(":")[2] not in _BUILTIN:
            try:
                module, td = self.resolve(module, t[1] or "", "typedefs")
            except KeyError:
                return None
            found = sub(td, keyword)
            t = next(s for s in td[2] if s[0] == "type")
        return found

    def convert(self, module: Module, t: Stmt) -> Any:
        name = t[1] or ""
        subs = t[2]
        if name == "empty":
            return "empty"
        if name == "leafref":
            return {"leafref": sub(t, "path") or ""}
        if name == "union":
            members = [self.convert(module, s) for s in subs if s[0] == "type"]
            members = [m for m in members if m != "empty"]
            return members[0] if len(members) == 1 else {"union": members}
        if name == "enumeration":
            return {"enum": [s[1] for s in subs if s[0] == "enum"]}
        if name == "boolean":
            return {"enum": ["true", "false"]}
        if re.fullmatch(r"u?int(8|16|32|64)", name):
            bits = int(re.sub(r"\D", "", name))
            low, high = (0, 2**bits - 1) if name.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
            return {"int": ranges(sub(t, "range"), low, high)}
        if name == "decimal64":
            digits = int(sub(t, "fraction-digits") or 0)
            rng = ranges(sub(t, "range"), -(2**63), 2**63 - 1)
            return {"decimal": [rng[0][0], rng[-1][1], digits]}
        if name in ("string", "binary", "bits", "identityref", "instance-identifier"):
            return self.string(subs)
        tm, td = self.resolve(module, name, "typedefs")
        inner = next(s for s in td[2] if s[0] == "type")
        # restrictions written where the typedef is used narrow the typedef's own (a later range or length wins)
        merged = [s for s in inner[2] if not any(r[0] == s[0] and s[0] in ("range", "length") for r in subs)]
        return self.convert(tm, (inner[0], inner[1], merged + subs))

    def string(self, subs: list[Stmt]) -> Any:
        length = next((s[1] for s in reversed(subs) if s[0] == "length"), None)
        lo, hi = (0, None)
        if length:
            r = ranges(length, 0, 2**31)
            lo, hi = r[0][0], r[-1][1]
        patterns: list[str] = []
        refused: list[str] = []
        for s in (s for s in subs if s[0] == "pattern"):
            py = xsd(s[1] or "")
            if not _compiles(py):
                self.dropped_patterns.add(s[1] or "")
                continue
            (refused if sub(s, "modifier") == "invert-match" else patterns).append(py)
        return {"string": [lo, hi, patterns, refused]}


_BUILTIN = frozenset({"binary", "bits", "boolean", "decimal64", "empty", "enumeration", "identityref",
                      "instance-identifier", "int8", "int16", "int32", "int64", "leafref", "string", "uint8", "uint16",
                      "uint32", "uint64", "union"})


def ranges(text: str | None, low: Any, high: Any) -> list[list[Any]]:
    """A YANG range or length expression as [[low, high], ...] (min and max are the type's bounds)."""
    if not text:
        return [[low, high]]
    out = []
    for part in text.split("|"):
        a, _, b = part.partition("..")
        a, b = a.strip(), (b.strip() or a.strip())

        def conv(v: str, default: Any) -> Any:
            if v in ("min", "max"):
                return default
            return float(v) if "." in v else int(v)

        out.append([conv(a, low), conv(b, high)])
    return out


_CLASS_ESCAPES = {r"\p{N}": "0-9", r"\p{L}": "A-Za-z\u00c0-\uffff", r"\p{P}": r"!-/:-@\[-`{-~", r"\i": "A-Za-z_:",
                  r"\c": r"\w.:-"}


def xsd(pattern: str) -> str:
    """An XSD regular expression (a YANG `pattern`, implicitly anchored) as a Python one: ^ and $ are literal,
    \\p{L} and \\p{N} become ranges."""
    out, in_class, i = [], False, 0
    while i < len(pattern):
        ch = pattern[i]
        esc = next((e for e in _CLASS_ESCAPES if pattern.startswith(e, i)), None)
        if esc is not None:
            out.append(_CLASS_ESCAPES[esc] if in_class else f"[{_CLASS_ESCAPES[esc]}]")
            i += len(esc)
            continue
        if ch == "\\" and i + 1 < len(pattern):
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        if ch in "^$" and not (in_class and ch == "^" and pattern[i - 1] == "["):
            out.append("\\" + ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
        return True
    except re.error:
        return False
