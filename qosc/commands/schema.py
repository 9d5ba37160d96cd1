"""qosc schema: print the policy JSON Schema (for yaml-language-server and other editors)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from qosc.schema import schema_text


def register(sub: Any) -> argparse.ArgumentParser:
    return sub.add_parser("schema", help="print the policy JSON Schema",
                          description="Print the JSON Schema (Draft 2020-12) of the policy language.")


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(schema_text())
    return 0
