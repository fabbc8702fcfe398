"""`etkit info --ops / --selective-build / --sizes` and `etkit info` on
ETDumps and ETRecords, against an independent reading of the same files:
flatc's JSON of the program with upstream's schema, and for the YAML
upstream's own algorithm (codegen/tools/gen_oplist.py and
selective_build.cpp, re-done here over flatc's JSON) printed by
yaml.safe_dump, byte for byte."""
import glob
import json
import os
import shutil
import subprocess

import pytest

from etkit.bundled_program.schema import ScalarType

import yaml  # python3-yaml (scripts/install-deps.sh)



def programs(demo, conformance_dir=None):
    out = [str(demo / "model.pte")]
    c = os.environ.get("ETKIT_CONFORMANCE_DIR", "")
    for name in ("add.pte", "module_linear_inline_constants.pte"):
        if os.path.isfile(os.path.join(c, name)):
            out.append(os.path.join(c, name))
    return out


def flatc_program(source_dir, path, tmp_path):
    flatc = shutil.which("flatc")
    assert flatc, "flatc is a build dependency"
    d = tmp_path / os.path.basename(path)
    d.mkdir()
    subprocess.run([flatc, "--json", "--strict-json", "--defaults-json", "--raw-binary",
                    "-o", str(d), os.path.join(source_dir, "schema/program.fbs"), "--", path],
                   check=True, capture_output=True)
    (j,) = glob.glob(str(d / "*.json"))
    return json.loads(open(j).read())


def upstream_oplist(doc, model_path):
    """gen_oplist.py --model_file_path's dictionary, from flatc's JSON."""
    ops = set()
    meta = {}
    for plan in doc["execution_plan"]:
        names = [o["name"] + ("." + o["overload"] if o.get("overload") else "")
                 for o in plan.get("operators", [])]
        ops.update(names)
        values = plan["values"]

        def tensor_key(t):
            return f"{int(ScalarType[t['scalar_type']])};" + ",".join(
                str(x) for x in t.get("dim_order", []))

        for chain in plan["chains"]:
            for ins in chain.get("instructions", []):
                if ins["instr_args_type"] != "KernelCall":
                    continue
                call = ins["instr_args"]
                key = "v1/"
                for a in call.get("args", []):
                    v = values[a]
                    kind = v["val_type"]
                    t = None
                    if kind == "Tensor":
                        t = v["val"]
                    elif kind == "TensorList" and v["val"].get("items"):
                        t = values[v["val"]["items"][0]]["val"]
                    elif kind == "OptionalTensorList":
                        for i in v["val"].get("items", []):
                            if i != -1 and values[i]["val_type"] == "Tensor":
                                t = values[i]["val"]
                                break
                    if t is not None:
                        key += tensor_key(t) + "|"
                meta.setdefault(names[call["op_index"]], set()).add(key[:-1])
    operators = {op: {"is_root_operator": True, "is_used_for_training": True,
                      "include_all_overloads": False, "debug_info": [model_path]}
                 for op in sorted(ops)}
    return {"operators": operators, "custom_classes": [], "build_features": [],
            "include_all_non_op_selectives": False, "include_all_operators": False,
            "kernel_metadata": {},
            "et_kernel_metadata": {op: sorted(k) for op, k in meta.items()}}


