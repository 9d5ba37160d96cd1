"""Tests for qosc.load: exact codes and positions, bounds, includes, locate()."""

from __future__ import annotations

import copy
import json
import os
import re
import time
from pathlib import Path

import pytest
import yaml
from helpers import fuzz_examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qosc.diagnostics import Location
from qosc.errors import InputError
from qosc.load import Limits, MDict, MList, load_file, load_policy, load_text, locate, project_root


def fail(text: str, limits: Limits = Limits(), name: str = "p.yaml") -> tuple[str, str, str]:
    """(code, 'file:line:col', message) of the single diagnostic load_text raises."""
    with pytest.raises(InputError) as info:
        load_text(text, name, limits)
    assert len(info.value.diagnostics) == 1
    d = info.value.diagnostics[0]
    return d.code, str(d.location), d.message


def fail_path(fn, path) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as info:
        fn(path)
    d = info.value.diagnostics[0]
    return d.code, str(d.location), d.message


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- values and marks ----------------------------------------------------------


def test_scalars_follow_safe_resolution_except_timestamps() -> None:
    tree = load_text(
        "a: [1, -2, 2.5, yes, off, ~, null, '', 2002-12-14, 0x1F, 017, 1_000, 190:20:30, 1e9, .5, '1', =, 0b_]\n",
        "p.yaml",
    )
    assert tree["a"] == [1, -2, 2.5, True, False, None, None, "", "2002-12-14", 31, 15, 1000, 685230,
                         1e9, 0.5, "1", "=", "0b_"]
    assert type(tree["a"][0]) is int and type(tree["a"][3]) is bool


def test_marks_are_one_based_and_use_the_given_filename() -> None:
    tree = load_text("top:\n  name: x\n  list:\n    - 1\n    - {k: v}\n", "policies/geant.yaml")
    assert isinstance(tree, MDict) and isinstance(tree["top"]["list"], MList)
    assert tree.loc == Location("policies/geant.yaml", 1, 1)
    assert tree.key_locs["top"] == Location("policies/geant.yaml", 1, 1)
    top = tree["top"]
    assert top.loc == Location("policies/geant.yaml", 2, 3)
    assert top.key_locs["name"] == Location("policies/geant.yaml", 2, 3)
    assert top.value_locs["name"] == Location("policies/geant.yaml", 2, 9)
    assert top["list"].item_locs == [Location("policies/geant.yaml", 4, 7), Location("policies/geant.yaml", 5, 7)]


def test_non_string_keys() -> None:
    assert load_text("1: a\n2.5: b\ntrue: c\n'x': d\n", "p.yaml") == {"1": "a", "2.5": "b", "True": "c", "x": "d"}
    assert fail("null: x\n") == ("QOS001", "p.yaml:1:1", "mapping keys must be strings, not null")
    assert fail("a: 1\n[b]: x\n")[:2] == ("QOS001", "p.yaml:2:1")
    assert fail("? {a: 1}\n: x\n")[:2] == ("QOS001", "p.yaml:1:3")
    assert fail("1: a\n'1': b\n")[0] == "QOS005"


def test_merge_keys_and_aliases_are_plain_data() -> None:
    tree = load_text("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\nl: [*b, <<]\n", "p.yaml")
    assert tree["d"] == {"x": 1, "y": 3}
    assert tree["d"].key_locs["x"] == Location("p.yaml", 1, 11)  # merged entries keep the anchor's marks
    assert tree["l"] == [{"x": 1, "y": 2}, "<<"]
    assert fail("a: *nope\n") == ("QOS001", "p.yaml:1:4", "alias '*nope' is not defined above")
    assert fail("a: &a [1, *a]\n")[:2] == ("QOS003", "p.yaml:1:11")
    assert fail("a: 1\nb:\n  <<: [1]\n")[:2] == ("QOS001", "p.yaml:3:7")


def test_tree_is_copyable() -> None:
    tree = load_text("a: {b: [1, {c: 2}]}\n", "p.yaml")
    clone = copy.deepcopy(tree)
    assert clone == tree and clone["a"]["b"].item_locs == tree["a"]["b"].item_locs


# --- refusals: exact code and position -------------------------------------------


