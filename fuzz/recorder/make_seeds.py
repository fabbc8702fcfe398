#!/usr/bin/env python3
"""Writes the hand-made seeds (seed_*) of recorder_fuzz.c into corpus/.
The cov_* files next to them were grown from these by libFuzzer and reduced
to a set that covers the same code edges (greedy set cover over the COV
lines of a -merge=1 control file).  Each seed is a byte program in the
target's format: [arena size u16][string slots][output? (+u32 capacity)]
then opcodes (op % 24) with their operands; see recorder_fuzz.c."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")

BLOCK, ALLOCATOR, ALLOCATION, BEGIN, BEGIN_AT, BEGIN_NAMED = 0, 1, 2, 3, 4, 5
END, BEGIN_DELEGATE, LOG_DELEGATE, LOG_SCALAR, DELEGATE_SCALAR = 6, 8, 9, 10, 11
TENSOR, LIST, CHAIN, BUNDLED, FINISH, LEVELS, INTERN = 12, 13, 14, 15, 16, 17, 18
FILTER, BEGIN_OP, END_OP, SINKS, STATS = 19, 20, 21, 22, 23


def header(arena, slots, output=None):
    b = struct.pack("<HB", arena, slots)
    if output is None:
        return b + b"\x00"
    return b + b"\x01" + struct.pack("<I", output)


def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def seeds():
    s = {}
    # an ExecuTorch-like run: Default + Execute with ops, debug buffer
    p = header(12000, 20)
    p += bytes([SINKS, 0, 200])  # debug buffer
    p += bytes([BLOCK, 3, ALLOCATOR, 0]) + bytes([ALLOCATION, 1]) + u32(4096)
    p += bytes([BEGIN_NAMED, 2, 255, 0, END, 1])
    p += bytes([BLOCK, 4])
    for i in range(6):
        p += bytes([CHAIN, 0, i, BEGIN, 1, BEGIN_NAMED, 1, 255, 0])
        p += bytes([TENSOR, 0, 2, 6, 3, 1, 2, 1, 0, 1, 16, 1, 0])
        p += bytes([END, 1, END, 1])
    p += bytes([CHAIN, 255, 0, FINISH])
    s["execute_run"] = p
    # delegate events, metadata, string and int ids, delegate values
    p = header(8000, 10, 4000)
    p += bytes([BLOCK, 4, BEGIN_DELEGATE, 6, 0, END, 0, 5])
    p += bytes([LOG_DELEGATE, 230, 0]) + u32(1) + u32(2) + bytes([9])
    p += bytes([LOG_DELEGATE, 6, 0]) + u32(0) + u32(0) + bytes([0])
    p += bytes([DELEGATE_SCALAR, 0]) + u32(7) + bytes([220, 1, 3])
    p += bytes([DELEGATE_SCALAR, 1]) + u32(9) + bytes([6, 0])
    p += bytes([FINISH, FINISH, BLOCK, 3, FINISH])
    s["delegates"] = p
    # filter: patterns and a range
    p = header(6000, 10)
    p += bytes([SINKS, 1, 64, 6, BLOCK, 4, FILTER, 1, 7, 1, 10])
    p += bytes([TENSOR, 1, 1, 6, 4, 0, 1, 2, 5, 0, 6, 1])
    p += bytes([TENSOR, 1, 1, 6, 4, 0, 1, 2, 5, 0, 7, 0])
    p += bytes([DELEGATE_SCALAR, 2, 1, 7, 0, FILTER, 0, FINISH])
    s["filter"] = p
    # fill a small arena with operator events until it is full
    p = header(700, 4)
    p += bytes([BLOCK, 4]) + bytes([BEGIN, 1, END, 1]) * 80
    p += bytes([BLOCK, 3, ALLOCATOR, 0, FINISH])
    s["fill_small"] = p
    # a separate, tiny output buffer
    p = header(9000, 8, 200)
    p += bytes([BLOCK, 4]) + bytes([BEGIN_AT, 1, 0, 3, END, 1]) * 20
    s["tiny_output"] = p
    # scalars, program outputs, lists, levels and op scopes
    p = header(10000, 12)
    p += bytes([SINKS, 0, 250, BLOCK, 4, LEVELS, 2, 0])
    p += bytes([LOG_SCALAR, 0]) + u32(5) + bytes([1])
    p += bytes([LOG_SCALAR, 1]) + u32(3) + bytes([0])
    p += bytes([LOG_SCALAR, 2, 1, 1])
    p += bytes([LIST, 2, 1, 3, 2, 1, 1, 1, 1, 8, 3, 11, 0, 1, 1, 0, 1, 1])
    p += bytes([BEGIN_OP, 1, END_OP, LEVELS, 0, 1, BEGIN_OP, 2, END_OP])
    p += bytes([BUNDLED, 3, BLOCK, 4, STATS, FINISH])
    s["values_and_levels"] = p
    # misuse: events before a block, allocator after events, bad names
    p = header(5000, 6)
    p += bytes([BEGIN, 0, END, 1, ALLOCATION, 1]) + u32(1)
    p += bytes([BLOCK, 250, 3, 0xC3, 0x28, 0x41, BLOCK, 3])
    p += bytes([BEGIN, 0, END, 1, ALLOCATOR, 1, END, 0, 0])
    p += bytes([INTERN, 230, 2, 0xFF, 0xFE, FINISH, ALLOCATION, 0]) + u32(0)
    s["misuse"] = p
    # many string slots used by by-name events
    p = header(16000, 39)
    p += bytes([BLOCK, 4])
    for i in range(30):
        p += bytes([BEGIN_NAMED, 230, 3, 65 + i % 26, 66, 48 + i % 10, 0, 0,
                    END, 1])
    s["many_names"] = p
    return s


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in seeds().items():
        with open(os.path.join(OUT, "seed_" + name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