def test_selective_build_yaml_is_gen_oplists(demo, cli, source_dir, tmp_path):
    for path in programs(demo):
        out = tmp_path / (os.path.basename(path) + ".yaml")
        r = subprocess.run([cli, "info", path, "--selective-build", str(out)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert f"wrote {out}" in r.stderr
        want = yaml.safe_dump(upstream_oplist(flatc_program(source_dir, path, tmp_path), path),
                              default_flow_style=False)
        assert out.read_text() == want, path


def test_ops_counts_each_operators_kernel_calls(demo, cli, source_dir, tmp_path):
    for path in programs(demo):
        doc = flatc_program(source_dir, path, tmp_path)
        r = subprocess.run([cli, "info", "--ops", path], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        for plan in doc["execution_plan"]:
            counts = {}
            for chain in plan["chains"]:
                for ins in chain.get("instructions", []):
                    if ins["instr_args_type"] == "KernelCall":
                        i = ins["instr_args"]["op_index"]
                        counts[i] = counts.get(i, 0) + 1
            head = [n for n, l in enumerate(lines) if l.startswith(f"method {plan['name']}:")]
            assert head, r.stdout
            rows = lines[head[0] + 2: head[0] + 2 + len(plan.get("operators", []))]
            for i, (op, row) in enumerate(zip(plan.get("operators", []), rows)):
                name = op["name"] + ("." + op["overload"] if op.get("overload") else "")
                cells = row.split()
                assert cells[0] == name and int(cells[1]) == counts.get(i, 0), row
                assert cells[2] in ("yes", "no")
    # the demo runs on etkit's runtime: every kernel but the delegate is there
    r = subprocess.run([cli, "info", "--ops", str(demo / "model.pte")], capture_output=True,
                       text=True)
    assert " no\n" not in r.stdout


def test_sizes_against_flatc(demo, cli, source_dir, tmp_path):
    size = {"FLOAT": 4, "DOUBLE": 8, "INT": 4, "LONG": 8, "CHAR": 1, "BYTE": 1, "BOOL": 1,
            "SHORT": 2, "HALF": 2}
    for path in programs(demo):
        doc = flatc_program(source_dir, path, tmp_path)
        buffers = {}
        planned = 0
        for plan in doc["execution_plan"]:
            for v in plan["values"]:
                t = v["val"] if v["val_type"] == "Tensor" else None
                if t and t.get("data_buffer_idx", 0) > 0 and not t.get("allocation_info"):
                    n = size[t["scalar_type"]]
                    for s in t.get("sizes", []):
                        n *= s
                    buffers.setdefault(t["data_buffer_idx"], n)
            planned += sum(plan.get("non_const_buffer_sizes", [])[1:])
        blobs = sum(len(d.get("data", [])) for d in doc.get("backend_delegate_data", []))
        r = subprocess.run([cli, "info", "--sizes", path], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        fig = dict(zip(*[iter(r.stdout.splitlines()[1].split())] * 2))
        assert int(fig["total_tensor_data_size"]) == sum(buffers.values()), path
        assert int(fig["model_size"]) == os.path.getsize(path)
        assert int(fig["serialization_metadata_size"]) == (
            os.path.getsize(path) - sum(buffers.values()) - int(fig["total_delegate_blob_data_size"]))
        if blobs:  # inline payloads (the demo's delegate)
            assert int(fig["total_delegate_blob_data_size"]) >= blobs
        if planned:
            assert f"planned memory: {planned} bytes" in r.stdout


def test_sizes_json_has_upstreams_shape(demo, cli, source_dir, tmp_path):
    """--sizes --format json: upstream's model_size_information.json shape
    (a list of {tensor_data, delegate_blob_data, overview}), its entries
    checked against flatc's reading of the program and the text figures."""
    numpy_name = {"FLOAT": "float32", "DOUBLE": "float64", "INT": "int32", "LONG": "int64",
                  "CHAR": "int8", "BYTE": "uint8", "BOOL": "bool", "SHORT": "int16",
                  "HALF": "float16"}
    for path in programs(demo):
        doc = flatc_program(source_dir, path, tmp_path)
        r = subprocess.run([cli, "info", "--sizes", "--format", "json", path],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        (info,) = json.loads(r.stdout)  # nothing but the document on stdout
        assert set(info) >= {"tensor_data", "delegate_blob_data", "overview"}
        text = subprocess.run([cli, "info", "--sizes", path], capture_output=True,
                              text=True).stdout
        fig = dict(zip(*[iter(text.splitlines()[1].split())] * 2))
        assert info["overview"] == {k: int(v) for k, v in fig.items()}
        ov = info["overview"]
        assert ov["model_size"] == os.path.getsize(path)
        assert ov["total_tensor_data_size"] == sum(
            t["num_bytes"] for t in info["tensor_data"] if not t["shared"])
        nbytes = [t["num_bytes"] for t in info["tensor_data"]]
        assert nbytes == sorted(nbytes, reverse=True)  # largest first, as upstream
        for t in info["tensor_data"]:
            plan = next(p for p in doc["execution_plan"] if p["name"] == t["method"])
            want = plan["values"][t["value"]]["val"]
            assert t["shape"] == want.get("sizes", [])
            assert t["dtype"] == numpy_name[want["scalar_type"]]
            assert t["num_bytes"] == t["numel"] * t["element_size"]
            assert t["name"] == want.get("extra_tensor_info", {}).get(
                "fully_qualified_name", f"value_{t['value']}")
        delegates = sum(len(p.get("delegates", [])) for p in doc["execution_plan"])
        assert len(info["delegate_blob_data"]) == delegates
        for d in info["delegate_blob_data"]:
            assert d["name"].startswith("lowered_module_") and d["backend_id"]
        assert ov["total_delegate_blob_data_size"] == sum(
            d["num_bytes"] for d in info["delegate_blob_data"])
    for bad in (["--format", "json"], ["--sizes", "--format", "yaml"],
                ["--sizes", "--format", "json", "--ops"]):
        r = subprocess.run([cli, "info", *bad, str(demo / "model.pte")], capture_output=True,
                           text=True)
        assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1


def test_info_on_a_dump_and_a_record(demo, cli):
    r = subprocess.run([cli, "info", str(demo / "etdump.etdp")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "runs: 3 in 2 event blocks" in r.stdout  # load + 2 runs
    assert "dropped: none" in r.stdout
    import re
    m = re.search(r"events: (\d+) \((\d+) profile, (\d+) debug, (\d+) allocation\)", r.stdout)
    assert m and int(m.group(1)) == sum(int(m.group(i)) for i in (2, 3, 4))
    import etkit
    ins = etkit.Inspector(etdump_path=str(demo / "etdump.etdp"))
    assert len(ins.event_blocks) == 2
    r = subprocess.run([cli, "info", str(demo / "model.etrecord")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "representative inputs: present" in r.stdout
    assert "reference outputs: present" in r.stdout
    assert "edge program edge_dialect_exported_program/forward" in r.stdout
    r = subprocess.run([cli, "info", "--ops", str(demo / "etdump.etdp")], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "program" in r.stderr
    r = subprocess.run([cli, "info", str(demo / "model.pte")], capture_output=True, text=True)
    assert "delegates:\n  forward delegate 0: backend EtkitMicroBackend" in r.stdout
    assert "planned memory of forward:" in r.stdout


def _segment_base(data):
    """The constant segment's file offset of a .pte with an extended header."""
    import struct
    assert data[8:12] == b"eh00"
    return struct.unpack_from("<Q", data, 24)[0]


def test_program_diff_reports_changed_constants(demo, cli, tmp_path):
    import numpy as np

    a = demo / "model.pte"
    data = bytearray(a.read_bytes())
    base = _segment_base(data)
    # the first constant buffer: change two of its float elements
    first = np.frombuffer(bytes(data[base:base + 64]), np.float32).copy()
    changed = first.copy()
    changed[0] += 1.0
    changed[3] = -changed[3] * 2
    data[base:base + 64] = changed.tobytes()
    b = tmp_path / "b.pte"
    b.write_bytes(bytes(data))
    r = subprocess.run([cli, "diff", str(a), str(a)], capture_output=True, text=True)
    assert r.returncode == 0 and "bitwise equal" in r.stdout
    r = subprocess.run([cli, "diff", str(a), str(b), "--format", "json"],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    assert doc["differ"] and not doc["bitwise_equal"]
    (plan,) = doc["plan_diffs"]
    assert plan["operators_only_in_a"] == [] and plan["value_count_a"] == plan["value_count_b"]
    (t,) = plan["tensor_diffs"]
    assert t["fields"] == [] and t["bytes_differ"]
    d = np.abs(first.astype(np.float64) - changed.astype(np.float64))
    assert t["num_differing"] == 2
    assert t["max_abs_diff"] == pytest.approx(d.max(), rel=1e-12)
    assert t["mean_abs_diff"] == pytest.approx(d[d > 0].mean(), rel=1e-12)
    rel = d / np.maximum(np.abs(first), np.abs(changed))
    assert t["max_rel_diff"] == pytest.approx(np.nanmax(rel), rel=1e-12)
    # text: upstream's wording
    r = subprocess.run([cli, "diff", str(a), str(b)], capture_output=True, text=True)
    assert r.returncode == 1
    assert "Differing tensors (1):" in r.stdout and "2 / " in r.stdout
    # trouble is 2
    r = subprocess.run([cli, "diff", str(a), str(tmp_path / "missing.pte")],
                       capture_output=True, text=True)
    assert r.returncode == 2
    # one program among ETDumps is the ETDump diff's (it refuses the program)
    r = subprocess.run([cli, "diff", str(a), str(demo / "etdump.etdp")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "program" in r.stderr
    bad = tmp_path / "bad.pte"
    bad.write_bytes(bytes(data[:200]))
    r = subprocess.run([cli, "diff", str(a), str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1


def test_program_diff_structure(demo, cli, conformance):
    a = os.path.join(conformance, "add.pte")
    b = os.path.join(conformance, "module_linear_inline_constants.pte")
    r = subprocess.run([cli, "diff", a, b, "--format", "json"], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    (plan,) = doc["plan_diffs"]
    assert plan["operators_only_in_a"] == [] and plan["operators_only_in_b"] == ["aten::mul.out"]
    assert plan["instruction_count_a"] == 1 and plan["instruction_count_b"] == 2
    assert plan["value_count_a"] != plan["value_count_b"]
    # a bundled program against its own program: identical structure
    r = subprocess.run([cli, "diff", str(demo / "model.pte"), str(demo / "model.bpte")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout


def test_sizes_with_the_etrecord(demo, cli):
    r = subprocess.run([cli, "info", "--sizes", str(demo / "model.pte"), "--etrecord",
                        str(demo / "model.etrecord")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    fig = dict(zip(*[iter(lines[1].split())] * 2))
    start = next(i for i, l in enumerate(lines) if l.startswith("tensor_data (ETRecord"))
    rows = []
    for l in lines[start + 1:]:
        if l.startswith("total_tensor_data_size (ETRecord)"):
            total = int(l.split()[-1])
            break
        cells = l.split()
        rows.append((int(cells[0]), cells[-1]))
    # the ETRecord's parameters (from its JSON) weigh what the program's
    # constants (from the flatbuffer) weigh
    assert total == sum(b for b, _ in rows) == int(fig["total_tensor_data_size"])
    modules = {}
    for b, key in rows:
        modules[key.rsplit(".", 1)[0]] = modules.get(key.rsplit(".", 1)[0], 0) + b
    for mod, b in modules.items():
        assert any(l.split()[:2] == [mod, str(b)] for l in lines[start:]), (mod, b)
    r = subprocess.run([cli, "info", str(demo / "model.pte"), "--etrecord",
                        str(demo / "model.etrecord")], capture_output=True, text=True)
    assert r.returncode == 2
