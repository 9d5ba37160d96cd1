"""A configuration as every reader takes it: decoded with a located error, bounded, and free of characters that
display differently from what they are.

The readers (qosc/targets/*/read) are the boundary between a device's text and
qosc: a file saved on Windows (a UTF-8 byte-order mark, CRLF line ends, or
UTF-16), one byte that is not UTF-8, a 50 MB capture, braces nested a
thousand deep, or a name holding a NUL, an escape, a zero-width space or a
bidi override must each end in a located diagnostic, never a traceback, and
in time and memory linear in the size of the text.

- `read_bounded(path)`: at most `ReadLimits.max_bytes` bytes are read
  (QOS200 past them, nothing more is read), then `decode`.
- `decode(data)`: UTF-8 (a byte-order mark dropped; UTF-16 with its mark
  accepted); a byte that is not UTF-8 is QOS006 at its line and column.
- `prepare(text)`: every parser calls it first: the size limit (QOS200), the
  mark dropped, CRLF and CR line ends made LF, and control characters (but
  tab and line ends), format characters (zero-width, bidi embeddings,
  overrides and isolates, tags) and line or paragraph separators refused
  (QOS179 at their line and column, the code point named): the policy
  language refuses them in names, and a name that reads as another is how a
  configuration hides what it does (Trojan Source, CVE-2021-42574).
- `Lines`: offsets to line and column in O(log n), for parsers that tokenise
  the whole text.
"""

from __future__ import annotations

import bisect
import os
import re
import unicodedata
from dataclasses import dataclass

from qosc.diagnostics import Diagnostic, Location, Severity, error
from qosc.errors import InputError


@dataclass(frozen=True)
class ReadLimits:
    """What a reader accepts (the policy loader's limits, qosc.yamlsafe.Limits, are of the same size)."""

    max_bytes: int = 32 * 1024 * 1024
    """Bytes (characters, once decoded) of one configuration: a whole router's configuration is a few MB."""
    max_depth: int = 64
    """Levels of nesting: JUNOS braces, XML elements, JSON arrays and objects (real configurations use ~15)."""


LIMITS = ReadLimits()

_BOM = "\ufeff"
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e"
                        "\u2060-\u2069\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]")
"""Control characters but tab, LF and CR; soft hyphen, Arabic letter mark, Mongolian vowel separator; zero-width
space, joiners and marks; line and paragraph separators; bidi embeddings, overrides and isolates; word joiner and
invisible operators; a byte-order mark past the start; interlinear annotation; tag characters."""


def too_big(source: str, size: int, limits: ReadLimits = LIMITS) -> InputError:
    return InputError([error("QOS200", f"the configuration is {size} bytes, larger than the readers' limit of "
                             f"{limits.max_bytes} bytes", Location(source, 1, 1),
                             "read the hierarchies qosc owns only (JUNOS: class-of-service, firewall, interfaces; "
                             "IOS: show running-config | section policy-map|class-map|interface)")])


def too_deep(where: Location, limits: ReadLimits = LIMITS) -> InputError:
    return InputError([error("QOS200", f"the configuration is nested deeper than the readers' limit of "
                             f"{limits.max_depth} levels", where, "no device configuration nests this deep: is it "
                             "the file you meant?")])


def describe(ch: str) -> str:
    """'U+202E RIGHT-TO-LEFT OVERRIDE' (what a diagnostic names instead of printing the character)."""
    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'control character')}"


def unsafe_at(text: str) -> int | None:
    """The offset of the first character `prepare` refuses, or None."""
    m = _FORBIDDEN.search(text)
    return m.start() if m else None


def refused(ch: str, where: Location) -> InputError:
    return InputError([error("QOS179", f"configuration holds {describe(ch)}: qosc refuses control and invisible "
                             "characters, which make a name display as another", where,
                             "remove the character; if the device really holds it, rename the object on the device")])


def prepare(text: str, source: str, limits: ReadLimits = LIMITS) -> str:
    """The text a parser reads: size-checked, without a byte-order mark, with LF line ends, and refused (QOS179
    at the character) when it holds a control or invisible character."""
    if len(text) > limits.max_bytes:
        raise too_big(source, len(text), limits)
    if text.startswith(_BOM):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    at = unsafe_at(text)
    if at is not None:
        raise refused(text[at], Lines(text).at(source, at))
    return text


def decode(data: bytes, source: str) -> str:
    """UTF-8 text of a configuration (UTF-8 and UTF-16 byte-order marks honoured); a byte that is not UTF-8 is
    QOS006 at its line and column."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise InputError([error("QOS006", f"cannot read configuration {source}: it starts with a UTF-16 mark "
                                    "but is not UTF-16", Location(source, 1, 1), "save it as UTF-8")]) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = exc.start
        line = data.count(b"\n", 0, start) + 1
        begin = data.rfind(b"\n", 0, start) + 1
        column = len(data[begin:start].decode("utf-8", "replace")) + 1
        raise InputError([error("QOS006", f"cannot read configuration {source}: byte 0x{data[start]:02X} is not "
                                "UTF-8", Location(source, line, column),
                                "save the file as UTF-8 (a capture in Latin-1 or a Windows code page: iconv -f "
                                "latin1 -t utf-8)")]) from None


def read_bounded(path: str, limits: ReadLimits = LIMITS) -> str:
    """The text of a configuration file, reading at most `limits.max_bytes` + 1 bytes."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limits.max_bytes:
                raise too_big(path, size, limits)
            data = fh.read(limits.max_bytes + 1)
    except OSError as exc:
        raise InputError([Diagnostic("QOS006", Severity.ERROR, f"cannot read configuration {path}: "
                                     f"{exc.strerror or exc}", io=True)]) from None
    if len(data) > limits.max_bytes:
        raise too_big(path, len(data), limits)
    return decode(data, path)


class Lines:
    """Offsets of a text to 1-based line and column, by bisection over the line starts (built once, linear)."""

    __slots__ = ("starts",)

    def __init__(self, text: str) -> None:
        self.starts = [0]
        find = text.find
        at = find("\n")
        while at != -1:
            self.starts.append(at + 1)
            at = find("\n", at + 1)

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def at(self, source: str, offset: int) -> Location:
        line = bisect.bisect_right(self.starts, offset)
        return Location(source, line, offset - self.starts[line - 1] + 1)


READ_ERRORS = (ValueError, IndexError, KeyError, TypeError, ArithmeticError)
"""What a malformed value raises while a reader reads it (int('x'), a path shorter than its form, a DSCP name
that is not one: qosc.dscp.DscpError is a ValueError): `guard` names it at its statement."""


class guard:
    """Read one statement; a malformed value in it is a located QOS172 naming what was seen, not a traceback,
    and the reader goes on with the next statement."""

    __slots__ = ("diagnostics", "what", "where")

    def __init__(self, diagnostics: list[Diagnostic], what: str | tuple[str, ...], where: Location | None) -> None:
        self.diagnostics, self.what, self.where = diagnostics, what, where
        """`what` names the statement; words (a path) are joined only when something goes wrong."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _tb: object) -> bool:
        if exc is None or not isinstance(exc, READ_ERRORS):
            return False
        reason = str(exc) or type(exc).__name__
        what = self.what if isinstance(self.what, str) else " ".join(self.what)
        self.diagnostics.append(Diagnostic("QOS172", Severity.WARNING, f"{what[:160]}: not read: a value "
                                           f"qosc cannot read ({reason[:120]})", self.where))
        return True
