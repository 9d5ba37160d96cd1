"""The render filter: no value may start a new line of config."""

from __future__ import annotations

import pytest

from qosc.render import UnsafeValue, quoted, safe


@pytest.mark.parametrize("value", ["a\nb", "a\rb", "a\u2028b", "a\u2029b", "a\x00b", "a\x1bb", "a\x85b", "a\u200bb"])
def test_line_breaks_and_controls_are_refused(value: str) -> None:
    with pytest.raises(UnsafeValue):
        safe(value)


def test_plain_values_pass_and_quotes_are_neutralised() -> None:
    assert safe(46) == "46"
    assert safe("so-1/2/0") == "so-1/2/0"
    assert quoted('say "hi" \\ bye') == "\"say 'hi' / bye\""
    with pytest.raises(UnsafeValue):
        safe(None)
