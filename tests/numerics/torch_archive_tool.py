#!/usr/bin/env python3
"""torch_archive_tool.py - makes and reads torch.save-style archives WITHOUT
torch, for etkit's tests of its restricted unpickler and writer.

How the fixtures are made (be honest: no real torch was run):
  * Fake modules `torch`, `torch._utils` and `torch.storage` are put in
    sys.modules with a `_rebuild_tensor_v2` function and `<Dtype>Storage`
    classes.  Python's own `pickle.Pickler` (protocol 2, torch.save's
    default) then pickles fake tensors whose __reduce_ex__ returns exactly
    what torch.Tensor._reduce_ex_internal returns for a plain dense tensor:
        (torch._utils._rebuild_tensor_v2,
         (storage, storage_offset, size, stride, requires_grad, OrderedDict()))
    and storages through persistent_id as torch.serialization._save does:
        ("storage", torch.<Dtype>Storage, "<key>", "cpu", numel)
    So the opcodes are the ones the real pickler emits for torch.save.
  * The ZIP is written by hand with the layout of torch's writer as seen in
    ../shared/conformance/etrecord_toy_mul.bin (a real torch.save output):
    entries archive/data.pkl, archive/byteorder, archive/data/<key>...,
    archive/version, archive/.data/serialization_id; local headers with flag
    0x0808, zero sizes and an "FB" extra field padding data to 64 bytes;
    a data descriptor after each entry; ZIP64 end record + locator + end
    record.  Element bytes are little-endian (struct module).

Usage:
  torch_archive_tool.py generate OUTDIR   write the fixture files
  torch_archive_tool.py corpus OUTDIR     write the fuzz seed corpus: the
                                          fixtures, the bare data.pkl of each
                                          archive, and hostile pickles
  torch_archive_tool.py dump FILE         load FILE (a torch.save archive)
                                          with the fake torch and print a
                                          canonical text of its values
"""
import collections
import io
import math
import os
import pickle
import struct
import sys
import types
import zipfile
import zlib

# ------------------------------------------------------------ fake torch

DTYPES = {  # storage class -> (struct code, element size, name)
    "ByteStorage": ("B", 1, "uint8"),
    "CharStorage": ("b", 1, "int8"),
    "ShortStorage": ("h", 2, "int16"),
    "IntStorage": ("i", 4, "int32"),
    "LongStorage": ("q", 8, "int64"),
    "HalfStorage": ("e", 2, "float16"),
    "FloatStorage": ("f", 4, "float32"),
    "DoubleStorage": ("d", 8, "float64"),
    "BoolStorage": ("?", 1, "bool"),
    "BFloat16Storage": (None, 2, "bfloat16"),
    "ComplexFloatStorage": (None, 8, "complex64"),
}

torch = types.ModuleType("torch")
torch_utils = types.ModuleType("torch._utils")
torch_storage = types.ModuleType("torch.storage")
torch._utils = torch_utils
torch.storage = torch_storage
sys.modules.update({"torch": torch, "torch._utils": torch_utils,
                    "torch.storage": torch_storage})


class FakeTensor:
    def __init__(self, storage, offset, size, stride, requires_grad=False,
                 hooks=None):
        self.storage, self.offset = storage, offset
        self.size, self.stride = tuple(size), tuple(stride)
        self.requires_grad = requires_grad
        self.hooks = hooks if hooks is not None else collections.OrderedDict()

    def __reduce_ex__(self, proto):
        return (torch_utils._rebuild_tensor_v2,
                (self.storage, self.offset, self.size, self.stride,
                 self.requires_grad, self.hooks))


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
                       backward_hooks, metadata=None):
    return FakeTensor(storage, storage_offset, size, stride, requires_grad,
                      backward_hooks)


_rebuild_tensor_v2.__module__ = "torch._utils"
torch_utils._rebuild_tensor_v2 = _rebuild_tensor_v2


class FakeStorage:
    """A typed storage: class name + raw little-endian bytes."""

    def __init__(self, cls, data):
        self.cls, self.data = cls, bytes(data)
        self.numel = len(self.data) // DTYPES[cls.__name__][1]


for _name in DTYPES:
    _cls = type(_name, (), {"__module__": "torch"})
    setattr(torch, _name, _cls)
torch.UntypedStorage = type("UntypedStorage", (), {"__module__": "torch"})


