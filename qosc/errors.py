"""The one exception family of qosc.

    QoscError                     everything qosc raises on purpose
      InputError                  the input is wrong: carries located diagnostics (loading, schema, includes)
        UnsafeValue               a value that would break out of its line in a configuration (QOS100)
      TargetBug                   a target produced what its own grammar refuses, or broke an invariant (QOS199)
      VerificationUnavailable     an explicit verification (--verify) cannot run on this machine where it must (QOS146)
      PushError                   a push step failed on a device; `stage` says which, and the type too:
        ConnectError LockError LoadError CompareError CommitError VerifyError ConfirmError RollbackError
        RolledBack                the step failed and the driver already restored the previous configuration

Stages never raise a traceback at a user: the pipeline turns InputError and
UnsafeValue into their diagnostics, TargetBug into QOS199 at the policy line
the refused statement came from, VerificationUnavailable into QOS146, and the push runner turns PushError into a
per-device result.  Anything else that escapes is a bug.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from qosc.diagnostics import Diagnostic


class QoscError(Exception):
    """Base of every error qosc raises on purpose."""


class InputError(QoscError):
    """Raised by a stage that cannot go on because of its input; carries the diagnostics that explain why."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics))


class UnsafeValue(QoscError, ValueError):
    """A value that would break out of its line in the generated config."""


class TargetBug(QoscError):
    """A rendered configuration failed its target's grammar or an invariant of the lowering: a qosc bug."""

    def __init__(self, message: str, violations: Iterable[Any] = ()):
        self.violations = list(violations)
        super().__init__(message)


class VerificationUnavailable(QoscError):
    """A verification that was asked for (--verify) cannot run on this machine, where it must (under CI): not a
    qosc bug, and not a finding about the configuration."""


class PushError(QoscError):
    """A push step failed on a device.  `stage` is where (open, lock, load, compare, commit, verify, confirm...).

    `PushError(stage, message)` makes the subclass of that stage (CommitError
    for "commit", ...), so callers can catch by type or read `stage`.
    """

    stage_name = ""

    def __new__(cls, stage: str = "", message: str = "") -> PushError:  # noqa: PYI034 - picks the stage's subclass
        if cls is PushError:
            cls = _BY_STAGE.get(stage, PushError)
        return super().__new__(cls)

    def __init__(self, stage: str, message: str):
        self.stage = stage
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.stage, str(self)))


class ConnectError(PushError):
    stage_name = "open"


class LockError(PushError):
    stage_name = "lock"


class LoadError(PushError):
    stage_name = "load"


class CompareError(PushError):
    stage_name = "compare"


class CommitError(PushError):
    stage_name = "commit"


class VerifyError(PushError):
    stage_name = "verify"


class ConfirmError(PushError):
    stage_name = "confirm"


class RollbackError(PushError):
    stage_name = "rollback"


class RolledBack(PushError):
    """The step failed and the driver has already restored the previous configuration."""

    def __new__(cls, stage: str = "", message: str = "") -> RolledBack:  # noqa: PYI034
        return Exception.__new__(cls)


_BY_STAGE: dict[str, type[PushError]] = {
    c.stage_name: c for c in (ConnectError, LockError, LoadError, CompareError, CommitError, VerifyError,
                              ConfirmError, RollbackError)
}
_BY_STAGE["connect"] = ConnectError