def test_syntax_error() -> None:
    code, where, msg = fail("a: 1\nb: c: d\n")
    assert (code, where) == ("QOS001", "p.yaml:2:5")
    assert "mapping values are not allowed" in msg
    code, where, msg = fail("a: [1, 2\n")
    assert (code, where) == ("QOS001", "p.yaml:2:1") and "flow sequence" in msg
    assert fail("a: 'x\x07'\n")[:2] == ("QOS001", "p.yaml:1:6")


@pytest.mark.parametrize(
    ("text", "where", "shown"),
    [
        ("a: 1\nb: !!python/object/apply:os.system ['id']\n", "p.yaml:2:4", "!!python/object/apply:os.system"),
        ("a: !foo x\n", "p.yaml:1:4", "!foo"),
        ("a: !!str 1\n", "p.yaml:1:4", "!!str"),
        ("!!map {a: 1}\n", "p.yaml:1:1", "!!map"),
        ("a: ! x\n", "p.yaml:1:4", "'!'"),
    ],
)
def test_tags_refused(text: str, where: str, shown: str) -> None:
    with pytest.raises(InputError) as info:
        load_text(text, "p.yaml")
    d = info.value.diagnostics[0]
    assert (d.code, str(d.location)) == ("QOS002", where)
    assert d.message.startswith("YAML tags are not allowed in a policy") and shown in d.message
    assert d.hint and "remove" in d.hint


def test_billion_laughs_refused_fast() -> None:
    lines = ['lol0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"lol{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    start = time.perf_counter()
    code, where, msg = fail("\n".join(lines) + "\n")
    assert time.perf_counter() - start < 0.5
    assert (code, where) == ("QOS003", "p.yaml:7:20")  # the alias that crosses 2,000,000 nodes
    assert "billion laughs" in msg


def test_alias_count_bound() -> None:
    text = "a: &a 1\nb: [" + ", ".join(["*a"] * 11) + "]\n"
    assert fail(text, Limits(max_aliases=10))[:2] == ("QOS003", "p.yaml:2:45")


def test_deep_flow_nesting_refused_fast() -> None:
    start = time.perf_counter()
    assert fail("[" * 10000 + "]" * 10000)[:2] == ("QOS004", "p.yaml:1:65")
    assert fail("a: " + "[" * 10000 + "]" * 10000)[:2] == ("QOS004", "p.yaml:1:67")
    assert fail("a: " + "{a: " * 1_000_000 + "1" + "}" * 1_000_000)[:2] == ("QOS004", "p.yaml:1:256")
    assert time.perf_counter() - start < 1.0
    assert load_text("a: " + "[" * 63 + "]" * 63, "p.yaml")["a"] is not None  # exactly 64 levels is fine


def test_deep_block_nesting_refused_fast() -> None:
    deep_map = "".join(" " * i + f"k{i}:\n" for i in range(10000)) + " " * 10000 + "x\n"  # ~50 MB
    start = time.perf_counter()
    assert fail(deep_map, Limits(max_bytes=10**9))[:2] == ("QOS004", "p.yaml:65:65")
    assert fail("a:\n" + "- " * 10000 + "x\n")[:2] == ("QOS004", "p.yaml:2:127")
    assert time.perf_counter() - start < 1.0
    assert fail(deep_map)[0] == "QOS008"  # with the default limits it is simply too big


def test_aliases_cannot_smuggle_depth() -> None:
    text = "a: &a " + "[" * 40 + "]" * 40 + "\nb: " + "[" * 30 + "*a" + "]" * 30 + "\n"
    assert fail(text)[:2] == ("QOS004", "p.yaml:2:34")


def test_duplicate_key_names_both_lines() -> None:
    code, where, msg = fail("a: 1\nsection:\n  x: 1\n  y: 2\n  x: 3\n")
    assert (code, where) == ("QOS005", "p.yaml:5:3")
    assert "'x'" in msg and "line 3" in msg and "line 5" in msg


def test_numbers_out_of_range() -> None:
    assert fail("a: 1\nb: 1e400\n")[:2] == ("QOS009", "p.yaml:2:4")
    assert fail("a: " + "9" * 400 + "\n")[:2] == ("QOS009", "p.yaml:1:4")
    assert fail("a: [" + "1" * 5000 + "]\n")[:2] == ("QOS009", "p.yaml:1:5")  # beyond int-max-str-digits
    assert fail("a: " + "1" * 400 + ".5\n")[0] == "QOS009"
    for bad in ("9223372036854775808", "-9223372036854775809", ".inf", "-.Inf", ".nan", "0x1" + "0" * 16):
        assert fail(f"a: {bad}\n")[0] == "QOS009", bad
    tree = load_text("a: 9223372036854775807\nb: -9223372036854775808\nc: '1e400'\n", "p.yaml")
    assert tree == {"a": 2**63 - 1, "b": -(2**63), "c": "1e400"}


def test_top_level_must_be_a_mapping() -> None:
    assert fail("- a\n- b\n") == ("QOS008", "p.yaml:1:1", "a policy must be a YAML mapping")
    assert fail("# comment\n\njust text\n")[:2] == ("QOS008", "p.yaml:3:1")
    assert fail("---\n")[0] == "QOS008"


def test_empty_file(tmp_path: Path) -> None:
    assert fail("")[:2] == ("QOS008", "p.yaml:1:1")
    assert fail("# only a comment\n")[0] == "QOS008"
    path = write(tmp_path / "empty.yaml", "")
    assert fail_path(load_file, path)[:2] == ("QOS008", f"{path}:1:1")


def test_multi_document_stream() -> None:
    assert fail("a: 1\n---\nb: 2\n")[:2] == ("QOS001", "p.yaml:2:1")


def test_huge_file_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with open(path, "wb") as fh:
        fh.truncate(100 * 1024 * 1024)  # sparse: no 100 MB written
    start = time.perf_counter()
    code, where, msg = fail_path(load_file, path)
    assert time.perf_counter() - start < 1.0
    assert (code, where) == ("QOS008", f"{path}:1:1") and "larger than" in msg
    assert fail_path(load_policy, path)[0] == "QOS008"


def test_unreadable_and_non_utf8_files(tmp_path: Path) -> None:
    assert fail_path(load_file, tmp_path / "missing.yaml")[0] == "QOS006"
    assert fail_path(load_file, tmp_path)[0] == "QOS006"  # a directory
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"a: 1\nb: caf\xe9\n")
    assert fail_path(load_file, bad)[:2] == ("QOS008", f"{bad}:2:7")
    bom = tmp_path / "bom.yaml"
    bom.write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert load_file(bom) == {"a": 1}


