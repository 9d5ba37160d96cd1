"""The push contract every driver follows (the NAPALM-style load / compare / commit / confirm).

A driver talks to one device.  The runner calls, in order:

    open()                      connect, authenticate (host key verified), take the lock
    load(job)                   stage the qosc-owned configuration (candidate, or a plan of lines)
    compare() -> str            the device's own view of the difference ('' when nothing changes)
    commit(confirm_timeout)     apply; where the device can, a confirmed commit that reverts by itself
    confirm()                   make it permanent once verified (save to startup on IOS)
    discard()                   drop what load() staged (dry run, or after an error)
    rollback()                  undo a commit that could not be confirmed
    close()                     release the lock and the session, whatever happened

Nothing in this module knows a vendor.  Errors are PushError with the stage
they happened in; the runner turns them into a per-device result.
"""

from __future__ import annotations

import abc
import enum
from dataclasses import dataclass, field
from typing import Any

from qosc.errors import PushError, RolledBack

__all__ = ["Driver", "File", "Job", "PushError", "Result", "RolledBack", "Status", "push_one"]


class Status(str, enum.Enum):
    UNCHANGED = "unchanged"
    CHANGED = "changed"
    FAILED = "failed"
    ROLLED_BACK = "rolled back"


@dataclass(frozen=True)
class File:
    """One generated file for the device: its path under the target's output and its text."""

    path: str
    text: str


@dataclass
class Job:
    """What to push to one device: everything qosc generated for it, and how to reach it."""

    device: str
    platform: str
    target: str
    address: str | None
    files: tuple[File, ...]
    policy: str = ""

    def file(self, suffix: str) -> File | None:
        return next((f for f in self.files if f.path.endswith(suffix)), None)

    def files_with(self, suffix: str) -> list[File]:
        return [f for f in self.files if f.path.endswith(suffix)]


@dataclass
class Result:
    device: str
    target: str
    status: Status
    dry_run: bool
    diff: str = ""
    stage: str = ""
    error: str = ""
    method: str = ""
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"device": self.device, "target": self.target, "status": self.status.value,
                "dry_run": self.dry_run, "method": self.method, "diff": self.diff, "stage": self.stage,
                "error": self.error, "seconds": round(self.seconds, 3), "notes": list(self.notes)}


class Driver(abc.ABC):
    """One session with one device.  Subclasses implement the steps; `method` names the path taken."""

    method = ""

    def __init__(self, job: Job, credentials: Any, options: Any):
        self.job = job
        self.credentials = credentials
        self.options = options
        self.notes: list[str] = []

    @abc.abstractmethod
    def open(self) -> None: ...

    @abc.abstractmethod
    def load(self) -> None: ...

    @abc.abstractmethod
    def compare(self) -> str: ...

    @abc.abstractmethod
    def commit(self, confirm_timeout: int) -> None: ...

    @abc.abstractmethod
    def confirm(self) -> None: ...

    @abc.abstractmethod
    def discard(self) -> None: ...

    @abc.abstractmethod
    def rollback(self) -> None: ...

    @abc.abstractmethod
    def close(self) -> None: ...

    def running_config(self) -> str:
        """Read-only: connect and return the running configuration of what qosc owns on the device (no lock,
        no change), as the device shows it, for `qosc verify --from-device`.  Drivers that can implement it."""
        raise NotImplementedError(f"the {self.method or type(self).__name__} driver cannot read the running "
                                  "configuration yet")

    def verify(self) -> None:  # noqa: B027 - optional step, a no-op unless the driver can check
        """Check the committed state matches what was loaded (raise PushError otherwise).  Optional."""


def push_one(driver: Driver, commit: bool, confirm_timeout: int) -> Result:
    """Run the contract on one device and turn every outcome into a Result (never raises PushError)."""
    job = driver.job
    result = Result(job.device, job.target, Status.FAILED, dry_run=not commit)
    stage = "open"
    committed = False
    try:
        driver.open()
        result.method = driver.method
        stage = "load"
        driver.load()
        stage = "compare"
        result.diff = driver.compare()
        if not result.diff.strip() or not commit:
            stage = "discard"
            driver.discard()
            result.status = Status.UNCHANGED if not result.diff.strip() else Status.CHANGED
        else:
            stage = "commit"
            driver.commit(confirm_timeout)
            committed = True
            stage = "verify"
            driver.verify()
            stage = "confirm"
            driver.confirm()
            result.status = Status.CHANGED
    except Exception as exc:  # noqa: BLE001 - every failure becomes a per-device result, never a traceback
        result.stage = getattr(exc, "stage", stage)
        result.error = _one_line(exc)
        result.status = Status.FAILED
        if isinstance(exc, RolledBack):
            result.status = Status.ROLLED_BACK
            return result
        try:
            if committed:
                driver.rollback()
                result.status = Status.ROLLED_BACK
            else:
                driver.discard()
        except Exception as undo:  # noqa: BLE001 - reported beside the first error, which stays the result
            result.notes.append(f"cleanup after the error failed too: {_one_line(undo)}")
            if committed:
                result.notes.append("the device reverts the unconfirmed commit by itself when the confirm "
                                    "timeout expires" if driver.method != "ios-cli" else
                                    "the running configuration may differ from the rollback copy")
    finally:
        try:
            driver.close()
        except Exception as exc:  # noqa: BLE001 - a failed close is a note, not a failed push
            result.notes.append(f"closing the session failed: {_one_line(exc)}")
        result.method = result.method or driver.method
        result.notes.extend(driver.notes)
    return result


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())[:500]
