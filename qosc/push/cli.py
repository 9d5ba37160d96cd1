"""An SSH CLI session (netmiko) with qosc's credential rules, for the drivers that type configuration (IOS, IOS XR):
the host key verified against known_hosts unless the lab switch says otherwise (an unknown host is refused before
connecting), the password or key from the environment or the SSH agent, and any connection failure a PushError
whose text has no secret in it."""

from __future__ import annotations

import contextlib
from typing import Any

from qosc.push.base import PushError
from qosc.push.credentials import Credentials, redact


def open_cli(c: Credentials, connect_timeout: float, device_type: str, enable: bool = False, **extra: Any) -> Any:
    """A netmiko connection of `device_type` (extra: further ConnectHandler arguments, e.g. an enable secret), in
    enable mode when `enable` (IOS: configuration needs it)."""
    from netmiko import ConnectHandler
    if c.verify_host_key and c.known_host_key() is None:
        raise PushError("open", c.unknown_host_message())
    try:
        conn = ConnectHandler(
            device_type=device_type, host=c.host, port=c.port, username=c.username,
            password=c.password.reveal() or None, key_file=c.key_file, use_keys=c.key_file is not None,
            allow_agent=True, ssh_strict=c.verify_host_key, system_host_keys=False,
            alt_host_keys=c.verify_host_key, alt_key_file=c.known_hosts or "",
            conn_timeout=connect_timeout, auth_timeout=connect_timeout, banner_timeout=connect_timeout,
            fast_cli=True, **extra)
        if enable and not conn.check_enable_mode():
            conn.enable()
        return conn
    except Exception as exc:  # noqa: BLE001 - any connection failure becomes PushError
        raise PushError("open", f"cannot open SSH CLI session to {c.host}:{c.port}: "
                        f"{redact(str(exc) or type(exc).__name__)}") from None


class CliSession:
    """What the drivers that type configuration over an SSH CLI session share (IOS, IOS XR): telling, after a
    failed request, whether the session is gone (Driver.settle reconnects where `lost` says)."""

    conn: Any
    lost: str

    def _dead(self, stage: str) -> bool:
        """After a failed request: is the session gone?  Then remember where (`lost`) and drop it."""
        try:
            alive = self.conn is not None and self.conn.is_alive()
        except Exception:  # noqa: BLE001 - a session that cannot say it is alive is not
            alive = False
        if not alive:
            self.lost = self.lost or stage
            with contextlib.suppress(Exception):  # the transport may be half gone already
                self.conn.disconnect()
            self.conn = None
        return not alive