def test_load_file_accepts_pathlike(tmp_path: Path) -> None:
    path = write(tmp_path / "p.yaml", "a: {b: 1}\n")
    tree = load_file(path)
    assert tree == {"a": {"b": 1}} and tree["a"].loc.file == str(path)


# --- includes ------------------------------------------------------------------


def test_include_relative_resolution_and_locations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "policies/main.yaml",
          "version: 1\ninclude:\n  - sub/classes.yaml\n  - sub/devices.yaml\nclasses:\n  voice: {dscp: ef}\n")
    write(tmp_path / "policies/sub/classes.yaml", "version: 1\nclasses:\n  video: {dscp: af41}\n")
    write(tmp_path / "policies/sub/devices.yaml",
          "include: classes.yaml\ndevices:\n  r1:\n    platform: junos\n")
    tree = load_policy("policies/main.yaml")
    assert "include" not in tree and "include" not in tree.key_locs
    assert list(tree) == ["version", "classes", "devices"]
    assert list(tree["classes"]) == ["voice", "video"]
    assert locate(tree, ["classes", "voice", "dscp"]) == Location("policies/main.yaml", 6, 17)
    assert locate(tree, ["classes", "video", "dscp"]) == Location("policies/sub/classes.yaml", 3, 17)
    assert locate(tree, ["classes", "video"], key=True) == Location("policies/sub/classes.yaml", 3, 3)
    assert locate(tree, ["devices", "r1", "platform"]) == Location("policies/sub/devices.yaml", 4, 15)
    # load_file does not process includes
    assert load_file("policies/main.yaml")["include"] == ["sub/classes.yaml", "sub/devices.yaml"]


def test_include_single_string_and_parent_dir(tmp_path: Path) -> None:
    write(tmp_path / ".qosc-root", "")  # the project root: includes may leave the policy's folder, not this one
    write(tmp_path / "a/main.yaml", "include: ../shared/x.yaml\nb: 1\n")
    write(tmp_path / "shared/x.yaml", "c: 2\n")
    tree = load_policy(tmp_path / "a/main.yaml")
    assert tree == {"b": 1, "c": 2}
    assert tree.value_locs["c"] == Location(os.path.normpath(str(tmp_path / "shared/x.yaml")), 1, 4)


