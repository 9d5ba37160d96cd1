"""qosc targets: list the registered targets and the platforms they serve."""

from __future__ import annotations

import argparse
from typing import Any

from qosc.targets.registry import platforms, targets


def register(sub: Any) -> argparse.ArgumentParser:
    return sub.add_parser("targets", help="list targets and platforms")


def run(args: argparse.Namespace) -> int:
    for name, target in targets().items():
        print(f"{name}: {target.description}")
        for platform in target.platforms:
            spec = platforms().get(platform)
            print(f"  {platform}: {spec.description if spec else '(no platform data)'}")
    return 0
