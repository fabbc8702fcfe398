"""etkit.capture(): framed streams made here by an independent Python
encoder of docs/transport.md's wire format (zlib.crc32, rCOBS), and
upstream Arm runner logs (base64), from the demo's real ETDump and debug
buffer."""

import base64
import os
import struct
import zlib

import subprocess

import pytest

import etkit


def _rcobs(data: bytes) -> bytes:
    out, run = bytearray(), 0
    for b in data:
        if b == 0:
            out.append(run + 1)
            run = 0
        else:
            out.append(b)
            run += 1
            if run == 254:
                out.append(0xFF)
                run = 0
    out.append(run + 1)
    return bytes(out)


def _leb(v: int) -> bytes:
    out = bytearray()
    while True:
        out.append((v & 0x7F) | (0x80 if v >> 7 else 0))
        v >>= 7
        if not v:
            return bytes(out)


_ids = iter(range(1, 1 << 30))


def _frames(kind: int, name: bytes, data: bytes, chunk=4096):
    """The frames of one file, as docs/transport.md describes them: the
    first chunk names the file, the others give sequence and offset, the
    last of several the whole file's CRC."""
    if kind == 0:  # end of stream: FIRST|LAST, id 0, kind 0, no name
        p = bytes([2, 3, 0, 0, 0])
        return [b"\x00\xffET" + _rcobs(p + struct.pack("<I", zlib.crc32(p)))
                + b"\x00"]
    fid = next(_ids) % 255 + 1
    frames = []
    offsets = list(range(0, len(data), chunk)) or [0]
    for seq, off in enumerate(offsets):
        part = data[off:off + chunk]
        last = off == offsets[-1]
        flags = (1 if seq == 0 else 0) | (2 if last else 0)
        p = bytes([2, flags, fid])
        if seq == 0:
            p += bytes([kind, len(name)]) + name
        else:
            p += _leb(seq) + _leb(off)
        p += part
        if last and seq > 0:
            p += struct.pack("<I", zlib.crc32(data))
        p += struct.pack("<I", zlib.crc32(p))
        frames.append(b"\x00\xffET" + _rcobs(p) + b"\x00")
    return frames


@pytest.fixture(scope="module")
def demo(cli, tmp_path_factory):
    d = tmp_path_factory.mktemp("capture_demo")
    subprocess.run([cli, "demo", "--output-dir", str(d)], check=True,
                   capture_output=True)
    return ((d / "etdump.etdp").read_bytes(),
            (d / "debug_buffer.bin").read_bytes())


def test_round_trip_with_log_text(demo, tmp_path):
    dump, dbg = demo
    stream = b"boot\r\nI [etkit] ran, sending "
    for i, fr in enumerate(_frames(1, b"etdump.etdp", dump)):
        stream += fr + f"log line {i}\n".encode()
    stream += b"".join(_frames(2, b"debug_buffer.bin", dbg, chunk=1000))
    found = etkit.capture(stream, output_dir=tmp_path)
    assert found.ok, (found, found.problems)
    assert [(f.name, f.kind, f.complete) for f in found] == [
        ("etdump.etdp", "etdump", True),
        ("debug_buffer.bin", "debug_buffer", True)]
    assert found[0].data == dump and found[0].size == len(dump)
    assert (tmp_path / "etdump.etdp").read_bytes() == dump
    assert (tmp_path / "debug_buffer.bin").read_bytes() == dbg
    # the same from a path and from a file object
    p = tmp_path / "stream.log"
    p.write_bytes(stream)
    assert etkit.capture(str(p))[1].data == dbg
    with open(p, "rb") as f:
        assert etkit.capture(f)[0].data == dump


def test_lost_chunk_is_partial(demo, tmp_path):
    dump, _ = demo
    frames = _frames(1, b"etdump.etdp", dump)
    del frames[1]
    found = etkit.capture(b"".join(frames), output_dir=tmp_path)
    assert not found.ok
    (f,) = found
    assert not f.complete
    assert f.problems == ["chunk 1 missing"]
    assert f.data == dump[:4096]
    assert (tmp_path / "etdump.etdp.partial").exists()
    assert not (tmp_path / "etdump.etdp").exists()


