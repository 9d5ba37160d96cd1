"""Command line: parse arguments, call the API, set the exit status.  Nothing else.

Exit status: 0 clean, 1 errors found (or differences, for diff), 2 usage or I/O error.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

import qosc.commands
from qosc import __version__


def _commands() -> list[ModuleType]:
    """Every module in qosc.commands that defines `register` and `run` (sorted, stable help)."""
    mods = []
    for info in sorted(pkgutil.iter_modules(qosc.commands.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"qosc.commands.{info.name}")
        if hasattr(module, "register") and hasattr(module, "run"):
            mods.append(module)
    return mods


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="qosc", description="Diffserv QoS policy compiler: validate a YAML policy "
                                  "and compile it into JUNOS, IOS MQC, Catalyst 6500 and Linux tc configuration.")
    top.add_argument("--version", action="version", version=f"qosc {__version__}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    for module in _commands():
        cmd = module.register(sub)
        cmd.set_defaults(_run=module.run)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from qosc import server  # (first: a compile the server runs imports nothing more here)

    try:
        code = server.delegate(argv)
        if code is not None:
            return code
        args = parser().parse_args(argv)
        if not getattr(args, "_run", None):
            parser().print_help(sys.stderr)
            return 2
        return int(args._run(args))
    except KeyboardInterrupt:
        print("qosc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
