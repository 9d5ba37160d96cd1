"""The typed words of the tc batch dialect: devices, handles and class ids, rates, sizes, TOS bytes, masks.

Every value the lowering writes into a batch is made here, in tc's own
spelling (rates like ``10mbit``, handles in hex, the DSCP as the TOS byte
``0x20`` under the mask ``0xfc``) with its canonical value beside it
(qosc.tree.Word), so the grammar checks values by kind and the wrapper's
comments and the tests read the same words the batch is written from.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from qosc.tree import Kind, Word, dscp, integer, rate, size

Words = tuple[Word, ...]


def tc_rate(bps: int) -> str:
    """A rate as tc reads it, exactly (tc's kbit/mbit/gbit are powers of ten)."""
    for unit, factor in (("gbit", 10**9), ("mbit", 10**6), ("kbit", 10**3)):
        if bps >= factor and bps % factor == 0:
            return f"{bps // factor}{unit}"
    return f"{bps}bit"


def bitrate(bps: int) -> Word:
    return rate(bps, tc_rate(bps))


def nbytes(value: int) -> Word:
    return size(value)


def dev(ifname: str) -> Word:
    return Word(Kind.NAME, ifname, ifname, "dev")


def handle(major: int, minor: int = 0, tag: str = "handle") -> Word:
    """A qdisc handle `major:` (minor 0) or a class id `major:minor`, in hex as tc reads them."""
    text = f"{major:x}:" if minor == 0 and tag == "handle" else f"{major:x}:{minor:x}"
    return Word(Kind.NAME, text, (major, minor), tag)


def classid(major: int, minor: int) -> Word:
    return handle(major, minor, "classid")


def minor(value: int) -> Word:
    """A bare class minor (HTB `default`), hex."""
    return Word(Kind.INTEGER, f"{value:x}", value, "minor")


def tos(code: int) -> Word:
    """A DSCP as the TOS / traffic-class byte u32 and pedit compare and write (DSCP << 2)."""
    return dscp(code, f"0x{code << 2:02x}")


def mask(value: int, digits: int = 2) -> Word:
    return integer(value, "mask", f"0x{value:0{digits}x}")


@lru_cache(maxsize=1024)
def kws(text: str) -> Words:
    """Several keywords from one string (`"match ip dsfield"`); words are immutable, so each string is made once."""
    return tuple(Word(Kind.KEYWORD, t) for t in text.split())


def text_of(words: Iterable[Word]) -> str:
    return " ".join(w.text for w in words)
