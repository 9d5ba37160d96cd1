"""Where a model entity came from: the policy locations of an entity and of its fields, looked up lazily."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qosc.diagnostics import Location


@dataclass(frozen=True, eq=False)
class Where:
    """Source locations of an entity and of its fields, looked up lazily.

    `nodes` are the loader's marked mappings the entity was built from (a
    profile, then the interface overriding it); `at("queue.priority")` finds
    the field in the last node that has it.  Nothing is copied at build time,
    which keeps a 160,000-interface policy cheap to build.
    """

    loc: Location | None = None
    nodes: tuple[Any, ...] = ()

    def field(self, name: str) -> Location | None:
        for node in reversed(self.nodes):
            parts = name.split(".")
            for part in parts[:-1]:
                node = node.get(part) if isinstance(node, dict) else None
            locs = getattr(node, "value_locs", None)
            if locs and parts[-1] in locs:
                return locs[parts[-1]]
        return None

    def at(self, *names: str) -> Location | None:
        """The location of the first named field that has one, else the entity's."""
        for name in names:
            found = self.field(name)
            if found is not None:
                return found
        return self.loc


NOWHERE = Where()
