"""Tests for qosc.dscp: the codepoint table, every spelling, and helpful errors."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosc.dscp import (
    NAMES,
    DscpError,
    af_class,
    bits,
    drop_precedence,
    is_scavenger,
    name,
    parse_dscp,
    precedence,
    tos,
)

# name, DSCP, TOS byte, IP precedence -- straight from RFC 4594 / 8622 / 5865 tables.
TABLE = [
    ("default", 0, 0x00, 0), ("be", 0, 0x00, 0), ("cs0", 0, 0x00, 0), ("le", 1, 0x04, 0),
    ("cs1", 8, 0x20, 1), ("af11", 10, 0x28, 1), ("af12", 12, 0x30, 1), ("af13", 14, 0x38, 1),
    ("cs2", 16, 0x40, 2), ("af21", 18, 0x48, 2), ("af22", 20, 0x50, 2), ("af23", 22, 0x58, 2),
    ("cs3", 24, 0x60, 3), ("af31", 26, 0x68, 3), ("af32", 28, 0x70, 3), ("af33", 30, 0x78, 3),
    ("cs4", 32, 0x80, 4), ("af41", 34, 0x88, 4), ("af42", 36, 0x90, 4), ("af43", 38, 0x98, 4),
    ("cs5", 40, 0xA0, 5), ("voice-admit", 44, 0xB0, 5), ("ef", 46, 0xB8, 5),
    ("cs6", 48, 0xC0, 6), ("nc1", 48, 0xC0, 6), ("cs7", 56, 0xE0, 7), ("nc2", 56, 0xE0, 7),
]  # fmt: skip


@pytest.mark.parametrize(("label", "dscp", "tos_byte", "prec"), TABLE)
def test_table(label: str, dscp: int, tos_byte: int, prec: int) -> None:
    assert NAMES[label] == dscp
    assert parse_dscp(label) == dscp
    assert parse_dscp(label.upper()) == dscp
    assert tos(dscp) == tos_byte
    assert precedence(dscp) == prec
    assert bits(dscp) == format(dscp, "06b")


def test_names_is_exactly_the_table() -> None:
    assert dict(NAMES) == {label: dscp for label, dscp, _, _ in TABLE}
    assert all(key == key.lower() for key in NAMES)
    with pytest.raises(TypeError):
        NAMES["ef"] = 0  # type: ignore[index]


@pytest.mark.parametrize(("x", "y"), [(x, y) for x in range(1, 5) for y in range(1, 4)])
def test_af_formula(x: int, y: int) -> None:
    dscp = parse_dscp(f"AF{x}{y}")
    assert dscp == 8 * x + 2 * y
    assert af_class(dscp) == x
    assert drop_precedence(dscp) == y


@pytest.mark.parametrize(
    ("text", "dscp"),
    [(" ef ", 46), ("Ef", 46), ("46", 46), ("046", 46), ("0", 0), ("101110", 46), ("000000", 0), ("111111", 63),
     ("0x2e", 46), ("0X2E", 46), ("0b101110", 46), ("0b1", 1), ("voice_admit", 44), ("VOICE-ADMIT", 44), (46, 46),
     (0, 0), (63, 63)],
)  # fmt: skip
def test_parse_spellings(text: object, dscp: int) -> None:
    assert parse_dscp(text) == dscp


def test_six_char_binary_wins_over_decimal() -> None:
    assert parse_dscp("000010") == 2
    assert parse_dscp("100000") == 32
    assert parse_dscp("10") == 10


@pytest.mark.parametrize("bad", [64, "64", -1, "-1", "0x40", "1000000", "0b1000000", 10**100, "9" * 5000])
def test_out_of_range(bad: object) -> None:
    with pytest.raises(DscpError, match=r"out of range 0\.\.63"):
        parse_dscp(bad)


def test_out_of_range_message() -> None:
    with pytest.raises(DscpError) as info:
        parse_dscp(64)
    assert info.value.message == "DSCP 64 is out of range 0..63"
    assert str(info.value) == info.value.message and info.value.hint


@pytest.mark.parametrize("bad", [True, False, None, 46.0, 46.5, float("nan"), [46], {"ef": 46}, b"ef", Decimal(46)])
def test_wrong_types(bad: object) -> None:
    with pytest.raises(DscpError) as info:
        parse_dscp(bad)
    assert info.value.hint


def test_did_you_mean() -> None:
    with pytest.raises(DscpError) as info:
        parse_dscp("efx")
    assert info.value.message == "unknown DSCP 'efx'"
    assert info.value.hint == "did you mean 'ef'?"
    with pytest.raises(DscpError) as info:
        parse_dscp("af14")
    assert "af13" in (info.value.hint or "") and "af41" in (info.value.hint or "")
    with pytest.raises(DscpError) as info:
        parse_dscp("cs8")
    assert "cs" in (info.value.hint or "")
    with pytest.raises(DscpError) as info:
        parse_dscp("gold")
    assert "af11-af43" in (info.value.hint or "")


@pytest.mark.parametrize(
    ("dscp", "generic", "junos"),
    [(0, "default", "be"), (1, "le", "le"), (8, "cs1", "cs1"), (10, "af11", "af11"), (44, "voice-admit", "voice-admit"),
     (46, "ef", "ef"), (48, "cs6", "cs6"), (56, "cs7", "cs7"), (2, "2", "2"), (63, "63", "63")],
)  # fmt: skip
def test_name(dscp: int, generic: str, junos: str) -> None:
    assert name(dscp) == generic
    assert name(dscp, "ios") == generic
    assert name(dscp, "junos") == junos


def test_name_refuses_bad_input() -> None:
    with pytest.raises(DscpError, match="dialect"):
        name(46, "eos")
    with pytest.raises(DscpError):
        name(64)
    with pytest.raises(DscpError):
        name(True)  # type: ignore[arg-type]


def test_helpers() -> None:
    assert bits(46) == "101110" and bits(0) == "000000"
    assert tos(46) == 0xB8
    assert precedence(46) == 5
    assert af_class(10) == 1 and af_class(36) == 4 and af_class(46) is None and af_class(8) is None
    assert drop_precedence(14) == 3 and drop_precedence(46) == 1 and drop_precedence(0) == 1
    assert is_scavenger(8) and is_scavenger(1) and not is_scavenger(0) and not is_scavenger(10)
    for helper in (bits, tos, precedence, af_class, drop_precedence, is_scavenger):
        with pytest.raises(DscpError):
            helper(64)


@pytest.mark.parametrize("dscp", range(64))
def test_round_trips(dscp: int) -> None:
    for dialect in ("generic", "ios", "junos"):
        assert parse_dscp(name(dscp, dialect)) == dscp
    assert parse_dscp(bits(dscp)) == dscp
    assert parse_dscp(hex(dscp)) == dscp
    assert parse_dscp(bin(dscp)) == dscp
    assert parse_dscp(str(dscp)) == dscp
    assert tos(dscp) >> 2 == dscp and precedence(dscp) == tos(dscp) >> 5


ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=True, allow_infinity=True),
    st.text(),
    st.from_regex(r"\s*(0[xXbB])?[0-9a-fA-F_\-]{0,8}\s*", fullmatch=True),
    st.sampled_from(sorted(NAMES)).map(lambda n: n + "x"),
    st.binary(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@given(ANYTHING)
def test_parse_raises_only_dscp_error(value: object) -> None:
    try:
        result = parse_dscp(value)
    except DscpError as err:
        assert err.message and err.hint
    else:
        assert isinstance(result, int) and not isinstance(result, bool) and 0 <= result <= 63


@given(st.integers())
def test_parse_int(value: int) -> None:
    if 0 <= value <= 63:
        assert parse_dscp(value) == value
    else:
        with pytest.raises(DscpError, match="out of range"):
            parse_dscp(value)
