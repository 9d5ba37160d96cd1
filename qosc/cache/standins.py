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
    """A device the memo did not build again: all the orchestrator asks of a unit whose work the memo has, and
    the fingerprint of its inputs (`fp`, what its units' keys are made of)."""

    __slots__ = ("fp", "name", "platform", "where")
    stand_in = True

    def __init__(self, name: str, platform: str, where: Where, fp: str = "") -> None:
        self.name, self.platform, self.where, self.fp = name, platform, where, fp


def _stand_in(name: str, platform: str, policy: str, line: int, column: int, fp: str) -> Cached:
    return Cached(name, platform, Where(Location(policy, line, column)), fp)


_KEPT_INS: dict[str, Cached] = {}


def _stand_ins(name: str, platform: str, policy: str, line: int, column: int, fp: str) -> Cached:
    """_stand_in, kept for the next compile in this process (the compile server): a stand-in is read-only."""
    found = _KEPT_INS.get(name)
    loc = found.where.loc if found is not None else None
    if found is None or loc is None or (found.platform, found.fp, loc.line, loc.column, loc.file) != (
            platform, fp, line, column, policy):
        if len(_KEPT_INS) >= 1 << 18:
            _KEPT_INS.clear()
        found = _KEPT_INS[name] = _stand_in(name, platform, policy, line, column, fp)
    return found