def storage(cls_name, values=None, raw=None):
    code, size, _ = DTYPES[cls_name]
    if raw is None:
        raw = b"".join(struct.pack("<" + code, v) for v in values)
    return FakeStorage(getattr(torch, cls_name), raw)


def bf16(values):
    """bfloat16 bits: the top half of each float32 (values chosen exact)."""
    return b"".join(struct.pack("<f", v)[2:] for v in values)


def contiguous(stor, size, offset=0):
    stride, s = [], 1
    for d in reversed(size):
        stride.insert(0, s)
        s *= d if d else 1
    return FakeTensor(stor, offset, size, stride)


def tensor(cls_name, values, size=None):
    return contiguous(storage(cls_name, values),
                      list(size) if size is not None else [len(values)])


# ------------------------------------------------------------ writing

class TorchPickler(pickle.Pickler):
    def __init__(self, f):
        super().__init__(f, protocol=2)
        self.keys, self.storages = {}, []

    def persistent_id(self, obj):
        if isinstance(obj, FakeStorage):
            key = self.keys.get(id(obj))
            if key is None:
                key = self.keys[id(obj)] = str(len(self.keys))
                self.storages.append((key, obj))
            return ("storage", obj.cls, key, "cpu", obj.numel)
        return None


def zip_torch_layout(entries):
    """entries: [(name, bytes)] -> bytes in torch's writer layout."""
    out, central = bytearray(), []
    for name, data in entries:
        nb = name.encode()
        offset = len(out)
        start = offset + 30 + len(nb) + 4
        pad = (64 - start % 64) % 64
        crc = zlib.crc32(data) & 0xFFFFFFFF
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 0, 0x0808, 0, 0, 0,
                           0, 0, 0, len(nb), 4 + pad)
        out += nb + b"FB" + struct.pack("<H", pad) + b"Z" * pad + data
        out += struct.pack("<4sIII", b"PK\x07\x08", crc, len(data), len(data))
        central.append(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 0, 0,
                                   0x0808, 0, 0, 0, crc, len(data), len(data),
                                   len(nb), 0, 0, 0, 0, 0, offset) + nb)
    cd_offset = len(out)
    for c in central:
        out += c
    cd_size, z64 = len(out) - cd_offset, len(out)
    n = len(entries)
    out += struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 0x031E, 45, 0, 0, n,
                       n, cd_size, cd_offset)
    out += struct.pack("<4sIQI", b"PK\x06\x07", 0, z64, 1)
    out += struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, n, n, cd_size,
                       cd_offset, 0)
    return bytes(out)


def torch_save(obj, folder="archive", byteorder=b"little", drop=None,
               shorten=None):
    buf = io.BytesIO()
    p = TorchPickler(buf)
    p.dump(obj)
    entries = [(folder + "/data.pkl", buf.getvalue()),
               (folder + "/byteorder", byteorder)]
    for key, st in sorted(p.storages, key=lambda ks: ks[0]):
        data = st.data if shorten != key else st.data[:-1]
        if drop != key:
            entries.append((folder + "/data/" + key, data))
    entries.append((folder + "/version", b"3\n"))
    entries.append((folder + "/.data/serialization_id", b"0" * 40))
    return zip_torch_layout(entries), buf.getvalue()


# ------------------------------------------------------------ fixtures

