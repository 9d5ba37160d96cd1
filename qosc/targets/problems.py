"""What a target's plan finds while it decides a device: located problems, which the target reports as
diagnostics after the lowering (JUNOS and SR OS plans keep them; the IOS lowerings use Findings)."""

from __future__ import annotations

from dataclasses import dataclass

from qosc.diagnostics import Location


@dataclass(frozen=True)
class Problem:
    code: str
    severity: str  # "error" | "warning" | "info"
    message: str
    location: Location | None
    hint: str | None = None


class Reports:
    """error / warn / note for a plan dataclass whose field `problems` collects them."""

    problems: list[Problem]

    def error(self, code: str, message: str, loc: Location | None, hint: str | None = None) -> None:
        self.problems.append(Problem(code, "error", message, loc, hint))

    def warn(self, code: str, message: str, loc: Location | None, hint: str | None = None) -> None:
        self.problems.append(Problem(code, "warning", message, loc, hint))

    def note(self, code: str, message: str, loc: Location | None, hint: str | None = None) -> None:
        """A platform fact the policy cannot change (qosc.diagnostics.info)."""
        self.problems.append(Problem(code, "info", message, loc, hint))
