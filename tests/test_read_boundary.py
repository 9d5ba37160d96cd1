"""The readers' boundary (issue 22): hostile or merely unusual configurations end in located diagnostics.

Each case is what the issue found ending in a traceback, or in a diagnostic without a line: XML elements whose
text has spaces or is empty (a real router's `verify --from-device`), a byte-order mark, control and invisible
characters in names, comment-only and lone-quote set lines, braces nested a thousand deep, tc JSON with wrong
types or Infinity, a byte that is not UTF-8, replies that carry the configuration as text, CLI captures, a dump
named after its file, and sizes past the readers' limit.  Every case goes through qosc.behaviour.readback (what
import, verify and equiv call), and none may raise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qosc.behaviour.readback import Read, read, read_file
from qosc.configtext import LIMITS
from qosc.tree import Kind

COS = """\
set class-of-service forwarding-classes queue 0 be
set class-of-service forwarding-classes queue 1 ef
set class-of-service classifiers dscp C forwarding-class be loss-priority low code-points 000000
set class-of-service classifiers dscp C forwarding-class ef loss-priority low code-points 101110
set class-of-service schedulers S-BE transmit-rate percent 60
set class-of-service schedulers S-EF transmit-rate percent 40
set class-of-service scheduler-maps M forwarding-class be scheduler S-BE
set class-of-service scheduler-maps M forwarding-class ef scheduler S-EF
set class-of-service interfaces ge-0/0/1 scheduler-map M
set class-of-service interfaces ge-0/0/1 unit 0 classifiers dscp C
"""

XML = """\
<rpc-reply xmlns:junos="http://xml.juniper.net/junos/21.4R1/junos">
  <configuration>
    <system><login><message>Authorised use only.
All access is logged.</message></login></system>
    <interfaces>
      <interface><name>ge-0/0/1</name><description>uplink to core</description>
        <unit><name>0</name><description></description></unit></interface>
    </interfaces>
    <class-of-service>
      <forwarding-classes><queue><name>0</name><class-name>be</class-name></queue></forwarding-classes>
      <interfaces><interface><name>ge-0/0/2</name><scheduler-map/></interface></interfaces>
    </class-of-service>
  </configuration>
</rpc-reply>
"""

IOS = """\
class-map match-any EF
 match dscp ef
policy-map OUT
 class EF
  priority percent 20
 class class-default
  bandwidth percent 50
interface GigabitEthernet0/1
 service-policy output OUT