def test_include_cycle_shows_chain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a.yaml", "include: [b.yaml]\nx: 1\n")
    write(tmp_path / "b.yaml", "y: 2\ninclude:\n  - a.yaml\n")
    code, where, msg = fail_path(load_policy, "a.yaml")
    assert (code, where) == ("QOS007", "b.yaml:3:5")
    assert "a.yaml -> b.yaml -> a.yaml" in msg
    write(tmp_path / "self.yaml", "include: self.yaml\n")
    assert fail_path(load_policy, "self.yaml")[2].endswith("self.yaml -> self.yaml")


def test_missing_include(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "p/main.yaml", "a: 1\ninclude:\n  - here.yaml\n  - nothere.yaml\n")
    write(tmp_path / "p/here.yaml", "b: 1\n")
    code, where, msg = fail_path(load_policy, "p/main.yaml")
    assert (code, where) == ("QOS006", "p/main.yaml:4:5")
    assert "p/nothere.yaml" in msg


def test_bad_include_value(tmp_path: Path) -> None:
    main = write(tmp_path / "main.yaml", "include: {a: 1}\n")
    assert fail_path(load_policy, main)[:2] == ("QOS006", f"{main}:1:10")
    write(main, "include: [ok.yaml, 3]\n")
    assert fail_path(load_policy, main)[:2] == ("QOS006", f"{main}:1:20")
    write(main, 'include: "a\\0b"\n')  # a NUL byte in the path
    assert fail_path(load_policy, main)[:2] == ("QOS006", f"{main}:1:10")


def test_include_merge_conflicts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "main.yaml", "include: inc.yaml\nversion: 1\nclasses:\n  voice: {dscp: ef}\n")
    write(tmp_path / "inc.yaml", "version: 1\nclasses:\n  voice: {dscp: cs5}\n")
    code, where, msg = fail_path(load_policy, "main.yaml")
    assert (code, where) == ("QOS005", "inc.yaml:3:3")
    assert msg == "'voice' under 'classes' is defined twice: here and at main.yaml:4:3"
    write(tmp_path / "inc.yaml", "version: 2\n")
    assert fail_path(load_policy, "main.yaml")[:2] == ("QOS005", "inc.yaml:1:1")
    write(tmp_path / "inc.yaml", "version: true\n")  # 1 == True in Python, but not here
    assert fail_path(load_policy, "main.yaml")[0] == "QOS005"


def test_include_diamond_merged_once_and_aliases_not_mutated(tmp_path: Path) -> None:
    write(tmp_path / "main.yaml", "include: [b.yaml, c.yaml]\ncl: &c {x: 1}\nother: *c\n")
    write(tmp_path / "b.yaml", "include: d.yaml\n")
    write(tmp_path / "c.yaml", "include: d.yaml\ncl: {y: 2}\n")
    write(tmp_path / "d.yaml", "cl: {z: 3}\n")
    tree = load_policy(tmp_path / "main.yaml")
    assert tree["cl"] == {"x": 1, "z": 3, "y": 2}
    assert tree["other"] == {"x": 1}


def test_include_depth_limit(tmp_path: Path) -> None:
    for i in range(5):
        write(tmp_path / f"f{i}.yaml", f"include: f{i + 1}.yaml\nk{i}: {i}\n")
    write(tmp_path / "f5.yaml", "k5: 5\n")
    assert len(load_policy(tmp_path / "f0.yaml", Limits(max_include_depth=5))) == 6
    assert fail_path(lambda p: load_policy(p, Limits(max_include_depth=4)), tmp_path / "f0.yaml")[0] == "QOS007"


# --- locate --------------------------------------------------------------------


def test_locate_nested_paths_and_list_indexes() -> None:
    tree = load_text("a:\n  b:\n    - x\n    - {c: [10, 20]}\n", "p.yaml")
    assert locate(tree, []) == Location("p.yaml", 1, 1)
    assert locate(tree, ["a"]) == Location("p.yaml", 2, 3)
    assert locate(tree, ["a"], key=True) == Location("p.yaml", 1, 1)
    assert locate(tree, ["a", "b", 0]) == Location("p.yaml", 3, 7)
    assert locate(tree, ["a", "b", 1, "c", 1]) == Location("p.yaml", 4, 16)
    assert locate(tree, ["a", "b", 1, "c"], key=True) == Location("p.yaml", 4, 8)
    assert locate(tree, ("a", "b", 1, "c", 1), key=True) == Location("p.yaml", 4, 16)  # list index: the item


