"""The statement tree: the one typed form every target lowers to and every serializer writes from.

Between the model (canonical units, no vendor words) and the text of a
configuration sits a tree of statements.  A statement is a tuple of typed
words (a keyword, a name, an integer, a rate, a DSCP as the dialect spells
it, ...), optional children, an optional comment for the reader, and its
origin in the policy, so every generated line can name the policy line it
came from.  Grammars validate the tree (qosc.grammar), serializers write it
(one walk per dialect: JUNOS curly, set and NETCONF XML cannot disagree),
and parsers read configurations back into the same tree (import, verify).

Every word is checked when it is made: no word, comment or header line can
carry a line break or control character, so no value in a policy can ever
start a line of configuration, whatever the serializer does.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from qosc.diagnostics import Location
from qosc.render import UnsafeValue, safe

_SPACE = re.compile(r"\s")


class Kind(enum.Enum):
    """What a word is: grammars check values by kind, parsers read them back by kind."""

    KEYWORD = "keyword"
    NAME = "name"          # an identifier the configuration defines or refers to
    INTEGER = "integer"
    DECIMAL = "decimal"
    RATE = "rate"          # value: bit/s
    SIZE = "size"          # value: bytes
    TIME = "time"          # value: microseconds
    PERCENT = "percent"    # value: float percent
    DSCP = "dscp"          # value: the code point 0..63, text: as the dialect spells it
    PREFIX = "prefix"      # value: the prefix text (IPv4 or IPv6, no zone)
    ADDRESS = "address"
    PORT = "port"          # value: (low, high)
    TEXT = "text"          # free text (descriptions): serializers quote it
    GROUP = "group"        # several values of one slot (JUNOS `[ a b ]`); value: the words


@dataclass(frozen=True, slots=True)
class Word:
    """One typed word of a statement.

    `text` is the spelling in the dialect; `value` the canonical value the
    word stands for (bit/s, bytes, the DSCP number...), for grammars and
    for reading configurations back; `tag` the name the dialect's schema
    gives the slot, where it has one (the YANG leaf of a keyword-less JUNOS
    value, used by the NETCONF XML serializer).
    """

    kind: Kind
    text: str
    value: Any = None
    tag: str | None = None

    def __post_init__(self) -> None:
        if self.kind is Kind.GROUP:
            if not all(isinstance(w, Word) for w in self.value):
                raise TypeError("a group holds words")
        elif type(self.text) is not str or not self.text:
            raise UnsafeValue(f"empty or non-text word {self.text!r} ({self.kind.value})")
        else:
            safe(self.text)
            if self.kind is not Kind.TEXT and _SPACE.search(self.text):
                raise UnsafeValue(f"refusing to render {self.text[:40]!r} as one {self.kind.value}: it contains "
                                  "white space")

    @property
    def words(self) -> tuple[Word, ...]:
        """The words of a group (a word on its own is a group of one)."""
        return tuple(self.value) if self.kind is Kind.GROUP else (self,)

    def __str__(self) -> str:
        if self.kind is Kind.GROUP:
            return " ".join(str(w) for w in self.value)
        return self.text


def kw(text: str) -> Word:
    return Word(Kind.KEYWORD, text)


def name(text: str, tag: str | None = None) -> Word:
    return Word(Kind.NAME, text, text, tag)


def integer(value: int, tag: str | None = None, text: str | None = None) -> Word:
    return Word(Kind.INTEGER, str(value) if text is None else text, int(value), tag)


def decimal(value: float, text: str, tag: str | None = None) -> Word:
    return Word(Kind.DECIMAL, text, float(value), tag)


def rate(bps: int, text: str | None = None, tag: str | None = None) -> Word:
    return Word(Kind.RATE, str(bps) if text is None else text, int(bps), tag)


def size(nbytes: int, text: str | None = None, tag: str | None = None) -> Word:
    return Word(Kind.SIZE, str(nbytes) if text is None else text, int(nbytes), tag)


def time_us(us: int, text: str | None = None, tag: str | None = None) -> Word:
    return Word(Kind.TIME, str(us) if text is None else text, int(us), tag)


def percent(value: float, text: str, tag: str | None = None) -> Word:
    return Word(Kind.PERCENT, text, float(value), tag)


def dscp(code: int, text: str, tag: str | None = None) -> Word:
    if not 0 <= int(code) <= 63:
        raise ValueError(f"DSCP {code} outside 0..63")
    return Word(Kind.DSCP, text, int(code), tag)


def prefix(text: str, tag: str | None = None) -> Word:
    return Word(Kind.PREFIX, text, text, tag)


def address(text: str, tag: str | None = None) -> Word:
    return Word(Kind.ADDRESS, text, text, tag)


def port(low: int, high: int, text: str, tag: str | None = None) -> Word:
    return Word(Kind.PORT, text, (int(low), int(high)), tag)


def text(value: str, tag: str | None = None) -> Word:
    return Word(Kind.TEXT, value, value, tag)


def group(words: Iterable[Word], tag: str | None = None) -> Word:
    items = tuple(words)
    return Word(Kind.GROUP, " ".join(w.text for w in items), items, tag)


class At:
    """A lazy origin: the policy location of `names` in an entity's `where` (qosc.model.Where).

    Looking a field up costs a walk of the loader's marked nodes; a large
    network makes millions of statements and only a diagnostic or a diff
    ever asks where one came from, so the lookup waits until then.
    """

    __slots__ = ("_loc", "names", "where")

    def __init__(self, where: Any, *names: str) -> None:
        self.where = where
        self.names = names
        self._loc: Location | bool | None = False

    @property
    def location(self) -> Location | None:
        if self._loc is False:
            self._loc = self.where.at(*self.names) if self.where is not None else None
        return self._loc  # type: ignore[return-value]

    def __reduce__(self) -> tuple[Callable[..., Location | None], tuple[Any, ...]]:
        # travel between processes as the location itself, never as the loader's nodes
        return (_same, (self.location,))


def _same(value: Location | None) -> Location | None:
    return value


Origin = Location | At


def locate(origin: Origin | None) -> Location | None:
    """The policy location of an origin (resolving a lazy one)."""
    if origin is None or isinstance(origin, Location):
        return origin
    return origin.location


@dataclass(frozen=True, slots=True)
class Statement:
    """A statement: typed words, children (None for a leaf, a tuple for a block), comment lines, an origin.

    The comment is for the reader of the configuration (why a value is what
    it is); serializers of dialects with comments put it before the statement.
    """

    words: tuple[Word, ...]
    children: tuple[Statement, ...] | None = None
    comment: tuple[str, ...] = ()
    origin: Origin | None = None

    def __post_init__(self) -> None:
        for line in self.comment:
            safe(line)

    @property
    def keyword(self) -> str:
        return self.words[0].text if self.words else ""

    @property
    def is_block(self) -> bool:
        return self.children is not None

    def texts(self) -> tuple[str, ...]:
        """The words as text, groups spelled out."""
        words = self.words
        if not any(w.kind is Kind.GROUP for w in words):  # the common case, on every serializer's hot path
            return tuple([w.text for w in words])
        return tuple(w.text for word in words for w in word.words)

    def find(self, *words: str) -> Statement | None:
        """The first child whose leading words are `words`."""
        for child in self.children or ():
            if child.texts()[:len(words)] == words:
                return child
        return None


def stmt(*words: Word | str, children: Iterable[Statement] | None = None, comment: str | Iterable[str] = (),
         origin: Origin | None = None) -> Statement:
    """A statement; plain strings are keywords, a comment may be one line or several."""
    typed = tuple(kw(w) if isinstance(w, str) else w for w in words)
    lines = (comment,) if isinstance(comment, str) else tuple(comment)
    return Statement(typed, None if children is None else tuple(children), lines, origin)


@dataclass(frozen=True)
class Document:
    """The statement tree of one configuration: what one target lowers one device (or interface) to.

    `stem` names the output files (the serializer adds the suffix);
    `header` holds comment lines for the top of every format that has
    comments; `origin` is where the document as a whole comes from.
    """

    stem: str
    dialect: str
    statements: tuple[Statement, ...]
    header: tuple[str, ...] = ()
    origin: Origin | None = None

    def __post_init__(self) -> None:
        for line in self.header:
            safe(line)


def walk(statements: Iterable[Statement], path: tuple[Statement, ...] = ()) -> Iterator[tuple[Statement, ...]]:
    """Every statement with its ancestors, depth first, in order: (root, ..., statement)."""
    stack: list[tuple[tuple[Statement, ...], Iterator[Statement]]] = [(path, iter(statements))]
    while stack:
        above, items = stack[-1]
        nxt = next(items, None)
        if nxt is None:
            stack.pop()
            continue
        here = (*above, nxt)
        yield here
        if nxt.children:
            stack.append((here, iter(nxt.children)))


def origin_of(path: tuple[Statement, ...]) -> Origin | None:
    """The nearest origin along a statement's path (a statement inherits its parent's)."""
    for s in reversed(path):
        if s.origin is not None:
            return s.origin
    return None


@dataclass(frozen=True)
class Rendered:
    """Serialized text and its source map: the policy origin of every line (None for structure lines)."""

    text: str
    origins: tuple[Origin | None, ...] = field(default=(), compare=False)

    def origin(self, line: int) -> Location | None:
        """The policy location line `line` (1-based) came from."""
        if 1 <= line <= len(self.origins):
            return locate(self.origins[line - 1])
        return None

    def resolved(self) -> Rendered:
        """The same text with every origin looked up (to send across processes or keep past the model)."""
        return Rendered(self.text, tuple(locate(o) for o in self.origins))


class Writer:
    """Lines and their origins, for serializers: `line(text, origin)`, then `done()`."""

    __slots__ = ("lines", "origins")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.origins: list[Origin | None] = []

    def line(self, text: str, origin: Origin | None = None) -> None:
        self.lines.append(text)
        self.origins.append(origin)

    def done(self) -> Rendered:
        return Rendered("\n".join(self.lines) + "\n" if self.lines else "", tuple(self.origins))
