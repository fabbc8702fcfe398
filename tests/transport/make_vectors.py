#!/usr/bin/python3
"""The transport's wire vectors in tests/transport/test_transport.c, made
from docs/transport.md's description alone (zlib.crc32 and a short rCOBS
encoder; no etkit code): run it and paste its output into the test.
With a folder argument it also writes them there as single-frame seeds
for fuzz/capture/corpus."""
import os
import sys
import zlib


def rcobs(payload):
    """Split at each zero; a group over 254 bytes is cut into pieces of
    254 closed by 0xFF; each group then its code (length + 1)."""
    out = bytearray()
    for group in payload.split(b"\x00"):
        while len(group) >= 254:
            out += group[:254] + b"\xff"
            group = group[254:]
        out += group + bytes([len(group) + 1])
    return bytes(out)


def frame(payload):
    payload += zlib.crc32(payload).to_bytes(4, "little")
    return b"\x00\xffET" + rcobs(payload) + b"\x00"


def leb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def show(name, data):
    if len(sys.argv) > 1:
        seed = "frame_" + name.replace(" ", "_").replace(".", "_") + ".bin"
        with open(os.path.join(sys.argv[1], seed), "wb") as f:
            f.write(data)
    print(f"/* {name} */")
    hexes = [f"0x{b:02x}" for b in data]
    for i in range(0, len(hexes), 10):
        print("      " + ", ".join(hexes[i:i + 10]) + ",")


# version 2, flags FIRST|LAST, id 1, kind 1, name "a.bin", data 00 01 02
show("a.bin", frame(bytes([2, 3, 1, 1, 5]) + b"a.bin" + b"\x00\x01\x02"))
# end of stream: FIRST|LAST, id 0, kind 0, no name
show("end of stream", frame(bytes([2, 3, 0, 0, 0])))
# "b", kind 3, chunks of 2 bytes, data 01 02 03 (id 1):
# chunk 0 FIRST with 01 02; chunk 1 LAST, seq 1, offset 2, data 03, file CRC
data = b"\x01\x02\x03"
two = frame(bytes([2, 1, 1, 3, 1]) + b"b" + data[:2])
two += frame(bytes([2, 2, 1]) + leb(1) + leb(2) + data[2:] +
             zlib.crc32(data).to_bytes(4, "little"))
show("b in two chunks", two)