def test_locate_off_tree_never_raises() -> None:
    tree = load_text("a:\n  b: [1, 2]\n", "p.yaml")
    assert locate(tree, ["a", "nope", "deeper"]) == Location("p.yaml", 2, 3)
    assert locate(tree, ["a", "b", 7]) == Location("p.yaml", 2, 6)
    assert locate(tree, ["a", "b", "x"]) == Location("p.yaml", 2, 6)
    assert locate(tree, ["a", "b", 0, "under a scalar"]) == Location("p.yaml", 2, 7)
    assert locate(tree, ["a", "b", True]) == Location("p.yaml", 2, 6)
    assert locate(tree, ["a", "b", -1]) == Location("p.yaml", 2, 6)
    assert locate(tree, [None, object()]) == Location("p.yaml", 1, 1)  # type: ignore[list-item]
    assert locate({"plain": 1}, ["plain"]) is None
    assert locate(None, ["x"]) is None


# --- speed ---------------------------------------------------------------------


def test_large_policy_loads_quickly() -> None:
    lines = ["version: 1", "devices:"]
    for d in range(2000):
        lines += [f"  r{d:05d}:", "    platform: junos", "    interfaces:"]
        lines += [f"      et{i}: {{policy: c{i % 3}, rate: {10**8 * (i % 4 + 1)}}}" for i in range(18)]
    text = "\n".join(lines) + "\n"  # ~1.2 MB, 40k mappings
    start = time.perf_counter()
    tree = load_text(text, "big.yaml")
    assert time.perf_counter() - start < 3.0
    assert tree["devices"]["r01999"]["interfaces"]["et17"] == {"policy": "c2", "rate": 200000000}
    assert locate(tree, ["devices", "r01999", "interfaces", "et17", "rate"]) == Location("big.yaml", 42002, 32)


# --- properties: nothing but InputError, ever -------------------------------------

FRAGMENTS = [
    "a", "b", "key", "1", "-1", "1e400", "9" * 30, "0x", "0b_", ".inf", "~", "null", "yes", "2002-12-14",
    ": ", ":", "- ", "-", "? ", "?", ",", "[", "]", "{", "}", "\n", "\n  ", "\n    ", " ", "\t", "#", "# c\n",
    "&a ", "*a", "&b ", "*b", "<<: ", "!!str ", "!x ", "!", "'", '"', "'q'", '"\\x"', "|\n", ">-\n",
    "---\n", "...\n", "%YAML 1.1\n", "%TAG ! tag:x,2000:\n", "\x00", "\x07", "\ufeff", "é", "\u2028", "\r",
    "include: ", "@", "`", "%", "\\",
]


def assert_only_qosc_error(text: str, limits: Limits = Limits()) -> None:
    try:
        tree = load_text(text, "h.yaml", limits)
    except InputError as exc:
        assert exc.diagnostics and all(d.code.startswith("QOS") for d in exc.diagnostics)
    else:
        assert isinstance(tree, MDict)
        assert locate(tree, ["a", 0, "b"]) is not None


@settings(max_examples=fuzz_examples(300), deadline=None)
@given(st.text())
def test_arbitrary_text_only_raises_qosc_error(text: str) -> None:
    assert_only_qosc_error(text)


@settings(max_examples=fuzz_examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=60).map("".join))
def test_yaml_fragments_only_raise_qosc_error(text: str) -> None:
    assert_only_qosc_error(text)
    assert_only_qosc_error(text, Limits(max_depth=3, max_nodes=20, max_aliases=2, max_bytes=200))


@settings(max_examples=fuzz_examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300) | st.lists(st.sampled_from(FRAGMENTS)).map(lambda f: "".join(f).encode()))
def test_arbitrary_bytes_in_files_only_raise_qosc_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "h.yaml"
    path.write_bytes(data)
    for fn in (load_file, load_policy):
        try:
            fn(path)
        except InputError as exc:
            assert exc.diagnostics


