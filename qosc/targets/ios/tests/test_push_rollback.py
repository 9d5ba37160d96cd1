"""IOS push: a failed commit whose rollback fails too still reports why the commit failed (issue 18)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from qosc.errors import PushError, RolledBack
from qosc.targets.ios.push import IosDriver


class Conn:
    """A session whose config push fails with `error` and whose exec commands fail from `fail_exec` on."""

    def __init__(self, error: Exception, fail_exec: str | None) -> None:
        self.error, self.fail_exec, self.sent = error, fail_exec, []  # type: ignore[var-annotated]

    def send_command(self, command: str, **_: Any) -> str:
        self.sent.append(command)
        if self.fail_exec and command.startswith(self.fail_exec):
            raise OSError("Socket is closed")
        return "router#"

    def send_config_set(self, cmds: list[str], **_: Any) -> str:
        raise self.error

    def check_config_mode(self) -> bool:
        return False

    def is_alive(self) -> bool:  # the session stays up: the driver rolls back over it
        return True


def driver(conn: Conn) -> IosDriver:
    d = IosDriver(SimpleNamespace(device="r1"), None, SimpleNamespace(confirm_timeout=0, rpc_timeout=5))
    d.conn, d.cmds = conn, ["policy-map x"]
    return d


TIMEOUT = TimeoutError("\n\nPattern not detected: 'r1\\(config\\)#' in output.\n\nThings you might try:\n")


def test_rollback_failure_keeps_the_original_reason() -> None:
    with pytest.raises(PushError) as caught:
        driver(Conn(TIMEOUT, fail_exec="configure replace")).commit(0)
    assert caught.value.stage == "rollback" and not isinstance(caught.value, RolledBack)
    message = str(caught.value)
    assert message.startswith("Pattern not detected: 'r1\\(config\\)#' in output. Things you might try:")
    assert "restoring the rollback copy failed" in message and "Socket is closed" in message


def test_rolled_back_commit_keeps_the_original_reason() -> None:
    conn = Conn(ValueError("Invalid input detected at command: policy-map x, matched error: % Invalid"), None)
    with pytest.raises(RolledBack) as caught:
        driver(conn).commit(0)
    assert str(caught.value) == ("Invalid input detected at command: policy-map x, matched error: % Invalid; "
                                 "rollback copy restored")
    assert "configure replace flash:qosc-rollback.cfg force" in conn.sent