def fixtures():
    f = {}
    f["dtypes.pt"] = torch_save({
        "u8": tensor("ByteStorage", [1, 2, 255]),
        "i8": tensor("CharStorage", [-1, 2, -128]),
        "i16": tensor("ShortStorage", [-300, 7, 32767]),
        "i32": tensor("IntStorage", [-70000, 0, 2147483647]),
        "i64": tensor("LongStorage", [-(2 ** 40), 1, 2 ** 62]),
        "f16": tensor("HalfStorage", [1.0, -2.5, 65504.0]),
        "bf16": contiguous(FakeStorage(torch.BFloat16Storage,
                                       bf16([1.0, -3.0, 0.5])), [3]),
        "f32": tensor("FloatStorage", [0.25, -1.5, 3.0, 4.0, 5.0, 6.0], [2, 3]),
        "f64": tensor("DoubleStorage", [math.pi, -0.0]),
        "bool": tensor("BoolStorage", [True, False, True]),
        "scalar": contiguous(storage("FloatStorage", [42.0]), []),
    })[0]
    base = storage("FloatStorage", [float(i) for i in range(12)])
    f["views.pt"] = torch_save({
        "base": FakeTensor(base, 0, [3, 4], [4, 1]),
        "transposed": FakeTensor(base, 0, [4, 3], [1, 4]),
        "row1": FakeTensor(base, 4, [4], [1]),
        "column2": FakeTensor(base, 2, [3], [4]),
        "scalar5": FakeTensor(base, 5, [], []),
        "empty": FakeTensor(base, 0, [0, 3], [3, 1]),
        "expanded": FakeTensor(base, 8, [2, 3], [0, 1]),
    }, folder="views")[0]
    shared = [1, 2]
    f["nested.pt"] = torch_save({
        "forward": [[tensor("FloatStorage", [1.0, 2.0]),
                     tensor("LongStorage", [3])],
                    [tensor("FloatStorage", [4.0])]],
        "none": None,
        "flags": (True, False),
        "ints": [0, 255, 256, 65535, 65536, -1, 2 ** 31 - 1, -2 ** 31, 2 ** 31,
                 2 ** 63 - 1, -2 ** 63],
        "floats": [0.5, -1e300, float("inf"), float("-inf")],
        "text": "h\u00e9llo \u2713",
        "od": collections.OrderedDict([("a", 1), ("b", 2)]),
        "shared": [shared, shared],
        "deep": {1: {"x": (1, 2, 3, 4), "y": (5,), "z": ()}},
        "big_list": list(range(1005)),
    })[0]
    f["reference_outputs.pt"] = torch_save({
        "forward": [[tensor("FloatStorage", [1.0, 2.0, 3.0])],
                    [tensor("FloatStorage", [-1.0, 0.0, 1.0])]]})[0]
    plain = {"a": [1, 2.5, "three", None, True], "b": (1, 2, 3, 4),
             "c": collections.OrderedDict([("k", b"\x00\xff")]), "d": 2 ** 70 // 2 ** 10}
    # bare pickles of plain values in other protocols (not torch.save)
    f["plain_proto4.pkl"] = pickle.dumps(plain, protocol=4)
    f["plain_proto5.pkl"] = pickle.dumps(plain, protocol=5)
    f["plain_proto0.pkl"] = pickle.dumps([1, -2, 3.25, [4], {5: 6}], protocol=0)
    # hostile or unsupported inputs made by the real pickler
    loop = []
    loop.append(loop)
    f["recursive_list.pkl"] = pickle.dumps(loop, protocol=2)
    deep = []
    for _ in range(150):
        deep = [deep]
    f["deep_150.pkl"] = pickle.dumps(deep, protocol=2)
    f["legacy_raw.pt"] = pickle.dumps({"forward": [[1.0]]}, protocol=2)
    f["complex.pt"] = torch_save(contiguous(
        FakeStorage(torch.ComplexFloatStorage, b"\0" * 16), [2]))[0]
    f["missing_storage.pt"] = torch_save(tensor("FloatStorage", [1.0, 2.0]),
                                         drop="0")[0]
    f["short_storage.pt"] = torch_save(tensor("FloatStorage", [1.0, 2.0]),
                                       shorten="0")[0]
    f["big_endian.pt"] = torch_save(tensor("FloatStorage", [1.0]),
                                    byteorder=b"big")[0]
    f["hooks.pt"] = torch_save(FakeTensor(storage("FloatStorage", [1.0]), 0, [1],
                                          [1], False,
                                          collections.OrderedDict([(1, None)])))[0]
    f["outside_storage.pt"] = torch_save(FakeTensor(
        storage("FloatStorage", [1.0, 2.0]), 1, [2], [1]))[0]
    good = f["reference_outputs.pt"]
    f["truncated.pt"] = good[: len(good) // 2]
    # a standard zipfile archive (deflated, no padding): readers must cope
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        _, pkl = torch_save({"x": tensor("IntStorage", [7, 8])})
        for name, data in (("other/data.pkl", pkl),
                           ("other/data/0", struct.pack("<ii", 7, 8))):
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    f["zipfile_deflated.pt"] = z.getvalue()
    return f


def corpus():
    """Seeds for fuzz/pickle: every fixture, the pickle of every archive
    (the fuzz target zips a bare pickle next to storages data/0..3), and
    short hand-made pickles for the refusal paths."""
    c = {}
    for name, data in fixtures().items():
        c[name] = data
        if data[:2] == b"PK":
            try:
                with zipfile.ZipFile(io.BytesIO(data)) as zf:
                    first = zf.namelist()[0]
                    c[name + ".data_pkl"] = zf.read(first.split("/")[0] +
                                                    "/data.pkl")
            except (zipfile.BadZipFile, KeyError):
                pass
    c["global_os_system.pkl"] = b"\x80\x02cos\nsystem\nX\x02\x00\x00\x00id\x85R."
    c["stack_global.pkl"] = b"\x80\x04\x8c\x08builtins\x8c\x04eval\x93."
    c["newobj.pkl"] = b"\x80\x02}q\x00\x81."
    c["build.pkl"] = b"}}b."
    c["memo.pkl"] = b"]q\x00h\x00a."
    c["long1.pkl"] = b"\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01."
    c["dup_keys.pkl"] = b"}(K\x01N\x88NG?\xf0\x00\x00\x00\x00\x00\x00Nu."
    c["text_ops.pkl"] = b"(I1\nI01\nL5L\nF2.5\np0\ng0\nl."
    return c


# ------------------------------------------------------------ reading

class Unpickler(pickle.Unpickler):
    def __init__(self, f, zf, prefix):
        super().__init__(f)
        self.zf, self.prefix = zf, prefix

    def persistent_load(self, pid):
        tag, cls, key, location, numel = pid
        assert tag == "storage" and location == "cpu", pid
        data = self.zf.read(self.prefix + "data/" + key)
        size = DTYPES[cls.__name__][1]
        assert len(data) >= numel * size, (key, len(data), numel)
        return FakeStorage(cls, data[: numel * size])

    def find_class(self, module, name):
        allowed = {("torch._utils", "_rebuild_tensor_v2"),
                   ("collections", "OrderedDict")}
        if (module, name) in allowed or (module == "torch" and
                                         name.endswith("Storage")):
            return super().find_class(module, name)
        raise pickle.UnpicklingError("global %s.%s refused" % (module, name))


def canon(v):
    if isinstance(v, FakeTensor):
        name = v.storage.cls.__name__
        code, size, dt = DTYPES[name]
        vals = []
        n = 1
        for d in v.size:
            n *= d
        for flat in range(n):
            idx, rest = [], flat
            for d in reversed(v.size):
                idx.insert(0, rest % d)
                rest //= d
            at = v.offset + sum(i * s for i, s in zip(idx, v.stride))
            raw = v.storage.data[at * size:(at + 1) * size]
            vals.append(repr(struct.unpack("<" + code, raw)[0]) if code
                        else raw.hex())
        return "tensor(%s, %s, [%s])" % (dt, list(v.size), ", ".join(vals))
    if isinstance(v, collections.OrderedDict):
        return "OrderedDict{%s}" % ", ".join("%s: %s" % (canon(k), canon(x))
                                             for k, x in v.items())
    if isinstance(v, dict):
        return "{%s}" % ", ".join("%s: %s" % (canon(k), canon(x))
                                  for k, x in v.items())
    if isinstance(v, list):
        return "[%s]" % ", ".join(canon(x) for x in v)
    if isinstance(v, tuple):
        return "(%s%s)" % (", ".join(canon(x) for x in v),
                           "," if len(v) == 1 else "")
    return repr(v)


def dump(path):
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        prefix = names[0].split("/")[0] + "/"
        assert names[0] == prefix + "data.pkl", names
        assert zf.read(prefix + "byteorder") == b"little"
        data = zf.read(prefix + "data.pkl")
        print(canon(Unpickler(io.BytesIO(data), zf, prefix).load()))


def write_files(directory, files):
    """Writes each name -> bytes of `files` into `directory`."""
    os.makedirs(directory, exist_ok=True)
    for name, data in sorted(files.items()):
        with open(os.path.join(directory, name), "wb") as out:
            out.write(data)


def main(argv):
    if len(argv) == 3 and argv[1] in ("generate", "corpus"):
        write_files(argv[2], fixtures() if argv[1] == "generate" else corpus())
        return 0
    if len(argv) == 3 and argv[1] == "dump":
        dump(argv[2])
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
