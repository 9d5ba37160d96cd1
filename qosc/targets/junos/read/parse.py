"""JUNOS configuration text (curly-brace hierarchy or `set` commands) into the statement tree.

Curly text becomes one statement per hierarchy level, set text one flat
statement per command (the words after `set`), XML (read.xml) one statement
per element as the CLI shows it; `paths()` flattens either
into the same full-path leaves, which is what the interpreter reads.  Words are
typed as integers where they are plain numbers and as keywords otherwise,
bracket lists (`[ a b ]`) as one group word.  Every statement's origin is
the file:line:column it was read from.  Syntax follows the Junos OS CLI
User Guide ("Junos OS configuration statement hierarchy", "set
configuration mode command"), Junos OS 21.4; annotations are not
configuration, `inactive:` statements and, in set text, what a `deactivate`
line names are dropped (they do nothing: `show configuration | display set`
prints an inactive statement as its set line followed by a deactivate line),
`protect:` and `replace:` tags are read past, and a `delete` or any other
edit command is a syntax error (QOS179).

What a CLI capture holds besides configuration is skipped: the prompt and
command line (`user@r1> show configuration | display set | no-more`), a bare
`show` command, `{master:0}` and `[edit ...]` banners, `---(more)---` pager
lines.  The text is first checked by qosc.configtext.prepare (size, byte-order
mark, control and invisible characters); braces nested deeper than its
limit are QOS200, an unterminated quoted string QOS179.
"""

from __future__ import annotations

import functools
import re

from qosc.configtext import LIMITS, Lines, prepare, too_deep
from qosc.diagnostics import Location, error
from qosc.errors import InputError
from qosc.targets.junos.read.facts import word as typed_word
from qosc.targets.junos.read.xml import parse_xml
from qosc.tree import Document, Statement, Word, group

_TOKEN = re.compile(r'#[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|[{};\[\]]|[^\s{};\[\]"#]+|"', re.DOTALL)
_NOISE_FORMS = r"""(?:[\w.-]+@[\w.-]+[>#%](?:[ \t].*)?      # user@router> show configuration | display set
                    |show(?:[ \t].*)?                           # a command without its prompt
                    |\{[\w:-]+\}                                # {master:0}, {primary:node0}
                    |\[edit(?:[ \t][^\]\n]*)?\]                  # [edit], [edit class-of-service]
                    |-+[ \t]*\(more(?:[ \t]\d+%)?\)[ \t]*-+       # ---(more)---, ---(more 45%)---
                    )[ \t]*"""
_NOISE = re.compile(f"^{_NOISE_FORMS}$", re.VERBOSE)
_NOISE_LINES = re.compile(f"^{_NOISE_FORMS}$", re.VERBOSE | re.MULTILINE)
_TAGS = ("protect:", "replace:")
_EDITS = ("delete", "insert", "rename", "copy", "annotate", "activate", "protect", "unprotect")


@functools.lru_cache(maxsize=1 << 16)
def word(text: str) -> Word:
    """A typed word; the words a configuration repeats (keywords, class names) are one shared object."""
    return typed_word(text)


def _fail(message: str, where: Location) -> InputError:
    return InputError([error("QOS179", f"JUNOS configuration syntax: {message}", where)])


def _blank_noise(text: str) -> str:
    """The text with the CLI capture's own lines (prompts, commands, banners, at the start of a line) blanked,
    line numbers kept."""
    return _NOISE_LINES.sub("", text)


