"""Tests for qosc.units: exact parsing, helpful errors, and exact round trips."""

from __future__ import annotations

import contextlib
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qosc.units import (
    MAX_RATE,
    MAX_SIZE,
    MAX_TIME,
    Percent,
    UnitError,
    format_rate,
    format_size,
    format_time,
    parse_percent,
    parse_rate,
    parse_size,
    parse_time,
)

# Anything a YAML loader (or a careless caller) might hand over.
ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.decimals(allow_nan=True, allow_infinity=True),
    st.fractions(),
    st.sampled_from([Fraction(10**5000), Fraction(1, 10**5000), 10**5000, -(10**5000)]),
    st.text(),
    st.from_regex(r"\s*[+-]?[0-9]{0,30}(\.[0-9]{0,30})?\s*[a-zA-Zµμ/%]{0,6}\s*", fullmatch=True),
    st.binary(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.builds(Percent, st.floats(0, 100)),
)


@pytest.mark.parametrize(
    ("text", "bps"),
    [
        (0, 0), ("0", 0), (1000, 1000), ("1000", 1000), ("7", 7),
        ("64k", 64_000), ("64K", 64_000), ("10M", 10_000_000), ("10 M", 10_000_000),
        ("2.5G", 2_500_000_000), ("0.1M", 100_000), ("1T", 10**12), (".5k", 500),
        ("10Mbps", 10_000_000), ("64kbps", 64_000), ("1Gbps", 10**9), ("1Tbps", 10**12),
        ("10Mbit/s", 10_000_000), ("10Mb/s", 10_000_000), ("10Mbit", 10_000_000), ("100bps", 100),
        ("  2.5G  ", 2_500_000_000), ("1000T", MAX_RATE), (1e9, 10**9), (Decimal("2.5e3"), 2500),
    ],
)  # fmt: skip
def test_parse_rate(text: object, bps: int) -> None:
    assert parse_rate(text) == bps


def test_parse_rate_percent() -> None:
    assert parse_rate("5%") == Percent(5.0)
    assert parse_rate("12.5 %") == Percent(12.5)
    assert parse_rate("0%") == Percent(0.0)
    assert parse_rate(Percent(20.0)) == Percent(20.0)
    with pytest.raises(UnitError, match="absolute rate"):
        parse_rate("5%", allow_percent=False)
    with pytest.raises(UnitError, match="absolute rate"):
        parse_rate(Percent(5.0), allow_percent=False)


@pytest.mark.parametrize(
    "bad",
    ["10 Mbits", "10MB", "10Mbps/s", "M", "", "   ", "1,000", "1e9", "ten", "10 M bps", "1_000", "0x10", "--1", "1.2.3",
     "١٠M", None, [10], {"rate": 1}, b"10M", float("inf"), float("nan"), Decimal("NaN"), "101%"],  # noqa: RUF001 - non-ASCII digits on purpose
)  # fmt: skip
def test_parse_rate_invalid(bad: object) -> None:
    with pytest.raises(UnitError) as info:
        parse_rate(bad)
    assert info.value.hint


def test_rate_error_message_and_hint() -> None:
    with pytest.raises(UnitError) as info:
        parse_rate("10 Mbits")
    assert info.value.message == "invalid rate '10 Mbits'"
    assert info.value.hint == "write a rate like 10M, 2.5G, 64k or 5%"
    assert str(info.value) == "invalid rate '10 Mbits'"


@pytest.mark.parametrize("bad", ["10m", "10mbps", "10 mbit/s"])
def test_lowercase_m_is_refused(bad: str) -> None:
    with pytest.raises(UnitError) as info:
        parse_rate(bad)
    assert "use M for megabit/s" in (info.value.hint or "")


@pytest.mark.parametrize("bad", [True, False])
def test_bool_is_not_a_number(bad: bool) -> None:
    for parse in (parse_rate, parse_size, parse_time, parse_percent):
        with pytest.raises(UnitError, match="yes/no"):
            parse(bad)


def test_rate_limits() -> None:
    with pytest.raises(UnitError, match="negative"):
        parse_rate("-1M")
    with pytest.raises(UnitError, match="negative"):
        parse_rate(-5)
    with pytest.raises(UnitError, match="maximum"):
        parse_rate(MAX_RATE + 1)
    with pytest.raises(UnitError, match="maximum"):
        parse_rate("1001T")
    with pytest.raises(UnitError, match="maximum"):
        parse_rate(10**5000)
    with pytest.raises(UnitError, match="maximum"):
        parse_rate("9" * 5000)


def test_rate_must_be_whole() -> None:
    with pytest.raises(UnitError, match="whole") as info:
        parse_rate("1.0000001k")
    assert info.value.hint == "rates are whole bit/s: write 1k or 1001"
    with pytest.raises(UnitError, match="whole"):
        parse_rate(2.5)
    with pytest.raises(UnitError, match="whole"):
        parse_rate(Fraction(1, 3))


@pytest.mark.parametrize(
    ("text", "nbytes"),
    [
        (1500, 1500), ("1500", 1500), ("1500B", 1500), ("1500 B", 1500), ("64KB", 64_000), ("64kB", 64_000),
        ("64k", 64_000), ("64K", 64_000), ("2.5MB", 2_500_000), ("2.5M", 2_500_000), ("1GB", 10**9), ("1G", 10**9),
        ("64KiB", 65_536), ("1MiB", 2**20), ("1GiB", 2**30), ("1.5KiB", 1536), ("1024GiB", MAX_SIZE), (0, 0),
    ],
)  # fmt: skip
def test_parse_size(text: object, nbytes: int) -> None:
    assert parse_size(text) == nbytes


