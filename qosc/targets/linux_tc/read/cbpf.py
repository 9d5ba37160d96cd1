"""A classic BPF (cBPF) interpreter for the cls_bpf programs of a tc dump: what a program returns for a frame.

The reader runs each program of a `bpf` filter on frames that differ only in their 802.1Q tag (present or not,
its tag control information), so what matters is the instruction set tc's programs use on packet metadata:
loads of the ancillary data (linux/filter.h SKF_AD_*: the tag, its presence, the protocol), immediate loads,
the scratch memory, ALU and jumps on constants or X, and returns.  A load of packet bytes depends on more than
the tag, so the program's verdict is unknown (None); so is an instruction outside that set.  Opcodes and
semantics: linux/bpf_common.h, linux/filter.h, Documentation/networking/filter.rst ("BPF engine and
instruction set"); cBPF jumps only forward, so every program ends.
"""

from __future__ import annotations

from collections.abc import Sequence

SKF_AD_OFF = 2**32 - 0x1000
SKF_AD_PROTOCOL = 0
SKF_AD_VLAN_TAG = 44
SKF_AD_VLAN_TAG_PRESENT = 48
SKF_AD_VLAN_TPID = 60
MASK = 2**32 - 1

Insn = tuple[int, int, int, int]


def run(program: Sequence[Insn], tci: int | None, protocol: int = 0x0800, tpid: int = 0x8100) -> int | None:
    """The program's return value for a frame with tag control information `tci` (None: untagged), or None when
    it depends on what is not given (packet bytes) or uses an instruction this interpreter does not know."""
    ancillary = {SKF_AD_PROTOCOL: protocol, SKF_AD_VLAN_TAG: tci or 0, SKF_AD_VLAN_TAG_PRESENT: int(tci is not None),
                 SKF_AD_VLAN_TPID: tpid if tci is not None else 0}
    a = x = 0
    mem = [0] * 16
    pc = 0
    while 0 <= pc < len(program):
        code, jt, jf, k = program[pc]
        cls = code & 0x07
        pc += 1
        if cls == 0x00:  # BPF_LD
            mode, size = code & 0xE0, code & 0x18
            if mode == 0x00:  # BPF_IMM
                a = k
            elif mode == 0x20 and size == 0x00 and k >= SKF_AD_OFF and (k - SKF_AD_OFF) in ancillary:  # W ABS
                a = ancillary[k - SKF_AD_OFF]
            elif mode == 0x60:  # BPF_MEM
                a = mem[k & 15]
            else:
                return None  # packet data, or an ancillary field the tag does not give
        elif cls == 0x01:  # BPF_LDX
            if code & 0xE0 == 0x00:
                x = k
            elif code & 0xE0 == 0x60:
                x = mem[k & 15]
            else:
                return None
        elif cls == 0x02:  # BPF_ST
            mem[k & 15] = a
        elif cls == 0x03:  # BPF_STX
            mem[k & 15] = x
        elif cls == 0x04:  # BPF_ALU
            b = x if code & 0x08 else k
            if code & 0xF0 in (0x30, 0x90) and b == 0:
                return 0  # a division by zero ends the program with 0
            found = _alu(code & 0xF0, a, b)
            if found is None:
                return None
            a = found
        elif cls == 0x05:  # BPF_JMP
            op, b = code & 0xF0, x if code & 0x08 else k
            if op == 0x00:  # BPF_JA
                pc += k
                continue
            taken = {0x10: a == b, 0x20: a > b, 0x30: a >= b, 0x40: bool(a & b)}.get(op)
            if taken is None:
                return None
            pc += jt if taken else jf
        elif cls == 0x06:  # BPF_RET
            return {0x00: k, 0x10: a}.get(code & 0x18)
        elif code == 0x07:  # BPF_MISC|BPF_TAX
            x = a
        elif code == 0x87:  # BPF_MISC|BPF_TXA
            a = x
        else:
            return None
    return None


_ALU = {0x00: lambda a, b: a + b, 0x10: lambda a, b: a - b, 0x20: lambda a, b: a * b, 0x30: lambda a, b: a // b,
        0x40: lambda a, b: a | b, 0x50: lambda a, b: a & b, 0x60: lambda a, b: a << (b & 31),
        0x70: lambda a, b: a >> (b & 31), 0x80: lambda a, b: -a, 0x90: lambda a, b: a % b,
        0xA0: lambda a, b: a ^ b}


def _alu(op: int, a: int, b: int) -> int | None:
    """BPF_ALU on 32 bits (the caller has ended the program on a division by zero)."""
    fn = _ALU.get(op)
    return None if fn is None else fn(a, b) & MASK
