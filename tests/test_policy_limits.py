"""Issue 18: bounded memory for any input under the size limit, counted over a policy with all its includes.

The limits (qosc.yamlsafe.Limits): 32 MiB of bytes over every file of a policy (QOS008), 2,000,000 nodes over
every file, aliases expanded (QOS016), and 65,536 items in one list (QOS016); each is enforced while the YAML
streams in, so a refused policy costs only what was read before the limit.  Before: a 31 MB policy of devices
needed 1.86 GiB, twelve 25 MB includes passed 11 GiB and a `dscp:` list of 10^6 items was accepted after 11.5 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import BASE

from qosc import api
from qosc.errors import InputError
from qosc.load import Limits, load_policy, load_text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from validate_scale import generate  # noqa: E402 - the benchmark's synthetic network

GIB = 1024**3


def refusal(fn, *args):  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as info:
        fn(*args)
    [d] = info.value.diagnostics
    return d


def test_defaults_are_the_documented_limits() -> None:
    limits = Limits()
    assert (limits.max_bytes, limits.max_nodes, limits.max_items) == (32 * 1024 * 1024, 2_000_000, 65_536)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(text in readme for text in ("32 MiB", "2,000,000 nodes", "65,536 items"))


def test_a_million_item_dscp_list_is_refused_fast_at_the_item(tmp_path: Path) -> None:
    items = ", ".join(["ef"] * 1_000_000)
    path = tmp_path / "p.yaml"
    path.write_text(BASE.replace("kind: premium\n", f"kind: premium\n    dscp: [{items}]\n"), encoding="utf-8")
    start = time.perf_counter()
    result = api.validate(path)
    assert time.perf_counter() - start < 3.0
    [d] = result.diagnostics
    assert d.code == "QOS016" and "a list with more than 65,536 items" in d.message
    assert d.location is not None and d.location.line == 10
    assert d.location.column == 12 + 65_536 * 4  # the 65,537th item: 'ef, ' is four characters


def test_list_length_limit_is_exact() -> None:
    assert len(load_text("a: [" + ", ".join(["1"] * 65_536) + "]\n", "p.yaml")["a"]) == 65_536
    d = refusal(load_text, "a: [" + ", ".join(["1"] * 65_537) + "]\n", "p.yaml")
    assert d.code == "QOS016" and str(d.location) == f"p.yaml:1:{5 + 65_536 * 3}"


def test_node_limit_counts_the_policy_with_its_includes(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("a: [" + ", ".join(["1"] * 40) + "]\n")
    (tmp_path / "b.yaml").write_text("b: [" + ", ".join(["1"] * 40) + "]\n")
    (tmp_path / "main.yaml").write_text("include: [a.yaml, b.yaml]\nc: 1\n")
    assert len(load_policy(tmp_path / "main.yaml", Limits(max_nodes=100))) == 3  # 4 + 42 + 42 nodes
    d = refusal(load_policy, tmp_path / "main.yaml", Limits(max_nodes=80))
    assert d.code == "QOS016" and d.location is not None and d.location.file.endswith("b.yaml")
    assert "counted over the policy and its includes" in d.message


def test_byte_limit_counts_the_policy_with_its_includes(tmp_path: Path) -> None:
    """Twelve includes of 3 MiB each: each file is under 32 MiB, the policy is not; refused at the include
    that crosses the limit, with little memory."""
    filler = ("# " + "x" * 1021 + "\n") * 3072  # 3 MiB of comment
    names = [f"part{i}.yaml" for i in range(12)]
    for i, name in enumerate(names):
        (tmp_path / name).write_text(f"p{i}: {i}\n" + filler)
    (tmp_path / "main.yaml").write_text("include:\n" + "".join(f"  - {n}\n" for n in names))
    start = time.perf_counter()
    d = refusal(load_policy, tmp_path / "main.yaml")
    assert time.perf_counter() - start < 10
    assert d.code == "QOS008" and "with its includes is larger than the limit of 33554432 bytes" in d.message
    assert d.location is not None and (d.location.file, d.location.line) == (str(tmp_path / "main.yaml"), 12)
    small = Limits(max_bytes=3 * 1024 * 1024 * 2 + 4096)  # room for two parts and main.yaml, not a third
    d = refusal(load_policy, tmp_path / "main.yaml", small)
    assert d.code == "QOS008" and d.location is not None and d.location.line == 4


def test_a_diamond_include_counts_once(tmp_path: Path) -> None:
    (tmp_path / "shared.yaml").write_text("s: [" + ", ".join(["1"] * 40) + "]\n")
    (tmp_path / "a.yaml").write_text("include: [shared.yaml]\na: 1\n")
    (tmp_path / "b.yaml").write_text("include: [shared.yaml]\nb: 1\n")
    (tmp_path / "main.yaml").write_text("include: [a.yaml, b.yaml]\n")
    assert set(load_policy(tmp_path / "main.yaml", Limits(max_nodes=70))) == {"s", "a", "b"}


CHILD = """\
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from qosc import api
start = time.perf_counter()
result = api.validate(sys.argv[2])
print(json.dumps({"seconds": time.perf_counter() - start,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "codes": sorted({d.code for d in result.diagnostics if d.is_error})}))
"""


@pytest.mark.slow
def test_a_31_mb_policy_is_refused_within_1_gib(tmp_path: Path) -> None:
    """The issue's case: 31 MB of devices (the benchmark network, 45,000 devices x 16 interfaces) needed
    1.86 GiB; it has more than 2,000,000 nodes and is now refused while loading, in a child whose peak RSS
    is measured, with 1 GiB of address space as a hard limit as well."""
    path = tmp_path / "big.yaml"
    path.write_text(generate(45_000))
    assert 30e6 < path.stat().st_size < 32 * 1024 * 1024

    def limit() -> None:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))  # more would be a MemoryError, not a passing test

    done = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(path)], capture_output=True, text=True,
                          timeout=300, check=False, preexec_fn=limit, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    assert found["codes"] == ["QOS016"]
    assert found["rss"] < GIB, f"peak RSS {found['rss'] / 2**20:.0f} MiB"