@pytest.mark.parametrize("bad", ["64Kb", "64kb", "10b", "1Mbit", "1.5B", "1.1KiB", "-1B", "1025GiB", "1TB", "1kib",
                                 "5%"])
def test_parse_size_invalid(bad: str) -> None:
    with pytest.raises(UnitError) as info:
        parse_size(bad)
    assert info.value.hint


def test_parse_size_percent() -> None:
    assert parse_size("20%", allow_percent=True) == Percent(20.0)
    with pytest.raises(UnitError, match="bytes, not bits"):
        parse_size("64Kb")


@pytest.mark.parametrize(
    ("text", "us"),
    [("10ms", 10_000), ("14.5 ms", 14_500), ("500us", 500), ("5µs", 5), ("5μs", 5), ("2s", 2_000_000),
     ("0.5s", 500_000), ("0ms", 0), ("3600s", MAX_TIME), ("1.001ms", 1001)],
)  # fmt: skip
def test_parse_time(text: str, us: int) -> None:
    assert parse_time(text) == us


@pytest.mark.parametrize("bad", ["10", 10, 10.0, "10 sec", "1h", "10MS", "1.0005ms", "0.5us", "-1ms", "3601s", "10m"])
def test_parse_time_invalid(bad: object) -> None:
    with pytest.raises(UnitError) as info:
        parse_time(bad)
    assert info.value.hint


def test_bare_time_hint() -> None:
    with pytest.raises(UnitError, match="no unit") as info:
        parse_time(10)
    assert "write 10ms" in (info.value.hint or "")


@pytest.mark.parametrize(("text", "value"), [("5%", 5.0), ("12.5%", 12.5), ("0%", 0.0), ("100%", 100.0), (" 7 %", 7.0)])
def test_parse_percent(text: str, value: float) -> None:
    assert parse_percent(text) == Percent(value)


@pytest.mark.parametrize("bad", [5, "5", 0.5, "101%", "-1%", "5 percent", "%", "5%%"])
def test_parse_percent_invalid(bad: object) -> None:
    with pytest.raises(UnitError) as info:
        parse_percent(bad)
    assert info.value.hint


def test_bare_percent_hint() -> None:
    with pytest.raises(UnitError) as info:
        parse_percent(5)
    assert "5%" in (info.value.hint or "")


def test_percent_of_is_exact() -> None:
    assert Percent(12.5).of(1_000_000_000) == 125_000_000
    assert Percent(5.0).of(10**15) == 5 * 10**13
    assert Percent(0.0).of(10**9) == 0
    assert Percent(100.0).of(7) == 7
    assert Percent(50.0).of(3) == 2  # round() is half-to-even: 1.5 -> 2
    assert isinstance(Percent(33.3).of(100), int)
    assert str(Percent(5.0)) == "5%" and str(Percent(12.5)) == "12.5%"
    assert Percent(5.0) < Percent(12.5)


@pytest.mark.parametrize(
    ("bps", "text"),
    [(2_500_000_000, "2.5G"), (10_000_000, "10M"), (1500, "1.5k"), (7, "7"), (0, "0"), (1000, "1k"),
     (100, "100"), (64_000, "64k"), (10**12, "1T"), (MAX_RATE, "1000T")],
)  # fmt: skip
def test_format_rate(bps: int, text: str) -> None:
    assert format_rate(bps) == text


@pytest.mark.parametrize(
    ("nbytes", "text"),
    [(2_500_000, "2.5MB"), (64_000, "64KB"), (1500, "1500B"), (0, "0B"), (65_536, "64KiB"), (2**20, "1MiB")],
)
def test_format_size(nbytes: int, text: str) -> None:
    assert format_size(nbytes) == text


@pytest.mark.parametrize(("us", "text"), [(14_500, "14.5ms"), (2_000_000, "2s"), (100, "100us"), (0, "0us")])
def test_format_time(us: int, text: str) -> None:
    assert format_time(us) == text


@pytest.mark.parametrize("fmt", [format_rate, format_size, format_time])
@pytest.mark.parametrize("bad", [-1, True, 1.5])
def test_format_refuses_non_values(fmt: object, bad: object) -> None:
    with pytest.raises(ValueError):
        fmt(bad)  # type: ignore[operator]


@given(st.integers(0, MAX_RATE))
def test_rate_round_trip(n: int) -> None:
    assert parse_rate(format_rate(n)) == n
    assert len(format_rate(n)) <= len(str(n))


@given(st.integers(0, MAX_SIZE))
def test_size_round_trip(n: int) -> None:
    assert parse_size(format_size(n)) == n


@given(st.integers(0, MAX_TIME))
def test_time_round_trip(n: int) -> None:
    assert parse_time(format_time(n)) == n


@given(st.integers(0, 10**6).map(lambda k: k / 10**4))
def test_percent_round_trip(value: float) -> None:
    assert parse_percent(f"{value}%") == Percent(value)


@given(ANYTHING)
def test_parsers_raise_only_unit_error(value: object) -> None:
    for parse in (parse_rate, parse_size, parse_time, parse_percent):
        try:
            result = parse(value)  # type: ignore[operator]
        except UnitError as err:
            assert err.message and err.hint
        else:
            assert isinstance(result, (int, Percent)) and not isinstance(result, bool)


@given(ANYTHING)
def test_rate_without_percent_is_int(value: object) -> None:
    with contextlib.suppress(UnitError):
        assert isinstance(parse_rate(value, allow_percent=False), int)
