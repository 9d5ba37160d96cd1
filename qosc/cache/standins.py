"""Stand-ins: what the orchestrator sees of a device the incremental validation did not build again.

A stand-in has the device's name, platform and source location, all that
qosc.pipeline.orchestrate asks of a unit whose work the memo (qosc.cache.policy)
has; a process that compiles again and again (the compile server) keeps them
from one compile to the next, as they are read-only.
"""

from __future__ import annotations

from qosc.diagnostics import Location
from qosc.where import Where


class Cached:
    """A device the memo did not build again: all the orchestrator asks of a unit whose work the memo has."""

    __slots__ = ("name", "platform", "where")
    stand_in = True

    def __init__(self, name: str, platform: str, where: Where) -> None:
        self.name, self.platform, self.where = name, platform, where


def _stand_in(name: str, platform: str, policy: str, line: int, column: int) -> Cached:
    return Cached(name, platform, Where(Location(policy, line, column)))


_KEPT_INS: dict[tuple[str, str, str, int, int], Cached] = {}


def _stand_ins(name: str, platform: str, policy: str, line: int, column: int) -> Cached:
    """_stand_in, kept for the next compile in this process (the compile server): a stand-in is read-only."""
    key = (name, platform, policy, line, column)
    found = _KEPT_INS.get(key)
    if found is None:
        if len(_KEPT_INS) >= 1 << 18:
            _KEPT_INS.clear()
        found = _KEPT_INS[key] = _stand_in(*key)
    return found
