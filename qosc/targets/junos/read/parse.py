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
limit are QOS185, an unterminated quoted string QOS179.
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


def parse_curly(text: str, source: str) -> tuple[Statement, ...]:
    text = _blank_noise(text)
    lines = Lines(text)
    stack: list[tuple[list[Word], Location | None, list[Statement]]] = [([], None, [])]
    words: list[Word] = []
    start: Location | None = None
    listing: list[Word] | None = None
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok[0] == "#" or tok.startswith("/*"):
            continue
        if tok == '"':
            raise _fail("a quoted string without its closing '\"'", lines.at(source, m.start()))
        if listing is not None:
            if tok == "]":
                words.append(group(listing))
                listing = None
            elif tok in "{};[":
                raise _fail(f"unexpected {tok!r} inside [ ]", lines.at(source, m.start()))
            else:
                listing.append(word(tok))
            continue
        if tok == "[":
            listing = []
        elif tok == "{":
            if not words:
                raise _fail("a block without a name", lines.at(source, m.start()))
            if len(stack) > LIMITS.max_depth:
                raise too_deep(lines.at(source, m.start()))
            stack.append((words, start, []))
            words, start = [], None
        elif tok == ";":
            if not words:
                raise _fail("an empty statement", lines.at(source, m.start()))
            stack[-1][2].append(Statement(tuple(words), origin=start))
            words, start = [], None
        elif tok == "}":
            if words:
                raise _fail(f"statement {' '.join(map(str, words))!r} without ';'", lines.at(source, m.start()))
            if len(stack) == 1:
                raise _fail("unbalanced '}'", lines.at(source, m.start()))
            head, at, children = stack.pop()
            if head[0].text != "inactive:":
                stack[-1][2].append(Statement(tuple(head), tuple(children), origin=at))
        elif tok in _TAGS and not words:
            continue
        else:
            if start is None:
                start = lines.at(source, m.start())
            if tok == "inactive:" and words:
                raise _fail("'inactive:' inside a statement", lines.at(source, m.start()))
            words.append(word(tok))
    if listing is not None or words or len(stack) > 1:
        raise _fail("unexpected end of configuration (missing '}' or ';')", lines.at(source, len(text)))
    return tuple(s for s in stack[0][2] if s.words[0].text != "inactive:")


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
