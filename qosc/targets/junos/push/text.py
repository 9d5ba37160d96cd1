"""JUNOS curly-brace configuration text: parse, mark the qosc-owned hierarchies, serialise.

The push layer needs the generated `<device>.conf` as a tree for two things:

- the JUNOS RPC path loads it with `load-configuration action="replace"`, so
  the hierarchies qosc owns carry a `replace:` tag (class-of-service, and each
  qosc firewall policer, three-color policer and filter); interface
  attachments merge;
- the RFC 6241 path reads it into a statement tree that the YANG-derived
  grammar turns into XML (push/xml.py).

Only the statement grammar is parsed here (words, `[ lists ]`, quoted strings,
`{ blocks }`, `;`, comments); meaning lives in the grammar (yang_grammar.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r'\s+|/\*.*?\*/|#[^\n]*|"(?:[^"\\]|\\.)*"|[{};\[\]]|[^\s{};\[\]"]+', re.DOTALL)


class JunosSyntaxError(ValueError):
    """The text is not well-formed JUNOS configuration."""


@dataclass
class Stmt:
    """One statement: its words (a `[ ... ]` list is one word given as a list) and its block, if any."""

    words: list[str | list[str]]
    children: list[Stmt] | None = None
    tag: str | None = None  # "replace", "delete", ... (the `replace:` prefix)
    line: int | None = None  # where it was read (XML read back: the element's source line)

    @property
    def keyword(self) -> str:
        first = self.words[0] if self.words else ""
        return first if isinstance(first, str) else ""

    def head(self) -> tuple[str, ...]:
        """Identity of the statement among its siblings (keyword plus name for a block or a list entry)."""
        flat = [w if isinstance(w, str) else " ".join(w) for w in self.words]
        if self.children is not None or len(flat) != 2:
            return tuple(flat[:2]) if self.children is not None else tuple(flat)
        return (flat[0],)

    def find(self, *path: str) -> Stmt | None:
        node: Stmt | None = self
        for part in path:
            node = next((c for c in (node.children or []) if c.keyword == part or
                         (len(c.words) > 1 and " ".join(map(str, c.words[:2])) == part)), None) if node else None
        return node


def tokenize(text: str) -> list[str]:
    tokens = []
    pos = 0
    for match in _TOKEN.finditer(text):
        if match.start() != pos:
            raise JunosSyntaxError(f"unexpected character {text[pos]!r} at offset {pos}")
        pos = match.end()
        tok = match.group(0)
        if tok.isspace() or tok.startswith(("/*", "#")):
            continue
        tokens.append(tok)
    if pos != len(text):
        raise JunosSyntaxError(f"unterminated token at offset {pos}")
    return tokens


def _unquote(tok: str) -> str:
    return tok[1:-1].replace('\\"', '"').replace("\\\\", "\\") if tok.startswith('"') else tok


def parse(text: str) -> list[Stmt]:
    """Parse configuration text into a list of top-level statements."""
    tokens = tokenize(text)
    pos = 0

    def block(depth: int) -> list[Stmt]:
        nonlocal pos
        out: list[Stmt] = []
        words: list[str | list[str]] = []
        tag = None
        while pos < len(tokens):
            tok = tokens[pos]
            pos += 1
            if tok == "}":
                if words or depth == 0:
                    raise JunosSyntaxError("unexpected '}'")
                return out
            if tok == ";":
                if not words:
                    raise JunosSyntaxError("empty statement")
                out.append(Stmt(words, None, tag))
                words, tag = [], None
            elif tok == "{":
                if not words:
                    raise JunosSyntaxError("block without a statement")
                out.append(Stmt(words, block(depth + 1), tag))
                words, tag = [], None
            elif tok == "[":
                items = []
                while pos < len(tokens) and tokens[pos] != "]":
                    if tokens[pos] in "{};[":
                        raise JunosSyntaxError("bad token in [ list ]")
                    items.append(_unquote(tokens[pos]))
                    pos += 1
                if pos >= len(tokens):
                    raise JunosSyntaxError("unterminated [ list ]")
                pos += 1
                words.append(items)
            elif tok == "]":
                raise JunosSyntaxError("unexpected ']'")
            elif not words and tok.endswith(":") and tok[:-1] in ("replace", "delete", "inactive", "protect"):
                tag = tok[:-1]
            else:
                words.append(_unquote(tok))
        if depth:
            raise JunosSyntaxError("missing '}'")
        if words:
            raise JunosSyntaxError("missing ';' at end of text")
        return out

    return block(0)


def _word(w: str | list[str]) -> str:
    if isinstance(w, list):
        return "[ " + " ".join(_word(x) for x in w) + " ]"
    return w if w and re.fullmatch(r'[^\s{};\[\]"#]+', w) else '"' + w.replace("\\", "\\\\").replace('"', '\\"') + '"'


def serialise(stmts: list[Stmt], indent: int = 0) -> str:
    """Text in JUNOS's own layout (four spaces per level), stable for diffs."""
    lines: list[str] = []

    def emit(items: list[Stmt], depth: int) -> None:
        for st in items:
            pad = "    " * depth
            prefix = f"{st.tag}: " if st.tag else ""
            text = " ".join(_word(w) for w in st.words)
            if st.children is None:
                lines.append(f"{pad}{prefix}{text};")
            else:
                lines.append(f"{pad}{prefix}{text} {{")
                emit(st.children, depth + 1)
                lines.append(f"{pad}}}")

    emit(stmts, indent)
    return "\n".join(lines) + ("\n" if lines else "")


OWNED_FIREWALL = ("policer", "three-color-policer", "hierarchical-policer")


def mark_owned(stmts: list[Stmt]) -> list[Stmt]:
    """Tag the qosc-owned hierarchies `replace:` (class-of-service; each firewall policer and filter)."""
    for st in stmts:
        if st.keyword == "class-of-service":
            st.tag = "replace"
        elif st.keyword == "firewall":
            for child in st.children or []:
                if child.keyword in OWNED_FIREWALL or child.keyword == "filter":
                    child.tag = "replace"
                elif child.keyword == "family":
                    for flt in child.children or []:
                        if flt.keyword == "filter":
                            flt.tag = "replace"
    return stmts


def for_load(text: str) -> str:
    """The generated text, re-laid and with the owned hierarchies tagged for `load replace`."""
    return serialise(mark_owned(parse(text)))
