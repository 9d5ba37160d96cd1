"""FakeNOS hosts on 127.0.0.1 (ports base..base+N-1) whose shell is a simulator's (ios_sim.IosShell,
xr_sim.XrShell): the SSH server, the inventory, start/stop and the known_hosts line, shared by the CLI
simulators.  The shell class keeps the simulated devices in its class attribute `devices`, by host name."""

from __future__ import annotations

import io
from typing import Any

import paramiko
from fakenos import FakeNOS
from fakenos.plugins.servers import ssh_server_paramiko as fakessh


class CliLab:
    def __init__(self, names: list[str], base_port: int, username: str, password: str, shell: Any, nos: str,
                 devices: dict[str, Any]) -> None:
        self.names = names
        self.ports = {name: base_port + i for i, name in enumerate(names)}
        self.devices = devices
        self.shell = shell
        shell.devices.update(devices)
        inventory = {
            "default": {"username": username, "password": password,
                        "server": {"plugin": "ParamikoSshServer",
                                   "configuration": {"address": "127.0.0.1", "timeout": 1,
                                                     "watchdog_interval": 1}},
                        "nos": {"plugin": nos}},
            "hosts": {name: {"port": port} for name, port in self.ports.items()},
        }
        self.net = FakeNOS(inventory=inventory)
        self.net.shell_plugins["CMDShell"] = shell  # the stock shell, extended (see the simulator's module doc)

    def start(self) -> Any:
        self.net.start()
        return self

    def stop(self) -> None:
        self.net.stop()
        for name in self.names:
            self.shell.devices.pop(name, None)

    @staticmethod
    def host_key_line(host: str, port: int) -> str:
        key = paramiko.RSAKey(file_obj=io.StringIO(fakessh.DEFAULT_SSH_KEY))
        return f"[{host}]:{port} {key.get_name()} {key.get_base64()}\n"