class _Curly:
    """The curly-text parser's state: the open blocks, the statement being read, a `[ ]` list being read."""

    def __init__(self, text: str, source: str) -> None:
        self.source, self.lines = source, Lines(text)
        self.stack: list[tuple[list[Word], Location | None, list[Statement]]] = [([], None, [])]
        self.words: list[Word] = []
        self.start: Location | None = None
        self.listing: list[Word] | None = None

    def at(self, offset: int) -> Location:
        return self.lines.at(self.source, offset)

    def leaf(self, words: list[Word], start: Location | None, where: Location) -> None:
        if not words:
            raise _fail("an empty statement", where)
        if words[0].text != "inactive:":  # an inactive statement does nothing
            self.stack[-1][2].append(Statement(tuple(words), origin=start))

    def open(self, words: list[Word], start: Location | None, where: Location) -> None:
        if not words:
            raise _fail("a block without a name", where)
        if len(self.stack) > LIMITS.max_depth:
            raise too_deep(where)
        self.stack.append((words, start, []))

    def close(self, where: Location) -> None:
        if len(self.stack) == 1:
            raise _fail("unbalanced '}'", where)
        head, at, children = self.stack.pop()
        if head[0].text != "inactive:":
            self.stack[-1][2].append(Statement(tuple(head), tuple(children), origin=at))

    def token(self, tok: str, offset: int) -> None:
        """One token of the general tokenizer (lists, quotes, comments, statements across lines)."""
        if tok[0] == "#" or tok.startswith("/*"):
            return
        if tok == '"':
            raise _fail("a quoted string without its closing '\"'", self.at(offset))
        if self.listing is not None:
            if tok == "]":
                self.words.append(group(self.listing))
                self.listing = None
            elif tok in "{};[":
                raise _fail(f"unexpected {tok!r} inside [ ]", self.at(offset))
            else:
                self.listing.append(word(tok))
            return
        if tok == "[":
            self.listing = []
        elif tok == "{":
            self.open(self.words, self.start, self.at(offset))
            self.words, self.start = [], None
        elif tok == ";":
            self.leaf(self.words, self.start, self.at(offset))
            self.words, self.start = [], None
        elif tok == "}":
            if self.words:
                raise _fail(f"statement {' '.join(map(str, self.words))!r} without ';'", self.at(offset))
            self.close(self.at(offset))
        elif tok in _TAGS and not self.words:
            return
        else:
            if self.start is None:
                self.start = self.at(offset)
            if tok == "inactive:" and self.words:
                raise _fail("'inactive:' inside a statement", self.at(offset))
            self.words.append(word(tok))


_SIMPLE = re.compile(r'[^"#\[\]{};]*')
"""A line with none of the characters that need the general tokenizer (the common case of `show configuration`:
`word word;`, `word {`, `}`)."""


def parse_curly(text: str, source: str) -> tuple[Statement, ...]:
    """Curly text: line by line where a line is one simple statement, an opening or a closing (linear, and most
    lines never reach the general tokenizer), token by token for the rest."""
    text = _blank_noise(text)
    p = _Curly(text, source)
    spans_comments = "/*" in text and re.search(r"/\*(?:(?!\*/).)*\n", text, re.DOTALL) is not None
    offset, number = 0, 0
    for line in text.split("\n") if not spans_comments else ():
        number += 1
        body = line.strip()
        start = offset
        offset += len(line) + 1
        if not body:
            continue
        head = body[:-1]
        if p.words or p.listing is not None or _SIMPLE.fullmatch(head) is None or "/*" in body or \
                (body[-1] not in ";{" and body != "}"):
            for m in _TOKEN.finditer(line):
                p.token(m.group(), start + m.start())
            continue
        col = line.index(body[0]) + 1
        where = Location(source, number, col)
        if body == "}":
            p.close(where)
            continue
        texts = head.split()
        if texts and texts[0] in _TAGS:
            texts = texts[1:]
        if "inactive:" in texts[1:]:
            raise _fail("'inactive:' inside a statement", where)
        words = [word(t) for t in texts]
        (p.leaf if body[-1] == ";" else p.open)(words, where, Location(source, number, col + len(body) - 1))
    if spans_comments:
        for m in _TOKEN.finditer(text):
            p.token(m.group(), m.start())
    if p.listing is not None or p.words or len(p.stack) > 1:
        raise _fail("unexpected end of configuration (missing '}' or ';')", p.at(len(text)))
    return tuple(s for s in p.stack[0][2] if s.words[0].text != "inactive:")


def _set_words(raw: list[str], where: Location) -> list[Word]:
    words: list[Word] = []
    listing: list[Word] | None = None
    for tok in raw:
        if tok == "[" and listing is None:
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
    return words


