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

After a failure once a commit was sent, the result comes from the device's
state, not from the last reply: a driver that can read it back implements
settle(stage), which reconnects when the session died (`lost` names the
request whose reply never came), finishes or undoes a confirmed commit still
pending, and reads the running configuration.  The outcome is one of
COMMITTED (running holds the change), ROLLED_BACK (a commit took effect and
running no longer holds it), NOT_COMMITTED (running does not hold it; the
commit may never have reached the device) or UNKNOWN (the device could not
be reached to read its state).

Nothing in this module knows a vendor.  Errors are PushError with the stage
they happened in; the runner turns them into a per-device result.
"""

from __future__ import annotations

import abc
import enum
from dataclasses import dataclass, field
from typing import Any

from qosc.errors import PushError, RolledBack

__all__ = ["COMMITTED", "NOT_COMMITTED", "OUTCOMES", "ROLLED_BACK", "UNKNOWN", "Driver", "File", "Job",
           "PushError", "Result", "RolledBack", "Status", "push_one"]

# what the device holds after a push, read from the device (Result.outcome)
COMMITTED = "committed"
ROLLED_BACK = "rolled back"
NOT_COMMITTED = "not committed"
UNKNOWN = "unknown (could not reconnect)"
OUTCOMES = (COMMITTED, ROLLED_BACK, NOT_COMMITTED, UNKNOWN)


class Status(str, enum.Enum):
    UNCHANGED = "unchanged"
    CHANGED = "changed"
    FAILED = "failed"
    ROLLED_BACK = "rolled back"
    UNKNOWN = "unknown"


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
    outcome: str = NOT_COMMITTED
    """What the device holds (one of OUTCOMES): after a failure past the commit, read back from the device."""

    def as_dict(self) -> dict[str, Any]:
        return {"device": self.device, "target": self.target, "status": self.status.value,
                "outcome": self.outcome, "dry_run": self.dry_run, "method": self.method, "diff": self.diff,
                "stage": self.stage, "error": self.error, "seconds": round(self.seconds, 3),
                "notes": list(self.notes)}


class Driver(abc.ABC):
    """One session with one device.  Subclasses implement the steps; `method` names the path taken."""

    method = ""
    reads_back = False
    """True when settle() reads the device's state back (the result then follows that state)."""

    def __init__(self, job: Job, credentials: Any, options: Any):
        self.job = job
        self.credentials = credentials
        self.options = options
        self.notes: list[str] = []
        self.lost = ""
        """The stage whose request got no reply (the session died or passed its deadline); '' while alive."""

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

    def settle(self, stage: str) -> str | None:
        """After a failure at `stage`, once a commit was sent: the device's state, one of OUTCOMES.

        Reconnects when `lost` is set, confirms a pending commit whose confirm was lost (stage "confirm") or
        undoes one (any other stage), then reads the running configuration.  None (drivers whose
        `reads_back` is False): the driver cannot read its state back, and the result follows the replies it
        got."""
        return None


def push_one(driver: Driver, commit: bool, confirm_timeout: int) -> Result:
    """Run the contract on one device and turn every outcome into a Result (never raises PushError)."""
    job = driver.job
    result = Result(job.device, job.target, Status.FAILED, dry_run=not commit)
    stage = "open"
    sent = committed = False
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
            sent = True
            driver.commit(confirm_timeout)
            committed = True
            stage = "verify"
            driver.verify()
            stage = "confirm"
            driver.confirm()
            result.status = Status.CHANGED
            result.outcome = COMMITTED
    except Exception as exc:  # noqa: BLE001 - every failure becomes a per-device result, never a traceback
        result.stage = getattr(exc, "stage", stage)
        result.error = _one_line(exc)
        result.status = Status.FAILED
        if isinstance(exc, RolledBack):
            result.status, result.outcome = Status.ROLLED_BACK, ROLLED_BACK
            return result
        if driver.lost:  # no reply came: what happened is read from the device (after reconnecting)
            _settle(driver, result, stage, sent)
            return result
        try:
            if committed:
                driver.rollback()
                result.status, result.outcome = Status.ROLLED_BACK, ROLLED_BACK
            else:
                driver.discard()
        except Exception as undo:  # noqa: BLE001 - reported beside the first error, which stays the result
            result.notes.append(f"cleanup after the error failed too: {_one_line(undo)}")
            if committed and not driver.reads_back:
                result.notes.append("the device reverts the unconfirmed commit by itself when the confirm "
                                    "timeout expires" if driver.method != "ios-cli" else
                                    "the running configuration may differ from the rollback copy")
                return result
        if committed:  # rolled back, or tried to: the device's state says which
            _settle(driver, result, "rollback", sent)
    finally:
        try:
            driver.close()
        except Exception as exc:  # noqa: BLE001 - a failed close is a note, not a failed push
            result.notes.append(f"closing the session failed: {_one_line(exc)}")
        result.method = result.method or driver.method
        result.notes.extend(driver.notes)
    return result


def _settle(driver: Driver, result: Result, stage: str, sent: bool) -> None:
    """Take the result from the device's state, read back after a failure at `stage` (a step of the contract)."""
    try:
        outcome = driver.settle(stage)
    except Exception as exc:  # noqa: BLE001 - reading the state failed: say so, the device's state is unknown
        result.notes.append(f"reading the device's state back failed: {_one_line(exc)}")
        outcome = UNKNOWN if sent else NOT_COMMITTED
    if outcome is None:  # the driver cannot read its state back: the replies it got decide
        if driver.lost and sent:
            result.status, result.outcome = Status.UNKNOWN, UNKNOWN
        elif stage == "rollback" and result.status is Status.ROLLED_BACK:
            result.outcome = ROLLED_BACK
        return
    result.outcome = outcome
    result.notes.append(f"device state read back: {outcome}")
    if outcome == COMMITTED:
        if stage == "confirm":  # verified, and confirmed: only the confirm's reply was lost
            result.status = Status.CHANGED
            result.notes.insert(0, f"the reply to confirm was lost ({result.error}); the device's state, read "
                                "after reconnecting, shows the change committed")
            result.error = result.stage = ""
        else:
            result.status = Status.FAILED
            result.notes.insert(0, "the device kept the change: its running configuration holds it")
    elif outcome == ROLLED_BACK:
        result.status = Status.ROLLED_BACK
    elif outcome == NOT_COMMITTED:
        result.status = Status.FAILED
    else:
        result.status = Status.UNKNOWN


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return " ".join(text.split())[:500]
