"""qosc reference: print the policy reference (Markdown) generated from the schema."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from qosc.schema.reference import markdown


def register(sub: Any) -> argparse.ArgumentParser:
    return sub.add_parser("reference", help="print the policy reference in Markdown (generated from the schema)")


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(markdown())
    return 0