def parse_set(text: str, source: str) -> tuple[Statement, ...]:
    out: list[Statement] = []
    inactive: set[tuple[str, ...]] = set()
    for number, line in enumerate(text.split("\n"), 1):
        body = line.strip()
        if not body or body[0] == "#" or _NOISE.match(body):
            continue
        where = Location(source, number, line.index(body) + 1)
        raw = [m.group() for m in _TOKEN.finditer(body) if m.group()[0] != "#" and not m.group().startswith("/*")]
        if not raw:  # a line of comments only
            continue
        if '"' in raw:
            raise _fail("a quoted string without its closing '\"'", where)
        if raw[0] == "deactivate":
            inactive.add(tuple(w.text for w in _set_words(raw[1:], where)))
            continue
        if raw[0] != "set":
            kind = "an edit command, not configuration" if raw[0] in _EDITS else \
                "only 'set' commands are configuration"
            raise _fail(f"{raw[0][:40]!r}: {kind}", where)
        out.append(Statement(tuple(_set_words(raw[1:], where)), origin=where))
    if inactive:
        out = [s for s in out if not _under(s.texts(), inactive)]
    return tuple(out)


def _under(words: tuple[str, ...], prefixes: set[tuple[str, ...]]) -> bool:
    return any(words[:n] in prefixes for n in range(1, len(words) + 1))


def form(text: str) -> str:
    """The format of a JUNOS configuration text: 'xml', 'set' or 'conf' (curly), whatever it holds."""
    head = text.lstrip("\ufeff \t\n")[:1]
    if head == "<":
        return "xml"
    for line in text.split("\n", 200)[:200]:
        body = line.strip()
        if not body or body[0] == "#" or body.startswith("/*") or _NOISE.match(body):
            continue
        return "set" if body.startswith(("set ", "deactivate ")) else "conf"
    return "conf"


def sniff(text: str) -> str | None:
    """The format of a text that is recognisably a JUNOS configuration with class-of-service or firewall
    statements (for reading without a platform), else None."""
    fmt = form(text)
    sample = text[:1 << 20]
    if fmt == "xml":
        return "xml" if re.search(r"<(?:\w+:)?configuration[\s>/-]", sample) and "class-of-service" in text else None
    body = [ln.strip() for ln in text.split("\n", 400)[:400] if ln.strip() and not ln.strip().startswith("#")
            and not _NOISE.match(ln.strip())]
    if not body:
        return None
    if fmt == "set":
        if all(ln.startswith(("set ", "deactivate ")) for ln in body[:20]) and any(
                "class-of-service" in ln or "firewall" in ln for ln in body):
            return "set"
        return None
    if re.match(r"^(class-of-service|firewall|interfaces|system|version|groups)\s*\{", body[0]) and \
            "class-of-service" in text:
        return "conf"
    return None


def parse(text: str, source: str, platform: object = None, fmt: str | None = None) -> Document:
    text = prepare(text, source)
    kind = fmt or form(text)
    if kind not in ("conf", "set", "xml"):
        raise InputError([error("QOS179", f"JUNOS reader: unknown format {kind!r} (conf, set or xml)",
                                Location(source, 1, 1))])
    if kind == "xml":
        statements = parse_xml(text, source, parse_curly, parse_set)
    else:
        statements = (parse_set if kind == "set" else parse_curly)(text, source)
    return Document(source.rsplit("/", 1)[-1].split(".")[0] or "config", f"junos-{kind}", statements,
                    origin=Location(source, 1, 1))


def paths(statements: tuple[Statement, ...], tops: tuple[str, ...] | None = None
          ) -> list[tuple[tuple[str, ...], Location | None]]:
    """Every leaf as its full path of words from the top of the hierarchy (lists spelled out one item per
    path), with where it was read: curly and set text of one configuration give the same paths.  `tops`: only
    the hierarchies starting with one of these words (what an interpreter reads of a whole configuration)."""
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
        if tops is None or (s.words and s.words[0].text in tops):
            leaf((), s)
    return out