# Strings PyYAML would dump unquoted but qosc reads as floats (YAML 1.2 exponents).
_EXPONENT = re.compile(r"[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+")
_texts = st.text(max_size=20).filter(lambda s: not _EXPONENT.fullmatch(s))
_scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
            | st.floats(allow_nan=False, allow_infinity=False) | _texts)
_data = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_texts, inner, max_size=4),
                     max_leaves=25)


def _same(a: object, b: object) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


def _all_locs(node: object):  # type: ignore[no-untyped-def]
    if isinstance(node, MDict):
        yield node.loc
        for k, v in node.items():
            yield node.key_locs[k]
            yield node.value_locs[k]
            yield from _all_locs(v)
    elif isinstance(node, MList):
        yield node.loc
        yield from node.item_locs
        for v in node:
            yield from _all_locs(v)


@settings(max_examples=fuzz_examples(300), deadline=None)
@given(st.dictionaries(_texts, _data, min_size=1, max_size=5), st.booleans())
def test_safe_dump_round_trips_with_sane_marks(data: dict, flow: bool) -> None:  # type: ignore[type-arg]
    text = yaml.safe_dump(data, default_flow_style=flow)
    tree = load_text(text, "rt.yaml")
    assert _same(tree, data)
    n_lines = text.count("\n") + 1
    for loc in _all_locs(tree):
        assert loc.file == "rt.yaml" and 1 <= loc.line <= n_lines and loc.column >= 1


# -- includes stay inside the project (issue 18) ------------------------------------------------------------------


def test_include_outside_the_project_root_is_refused_unread(tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    write(secret, "token: hunter2-do-not-echo\n")
    write(tmp_path / "proj/.qosc-root", "")
    write(tmp_path / "proj/ok.yaml", "c: 3\n")
    cases = {
        "../../secret.yaml": "leaves the project root",             # escapes the marker's directory
        str(secret): "is an absolute path",
        "/proc/self/environ": "is an absolute path",
        "sub/../../../secret.yaml": "leaves the project root",
        "link.yaml": "leaves the project root",                     # a symlink inside pointing out
        "proc.yaml": "leaves the project root",                     # a symlink to a /proc file
    }
    (tmp_path / "proj/p").mkdir()
    os.symlink(secret, tmp_path / "proj/p/link.yaml")
    os.symlink("/proc/self/environ", tmp_path / "proj/p/proc.yaml")
    for rel, why in cases.items():
        write(tmp_path / "proj/p/main.yaml", f"include: [../ok.yaml, {json.dumps(rel)}]\nb: 1\n")
        code, where, msg = fail_path(load_policy, tmp_path / "proj/p/main.yaml")
        assert code == "QOS006" and why in msg, (rel, msg)
        assert where.endswith("main.yaml:1:23") and "hunter2" not in msg


def test_project_root_is_the_git_work_tree_or_the_policy_folder(tmp_path: Path) -> None:
    write(tmp_path / "repo/.git/HEAD", "ref: refs/heads/main\n")
    write(tmp_path / "repo/net/main.yaml", "include: ../common/s.yaml\nb: 1\n")
    write(tmp_path / "repo/common/s.yaml", "c: 2\n")
    assert project_root(tmp_path / "repo/net/main.yaml") == os.path.realpath(tmp_path / "repo")
    assert load_policy(tmp_path / "repo/net/main.yaml") == {"b": 1, "c": 2}
    write(tmp_path / "loose/a/main.yaml", "include: ../s.yaml\nb: 1\n")  # no marker, no git: the policy's folder
    write(tmp_path / "loose/s.yaml", "c: 2\n")
    assert project_root(tmp_path / "loose/a/main.yaml") == os.path.realpath(tmp_path / "loose/a")
    assert fail_path(load_policy, tmp_path / "loose/a/main.yaml")[0] == "QOS006"


def test_include_of_a_fifo_or_directory_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.yaml")
    (tmp_path / "dir.yaml").mkdir()
    for rel in ("fifo.yaml", "dir.yaml"):
        write(tmp_path / "main.yaml", f"include: [{rel}]\nb: 1\n")
        start = time.perf_counter()
        code, _, msg = fail_path(load_policy, tmp_path / "main.yaml")
        assert code == "QOS006" and time.perf_counter() - start < 2
        assert "not a regular file" in msg or "Is a directory" in msg