"""

TC = ('[{"kind":"htb","handle":"1:","root":true,"options":{"default":"0x20"}}]\n'
      '[{"class":"htb","handle":"1:1","root":true,"rate":12500000,"ceil":12500000,"prio":0},\n'
      ' {"class":"htb","handle":"1:10","parent":"1:1","rate":2500000,"ceil":12500000,"prio":1},\n'
      ' {"class":"htb","handle":"1:20","parent":"1:1","rate":10000000,"ceil":12500000,"prio":2}]\n'
      '[{"parent":"1:","protocol":"ip","pref":1,"kind":"u32","options":{"flowid":"1:10",\n'
      '  "match":{"value":"b80000","mask":"fc0000","off":0}}}]\n')


def same(a: Read, b: Read) -> bool:
    """Two reads behave alike (their interfaces; where each object is differs with the lines around it)."""
    return a.behaviour is not None and b.behaviour is not None and a.behaviour.interfaces == b.behaviour.interfaces


def codes(r: Read) -> list[tuple[str, int | None]]:
    return [(d.code, d.location.line if d.location else None) for d in r.diagnostics]


def test_junos_xml_with_descriptions_messages_and_empty_elements_is_read() -> None:
    r = read(XML, "r1 (running)", "junos-mx", "r1")
    assert r.behaviour is not None, r.diagnostics
    assert not any(d.is_error for d in r.diagnostics), r.diagnostics
    from qosc.targets.junos.read.parse import parse
    doc = parse(XML, "r1.xml")
    port = next(s for s in doc.statements[1].children or () if s.keyword == "ge-0/0/1")
    words = [w for c in port.children or () for w in c.words if c.keyword == "description"]
    assert words[1].kind is Kind.TEXT and words[1].text == "uplink to core"
    assert doc.statements[0].words[-1].text == "Authorised use only.\\nAll access is logged."  # as the CLI shows
    # the empty <scheduler-map/> is an empty name, said where it is (QOS174 at its line), not a traceback
    assert ("QOS174", 11) in codes(r)


@pytest.mark.parametrize(("platform", "text", "fmt"), [("junos-mx", COS, "set"), ("ios-xe", IOS, None),
                                                       ("linux", TC, None)])
def test_a_byte_order_mark_is_read_past(platform: str, text: str, fmt: str | None) -> None:
    plain = read(text, "a.cfg", platform, "a", fmt)
    marked = read("\ufeff" + text, "a.cfg", platform, "a", fmt)
    assert same(marked, plain)
    assert codes(marked) == codes(plain)


def test_a_file_saved_on_windows_utf16_with_crlf_reads_like_utf8(tmp_path: Path) -> None:
    path = tmp_path / "r1.set"
    path.write_bytes(COS.replace("\n", "\r\n").encode("utf-16"))
    assert same(read_file(str(path), "junos-mx"), read(COS, str(path), "junos-mx", "r1"))


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\u200b", "\u202e"])
@pytest.mark.parametrize(("platform", "text", "name", "line"), [
    ("junos-mx", COS, "S-EF", 6), ("junos-mx", COS.replace("set ", "").replace("\n", ";\n"), "S-EF", 6),
    ("ios-xe", IOS, "EF", 1), ("linux", TC, "1:10", 3)])
def test_control_and_invisible_characters_in_a_name_are_refused_at_their_column(
        char: str, platform: str, text: str, name: str, line: int) -> None:
    if platform == "junos-mx" and not text.startswith("set"):  # curly: the set words as one-line statements
        text = "\n".join(f"{ln}" for ln in text.splitlines())
        fmt = "conf"
    else:
        fmt = "set" if platform == "junos-mx" else None
    at = next(i for i, ln in enumerate(text.splitlines(), 1) if name in ln) if platform != "linux" else line
    spoiled = text.replace(name, name[:1] + char + name[1:], 1)
    r = read(spoiled, "bad.cfg", platform, "bad", fmt)
    assert r.behaviour is None
    (d,) = r.diagnostics
    assert d.code == "QOS179" and d.location is not None and d.location.line == at, d
    assert f"U+{ord(char):04X}" in d.message


def test_an_escaped_bidi_override_in_tc_json_is_refused_at_its_object() -> None:
    r = read(TC.replace('"flowid":"1:10"', '"flowid":"1:10\\u202e"'), "eth0.json", "linux", "h")
    assert r.behaviour is None and codes(r) == [("QOS179", 5)]


def test_a_character_reference_in_junos_xml_is_refused_at_its_element() -> None:
    r = read(XML.replace("uplink to core", "uplink&#x202E;to core"), "r1.xml", "junos-mx", "r1")
    assert r.behaviour is None and codes(r) == [("QOS179", 6)]


@pytest.mark.parametrize(("text", "expected"), [
    ("# comment only\n/* annotation */\n" + COS, []),
    (COS + 'set interfaces ge-0/0/1 description "\n', [("QOS179", 11)]),
    (COS + 'set interfaces ge-0/0/1 description "half\n', [("QOS179", 11)]),
    (COS + "delete class-of-service\n", [("QOS179", 11)]),
])
def test_set_files_with_comments_and_lone_quotes(text: str, expected: list[tuple[str, int]]) -> None:
    r = read(text, "r.set", "junos-mx", "r", "set")
    assert codes(r) == expected
    assert (r.behaviour is None) == bool(expected)


def test_braces_nested_a_thousand_deep_are_refused_by_the_depth_limit() -> None:
    text = "".join(f"a{i} {{\n" for i in range(1000)) + "x;\n" + "}\n" * 1000
    r = read(text, "deep.conf", "junos-mx", "deep", "conf")
    assert codes(r) == [("QOS200", LIMITS.max_depth + 1)]


@pytest.mark.parametrize("wrapper", ["[", "{\"qdisc\": "])
def test_tc_json_nested_deeper_than_the_limit_is_refused(wrapper: str) -> None:
    text = wrapper + "[" * 5000 + "]" * 5000 + ("]" if wrapper == "[" else "}")
    r = read(text, "eth0.json", "linux", "h")
    assert r.behaviour is None and codes(r) == [("QOS200", 1)]


@pytest.mark.parametrize(("spoil", "expected"), [
    (lambda t: t.replace('"rate":2500000', '"rate":Infinity'), [("QOS179", 3)]),
    (lambda t: t.replace('"rate":2500000', '"rate":NaN'), [("QOS179", 3)]),
    (lambda t: t.replace('"flowid":"1:10"', '"flowid":"zz:q!"'), [("QOS204", 1), ("QOS172", 5)]),
    (lambda t: t.replace('"prio":1', '"prio":"high"'), [("QOS204", 1), ("QOS172", 3), ("QOS174", 5)]),
    (lambda t: t.replace('"handle":"1:10"', '"handle":[1,10]'), [("QOS204", 1), ("QOS172", 3), ("QOS174", 5)]),
    (lambda t: t.replace('"match":{"value":"b80000","mask":"fc0000","off":0}', '"match":[1,2]'),
     [("QOS204", 1), ("QOS172", 5)]),
    (lambda t: t.replace('{"default":"0x20"}', '[]'), [("QOS204", 1)]),
    (lambda t: t.replace('[{"kind"', '[7, {"kind"'), [("QOS179", 1)]),
    (lambda t: t + "qdisc htb 1: root refcnt 2\n", [("QOS179", 7)]),
])
def test_tc_json_with_wrong_types_infinity_and_garbage_flowids(spoil, expected) -> None:  # type: ignore[no-untyped-def]
    r = read(spoil(TC), "h1.json", "linux", "h1")
    assert codes(r) == expected, r.diagnostics


def test_a_byte_that_is_not_utf8_is_named_at_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "r1.cfg"
    path.write_bytes(IOS.encode() .replace(b"priority percent 20", b"priority percent 20 \xe9t\xe9"))
    r = read_file(str(path), "ios-xe")
    (d,) = r.diagnostics
    assert d.code == "QOS006" and d.location is not None and (d.location.line, d.location.column) == (5, 23)
    assert "0xE9" in d.message


def test_a_file_past_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.conf"
    with path.open("wb") as fh:
        fh.truncate(LIMITS.max_bytes + 1)  # sparse: nothing is written, nothing may be read
    r = read_file(str(path), "junos-mx")
    assert codes(r) == [("QOS200", 1)]
    assert codes(read("x;\n" * (LIMITS.max_bytes // 3 + 1), "big.conf", "junos-mx", "big")) == [("QOS200", 1)]


@pytest.mark.parametrize(("wrapper", "inner"), [
    ("<rpc-reply><configuration-information><configuration-output>\n{}</configuration-output>"
     "</configuration-information></rpc-reply>", "conf"),
    ("<rpc-reply>\n<configuration-text>\n{}</configuration-text></rpc-reply>", "conf"),
    ("<rpc-reply>\n<configuration-set>\n{}</configuration-set></rpc-reply>", "set"),
])
def test_replies_that_carry_the_configuration_as_text(wrapper: str, inner: str) -> None:
    body = COS if inner == "set" else _curly(COS)
    r = read(wrapper.format(body.replace("&", "&amp;").replace("<", "&lt;")), "r1.xml", "junos-mx", "r1")
    plain = read(body, "r1.txt", "junos-mx", "r1", inner)
    assert same(r, plain)
    at = next(d for d in read(wrapper.format(body.replace("S-EF", "S-EF\u202e", 1)), "r1.xml", "junos-mx",
                              "r1").diagnostics)
    line = wrapper.split("{}")[0].count("\n") + 6  # S-EF is on the 6th line of the text
    assert at.code == "QOS179" and at.location is not None and at.location.line == line  # the XML's own line


def _curly(set_text: str) -> str:
    return "".join(f"{ln.removeprefix('set ')};\n" for ln in set_text.splitlines())


@pytest.mark.parametrize("head", [
    "admin@r1> show configuration | display set | no-more\n",
    "{master:0}\nadmin@r1> show configuration | display set\n",
    "show configuration | display set\n[edit]\n",
])
def test_a_cli_capture_is_read_as_what_it_captures(head: str) -> None:
    r = read(head + COS + "\nadmin@r1> \n", "r1.txt", "junos-mx", "r1")
    assert not r.diagnostics and same(r, read(COS, "r1.txt", "junos-mx", "r1"))
    curly = read(head.replace("display set", "") + _curly(COS), "r1.txt", "junos-mx", "r1")
    assert same(curly, r)


def test_deactivated_statements_of_a_set_capture_do_nothing() -> None:
    r = read(COS + "deactivate class-of-service interfaces ge-0/0/1\n", "r1.set", "junos-mx", "r1")
    assert r.behaviour is not None and r.behaviour.interfaces == ()


def test_a_tc_dump_named_after_its_file_names_the_interface_without_the_suffixes(tmp_path: Path) -> None:
    path = tmp_path / "x.tc.json"
    path.write_text(TC)
    r = read_file(str(path), "linux")
    assert r.behaviour is not None and [i.name for i in r.behaviour.interfaces] == ["x"]
    assert codes(r) == [("QOS204", 1)] and "x" in r.diagnostics[0].message


def test_an_ios_banner_is_one_statement() -> None:
    text = "banner motd ^C\n     Authorised\n        use only\n^C\n" + IOS
    r = read(text, "r.cfg", "ios-xe", "r")
    assert same(r, read(IOS, "r.cfg", "ios-xe", "r")) and not r.diagnostics


def test_the_json_of_a_read_is_plain_data() -> None:
    """What verify --format json prints of a read stays JSON (no Infinity leaks through a reader)."""
    r = read(TC, "h.json", "linux", "h")
    assert r.behaviour is not None
    json.dumps([c.share for c in r.behaviour.interfaces[0].classes], allow_nan=False)