def test_flipped_byte_names_damage(demo):
    dump, _ = demo
    frames = _frames(1, b"etdump.etdp", dump)
    frames[2] = frames[2][:200] + bytes([frames[2][200] ^ 0x01]) + \
        frames[2][201:]
    found = etkit.capture(b"".join(frames))
    assert not found[0].complete
    assert any("chunk 2 damaged" in p for p in found[0].problems)
    assert any("damaged frame" in p for p in found.problems)


def _arm_block(files):
    text = "#[RUN THIS]\n"
    for name, data in files:
        text += f"# Writing {name} [base64]\n"
        text += f'echo "{base64.b64encode(data).decode()}" | base64 -d >{name}\n'
    return text + "#[END]\n"


def test_arm_log(demo, tmp_path):
    dump, dbg = demo
    log = "I [executorch] Model executed\n" + _arm_block(
        [("debug_buffer.bin", dbg), ("etdump.bin", dump)])
    log = log.replace("\n", "\r\n") + _arm_block([("etdump.bin", dump)])
    found = etkit.capture(log.encode(), output_dir=tmp_path)
    assert found.ok, found.problems
    assert [(f.out_name, f.source) for f in found] == [
        ("debug_buffer.bin", "arm_log"), ("etdump.bin", "arm_log"),
        ("etdump-2.bin", "arm_log")]
    assert (tmp_path / "etdump-2.bin").read_bytes() == dump
    assert found[0].data == dbg


def test_arm_log_cut(demo):
    dump, _ = demo
    log = _arm_block([("etdump.bin", dump)])
    found = etkit.capture(log[:len(log) // 2].encode())
    assert not found.ok
    assert not found[0].complete
    assert "has no #[END]" in " ".join(found.problems)


def test_same_verdict_as_cli(demo, cli, tmp_path):
    dump, _ = demo
    frames = _frames(1, b"etdump.etdp", dump)
    stream = b"".join(frames[:2] + frames[3:])
    p = tmp_path / "lost.log"
    p.write_bytes(stream)
    r = subprocess.run([cli, "capture", str(p), "--output-dir",
                        str(tmp_path / "out")], capture_output=True, text=True)
    assert r.returncode == 1
    assert "chunk 2 missing" in r.stderr
    assert etkit.capture(stream)[0].problems == ["chunk 2 missing"]


def test_bad_source():
    with pytest.raises(TypeError):
        etkit.capture(12)
    assert not etkit.capture(b"just text\n").ok


def _serial_capture(cli, stream, out, extra=()):
    """`etkit capture` on the slave side of a pseudo-terminal (a serial
    device as far as termios is concerned), fed through the master."""
    import pty
    import time

    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [cli, "capture", os.ttyname(slave), "--baud", "921600",
             "--output-dir", str(out), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)  # raw mode first: a cooked line would echo bytes
        for i in range(0, len(stream), 4096):
            os.write(master, stream[i:i + 4096])
        stdout, stderr = proc.communicate(timeout=30)
        return proc.returncode, stdout, stderr
    finally:
        os.close(master)
        os.close(slave)


def test_serial_device_stops_at_end_marker(demo, cli, tmp_path):
    dump, dbg = demo
    stream = b"boot\r\n" + b"".join(_frames(1, b"etdump.etdp", dump))
    stream += b"log\r\n" + b"".join(_frames(2, b"debug_buffer.bin", dbg))
    stream += b"".join(_frames(0, b"", b""))  # end of stream
    rc, out, err = _serial_capture(cli, stream, tmp_path / "a",
                                   ("--timeout", "20"))
    assert rc == 0, err
    assert (tmp_path / "a" / "etdump.etdp").read_bytes() == dump
    assert (tmp_path / "a" / "debug_buffer.bin").read_bytes() == dbg
    # without the end marker: silence ends it, the cut file is partial
    cut = b"".join(_frames(1, b"etdump.etdp", dump)[:-1])
    rc, out, err = _serial_capture(cli, cut, tmp_path / "b",
                                   ("--timeout", "1"))
    assert rc == 1
    assert "no end-of-file frame" in err
    assert (tmp_path / "b" / "etdump.etdp.partial").exists()
    assert not (tmp_path / "b" / "etdump.etdp").exists()
