"""etkit.bundled_program: upstream's Python API for bundled programs
(BundledProgram, MethodTestCase, MethodTestSuite, serialize_* /
deserialize_*), checked against flatc's decoding with upstream's schema
(schema/bundled_program_schema.fbs) and against `etkit run --verify`."""
import glob
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import etkit
from etkit import BundledProgram
from etkit.bundled_program.config import MethodTestCase, MethodTestSuite
from etkit.bundled_program.serialize import (
    deserialize_from_flatbuffer_to_bundled_program,
    serialize_from_bundled_program_to_flatbuffer,
)



class Manager:
    """Stands for upstream's ExecutorchProgramManager: only .buffer."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.buffer = f.read()


class FakeTorchTensor:
    """What etkit reads of a torch tensor: dtype, detach().cpu().numpy()."""

    def __init__(self, array):
        self._a = array
        self.dtype = "torch.float32"

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self._a


def flatc_json(source_dir, path, tmp_path):
    flatc = shutil.which("flatc")
    assert flatc, "flatc is a build dependency"
    out = subprocess.run(
        [flatc, "--json", "--strict-json", "--defaults-json", "--raw-binary", "-o",
         str(tmp_path), os.path.join(source_dir, "schema/bundled_program_schema.fbs"),
         "--", str(path)], capture_output=True)
    assert out.returncode == 0, out.stderr.decode()
    (decoded,) = glob.glob(str(tmp_path / "*.json"))
    return json.loads(open(decoded).read())


def test_bundle_decodes_with_upstream_schema_and_verifies(demo, cli, source_dir, tmp_path):
    pte = demo / "model.pte"
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(1, 1, 8, 8)
    expected = etkit.run(str(pte), [x]).outputs[0]
    suites = [MethodTestSuite("forward", [
        MethodTestCase([x], [expected]),
        MethodTestCase((FakeTorchTensor(x * 0.5),)),  # inputs only, torch-like
    ])]
    bp = BundledProgram(Manager(pte), suites)
    data = serialize_from_bundled_program_to_flatbuffer(bp)
    assert data[4:8] == b"BP08"
    # the same bytes from pte_file_path=, as upstream allows
    bp2 = BundledProgram(None, suites, pte_file_path=str(pte))
    assert serialize_from_bundled_program_to_flatbuffer(bp2) == data
    path = tmp_path / "t.bpte"
    path.write_bytes(data)
    doc = flatc_json(source_dir, path, tmp_path)
    assert doc["version"] == 2
    assert bytes(doc["program"]) == pte.read_bytes()
    (suite,) = doc["method_test_suites"]
    assert suite["method_name"] == "forward"
    case0, case1 = suite["test_cases"]
    t = case0["inputs"][0]["val"]
    assert case0["inputs"][0]["val_type"] == "Tensor"
    assert t["scalar_type"] == "FLOAT" and t["sizes"] == [1, 1, 8, 8]
    assert bytes(t["data"])[:x.nbytes] == x.tobytes()
    e = case0["expected_outputs"][0]["val"]
    assert bytes(e["data"])[:expected.nbytes] == expected.tobytes()
    assert bytes(case1["inputs"][0]["val"]["data"])[:x.nbytes] == (x * 0.5).tobytes()
    assert case1.get("expected_outputs", []) == []
    out = subprocess.run([cli, "run", "--verify", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "case 0: pass" in out.stdout
    # a wrong expectation fails the gate with 1
    wrong = BundledProgram(Manager(pte), [MethodTestSuite("forward", [
        MethodTestCase([x], [expected + 1])])])
    path.write_bytes(serialize_from_bundled_program_to_flatbuffer(wrong))
    out = subprocess.run([cli, "run", "--verify", str(path)], capture_output=True, text=True)
    assert out.returncode == 1, out.stdout + out.stderr


def test_deserialize_and_run_a_bpte(demo, tmp_path):
    pte = demo / "model.pte"
    x = np.full((1, 1, 8, 8), 0.25, np.float32)
    y = etkit.run(str(pte), [x]).outputs[0]
    bp = BundledProgram(Manager(pte), [MethodTestSuite("forward", [MethodTestCase([x], [y])])])
    data = serialize_from_bundled_program_to_flatbuffer(bp)
    s = deserialize_from_flatbuffer_to_bundled_program(data)
    assert s == bp.serialize_to_schema()
    assert s.version == 2 and s.program == pte.read_bytes()
    (suite,) = s.method_test_suites
    (case,) = suite.test_cases
    t = case.inputs[0].val
    assert int(t.scalar_type) == 6 and t.scalar_type.name == "FLOAT"
    assert t.sizes == [1, 1, 8, 8] and t.dim_order == [0, 1, 2, 3]
    assert t.data[:x.nbytes] == x.tobytes()
    path = tmp_path / "r.bpte"
    path.write_bytes(data)
    # etkit.run takes the .bpte and, without inputs, its first case's
    r = etkit.run(str(path))
    np.testing.assert_array_equal(r.outputs[0], y)
    r = etkit.run(str(path), [np.zeros_like(x)])
    np.testing.assert_array_equal(r.outputs[0], etkit.run(str(pte), [np.zeros_like(x)]).outputs[0])


def test_cases_that_do_not_fit_are_refused_as_upstream(demo):
    pte = demo / "model.pte"
    x = np.zeros((1, 1, 8, 8), np.float32)
    mgr = Manager(pte)
    bad = [
        [MethodTestCase([x.astype(np.float64)])],  # dtype
        [MethodTestCase([np.zeros((1, 1, 4, 4), np.float32)])],  # shape
        [MethodTestCase([x, x])],  # count
        [MethodTestCase([3])],  # a scalar for a tensor
        [MethodTestCase([x], [np.zeros((1, 10), np.int32)])],  # expected dtype
    ]
    for cases in bad:
        with pytest.raises(AssertionError):
            BundledProgram(mgr, [MethodTestSuite("forward", cases)])
    with pytest.raises(ValueError, match="nosuch"):
        BundledProgram(mgr, [MethodTestSuite("nosuch", [MethodTestCase([x])])])
    with pytest.raises(RuntimeError):
        BundledProgram(None, [])
    with pytest.raises(RuntimeError):
        BundledProgram(mgr, [], pte_file_path=str(pte))
    with pytest.raises(TypeError):
        MethodTestCase([None])
    with pytest.raises(TypeError):
        MethodTestCase(["text"])
    with pytest.raises(TypeError):
        BundledProgram(object(), [])
    # the error names no byte offset: the case is in no file yet
    with pytest.raises(AssertionError) as e:
        BundledProgram(mgr, [MethodTestSuite("forward", [MethodTestCase([x.astype(np.float64)])])])
    assert "byte" not in str(e.value) and "DOUBLE" in str(e.value)


def test_nested_inputs_flatten_and_layout_becomes_dim_order():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    c = MethodTestCase({"x": (a, [1, 2.5]), "y": True})
    assert [type(v) for v in c.inputs] == [np.ndarray, int, float, bool]
    from etkit.bundled_program import core

    # a transposed view keeps its memory layout as a dim order, as a
    # channels_last torch tensor does upstream
    t = core._tensor_value(a.T, "x")
    assert t[1] == 6 and t[2] == (3, 2) and t[3] == (1, 0)
    assert t[4] == a.tobytes()  # bytes in memory order
    np.testing.assert_array_equal(core._input_object(t), a.T)
    # a strided view that is no permutation is stored contiguous
    s = core._tensor_value(a[:, ::2], "x")
    assert s[3] == (0, 1) and s[4] == np.ascontiguousarray(a[:, ::2]).tobytes()


def test_upstream_bpte_deserializes_like_flatc(conformance, source_dir, tmp_path):
    path = os.path.join(conformance, "bundled_program.bpte")
    data = open(path, "rb").read()
    s = deserialize_from_flatbuffer_to_bundled_program(data)
    doc = flatc_json(source_dir, path, tmp_path)
    assert s.version == doc["version"]
    assert s.program == bytes(doc["program"])
    assert len(s.method_test_suites) == len(doc["method_test_suites"])
    for ours, theirs in zip(s.method_test_suites, doc["method_test_suites"]):
        assert ours.method_name == theirs["method_name"]
        assert len(ours.test_cases) == len(theirs["test_cases"])
        for oc, tc in zip(ours.test_cases, theirs["test_cases"]):
            for key, attr in (("inputs", "inputs"), ("expected_outputs", "expected_outputs")):
                for ov, tv in zip(getattr(oc, attr), tc.get(key, [])):
                    assert tv["val_type"] == "Tensor"
                    assert ov.val.scalar_type.name == tv["val"]["scalar_type"]
                    assert ov.val.sizes == tv["val"]["sizes"]
                    assert ov.val.data == bytes(tv["val"]["data"])
    # and etkit.run takes it with its first case's inputs
    case = s.method_test_suites[0].test_cases[0]
    r = etkit.run(path)
    exp = case.expected_outputs[0].val
    want = np.frombuffer(exp.data, np.int32)[:4].reshape(exp.sizes)
    np.testing.assert_array_equal(r.outputs[0], want)


def test_run_defaults_have_no_allocation_events_and_warmup_is_untraced(demo, source_dir, tmp_path):
    pte = str(demo / "model.pte")
    flatc = shutil.which("flatc")
    assert flatc

    def kinds(dump):
        d = tmp_path / f"d{len(list(tmp_path.iterdir()))}"
        d.mkdir()
        (d / "x.etdp").write_bytes(dump)
        subprocess.run([flatc, "--json", "--strict-json", "--raw-binary", "--size-prefixed",
                        "-o", str(d), os.path.join(source_dir, "schema/etdump_schema_flatcc.fbs"),
                        "--", str(d / "x.etdp")], check=True)
        doc = json.loads((d / "x.json").read_text())
        runs = doc["run_data"]
        return len(runs), [k for r in runs for e in r.get("events", []) for k in e]

    n1, k = kinds(etkit.run(pte).etdump)
    assert "allocation_event" not in k and "profile_event" in k
    n, k = kinds(etkit.run(pte, allocation_events=True).etdump)
    assert "allocation_event" in k
    # one RunData for loading, one per traced run: the warm-ups are absent
    n2, _ = kinds(etkit.run(pte, iterations=2).etdump)
    n, k = kinds(etkit.run(pte, iterations=2, warmup=3).etdump)
    assert n2 == n1 + 1 and n == n2
    with pytest.raises(ValueError):
        etkit.run(pte, warmup=-1)
