"""debug_level="stats" (`etkit run --debug-level stats`): every logged tensor
recorded as its 13-value STATS vector.  The STATS of a stats run of the demo
program equal numpy's STATS of the tensors a full "intermediates" run of the
same program on the same inputs logs, through the Python Inspector (a dict
per debug value) and through `etkit inspect --format json`
({"stats": {...}}); the debug buffer stays small and upstream's
Inspector-shaped outputs keep working."""
import json
import os
import subprocess

import numpy as np
import pytest

import etkit
from conftest import quiet_inspector
from test_tensor_stats import NAMES, reference


def runs(demo):
    pte = str(demo / "model.pte")
    rec = str(demo / "model.etrecord")
    full = etkit.run(pte, inputs_from=rec, debug_level="intermediates")
    stats = etkit.run(pte, inputs_from=rec, debug_level="stats")
    return full, stats


def debug_values(result):
    """(event name, debug_data) of every event with debug data, in order,
    plus the run outputs."""
    insp = result.inspector()
    values = []
    for block in insp.event_blocks:
        for ev in block.events:
            if ev.debug_data:
                values.append((ev.name, list(ev.debug_data)))
        if block.run_output is not None:
            values.append(("run_output", list(block.run_output)))
    return values


def close(got, want, name):
    for field in NAMES:
        g, w = got[field], want[field]
        if np.isnan(w):
            assert np.isnan(g), (name, field)
        else:
            assert g == pytest.approx(w, rel=1e-9, abs=1e-12), (name, field, g, w)


def test_stats_equal_numpy_of_the_full_run(demo):
    full, stats = runs(demo)
    a, b = debug_values(full), debug_values(stats)
    assert len(a) == len(b) and len(a) >= 5
    compared = 0
    for (name_a, values_a), (name_b, values_b) in zip(a, b):
        assert name_a == name_b and len(values_a) == len(values_b)
        for x, s in zip(values_a, values_b):
            if isinstance(x, np.ndarray):
                assert isinstance(s, dict) and list(s) == NAMES
                assert all(type(s[k]) is int for k in ("nan_count", "inf_count",
                                                       "zero_count"))
                close(s, reference(x), name_a)
                compared += 1
            else:
                assert s == x  # scalars are logged as they are
    assert compared >= 5
    # fixed size per tensor: 104 bytes, 64-aligned
    assert len(stats.debug_buffer) < len(full.debug_buffer)
    assert stats.etdump.find(b"etkit:tensor_stats=min,max,mean") > 0
    assert full.etdump.find(b"etkit:tensor_stats=") < 0


def test_upstream_shaped_outputs_keep_working(demo):
    _, stats = runs(demo)
    insp = stats.inspector()
    df = insp.to_dataframe()
    assert len(df) > 0 and "avg (ms)" in df.columns
    assert any(isinstance(v, dict) for row in df["debug_data"] for v in row)
    # the marker RunData has no events: no block of its name
    assert all(not b.name.startswith("etkit:") for b in insp.event_blocks)
    # without the debug buffer each STATS value is a dict of None
    no_buf = quiet_inspector(etdump_data=stats.etdump)
    vals = [v for b in no_buf.event_blocks for e in b.events
            for v in (e.debug_data or []) if isinstance(v, dict)]
    assert vals and all(x is None for v in vals for x in v.values())


def test_cli_run_and_inspect_json(cli, demo, tmp_path):
    pte, rec = str(demo / "model.pte"), str(demo / "model.etrecord")
    for level in ("stats", "intermediates"):
        subprocess.run([cli, "run", pte, "--inputs-from", rec, "--etdump",
                        str(tmp_path / f"{level}.etdp"), "--debug-buffer",
                        str(tmp_path / f"{level}.bin"), "--debug-level", level],
                       check=True, capture_output=True)
    out = subprocess.run([cli, "inspect", "--etdump_path", str(tmp_path / "stats.etdp"),
                          "--debug_buffer_path", str(tmp_path / "stats.bin"),
                          "--format", "json"], check=True, capture_output=True)
    doc = json.loads(out.stdout)
    full = etkit.Inspector(etdump_path=str(tmp_path / "intermediates.etdp"),
                           debug_buffer_path=str(tmp_path / "intermediates.bin"))
    want = [v for b in full.event_blocks for e in b.events for v in (e.debug_data or [])
            if isinstance(v, np.ndarray)]
    got = [v["stats"] for e in doc["events"] for v in (e.get("debug_data") or [])
           if isinstance(v, dict) and "stats" in v]
    assert len(got) == len(want) > 0
    for g, w in zip(got, want):
        ref = reference(w)
        # JSON has no NaN: non-finite values are null
        close({k: (np.nan if g[k] is None else g[k]) for k in NAMES}, ref, "json")


def stats_files(cli, demo, tmp_path):
    """`etkit run --debug-level stats` and `intermediates` of the demo
    program on the ETRecord's inputs: {level: (etdump, buffer)}."""
    pte, rec = str(demo / "model.pte"), str(demo / "model.etrecord")
    files = {}
    for level in ("stats", "intermediates"):
        d, b = str(tmp_path / f"{level}.etdp"), str(tmp_path / f"{level}.bin")
        subprocess.run([cli, "run", pte, "--inputs-from", rec, "--etdump", d,
                        "--debug-buffer", b, "--debug-level", level],
                       check=True, capture_output=True)
        files[level] = (d, b)
    return files


def numerics(cli, *args):
    return subprocess.run([cli, "numerics", *args], capture_output=True, text=True)


def test_numerics_against_the_graph(cli, demo, tmp_path):
    d, b = stats_files(cli, demo, tmp_path)["stats"]
    rec = str(demo / "model.etrecord")
    out = numerics(cli, "--gap", "stats", "--etdump_path", d, "--debug_buffer_path", b,
                   "--etrecord_path", rec, "--format", "json", "--fail-above", "1e-6")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["reducer_name"] == "STATS" and doc["compared"] == len(doc["rows"]) >= 8
    assert doc["drifting"] == 0
    for row in doc["rows"]:
        for f in NAMES:  # the interpreter's and the runtime's kernels agree
            assert row["rt"][f] == pytest.approx(row["aot"][f], rel=1e-5, abs=1e-6), f
    csv = numerics(cli, "--gap", "stats", "--etdump_path", d, "--debug_buffer_path", b,
                   "--etrecord_path", rec, "--format", "csv")
    header = csv.stdout.splitlines()[0].split(",")
    assert header[4:7] == ["node_name", "op_target", "reducer_name"]
    assert header[7:9] == ["aot_min", "rt_min"] and "rt_p99_abs" in header
    # a stats dump with a full-tensor metric: trouble, one line
    bad = numerics(cli, "--gap", "mse", "--etdump_path", d, "--debug_buffer_path", b,
                   "--etrecord_path", rec)
    assert bad.returncode == 2 and "use --gap stats" in bad.stderr


def test_numerics_against_another_run_and_a_planted_nan(cli, demo, tmp_path):
    files = stats_files(cli, demo, tmp_path)
    (fd, fb), (sd, sb) = files["intermediates"], files["stats"]
    out = numerics(cli, fd, "--debug_buffer_path", fb, "--against", sd,
                   "--against-debug-buffer", sb, "--format", "json",
                   "--max-p99-shift", "0")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["compared"] >= 8 and doc["drifting"] == 0
    # plant a NaN in the first STATS vector of the stats run
    buf = bytearray(open(sb, "rb").read())
    vec = np.frombuffer(bytes(buf[:104]), dtype=np.float64).copy()
    vec[NAMES.index("nan_count")] = 1
    vec[NAMES.index("min")] = vec[NAMES.index("p99_abs")] = np.nan
    buf[:104] = vec.tobytes()
    planted = tmp_path / "planted.bin"
    planted.write_bytes(bytes(buf))
    out = numerics(cli, fd, "--debug_buffer_path", fb, "--against", sd,
                   "--against-debug-buffer", str(planted), "--format", "json",
                   "--max-p99-shift", "0.5")
    assert out.returncode == 1, out.stderr
    assert "drift" in out.stderr
    rows = [r for r in json.loads(out.stdout)["rows"] if r["drift"]]
    assert len(rows) == 1 and rows[0]["nan_inf_appears"] and rows[0]["instruction"] == 0
    # --min-snr does not apply to STATS
    assert numerics(cli, fd, "--debug_buffer_path", fb, "--against", sd,
                    "--against-debug-buffer", sb, "--min-snr", "20").returncode == 2


def test_store_keeps_stats_and_flags_drift(cli, demo, tmp_path):
    files = stats_files(cli, demo, tmp_path)
    sd, sb = files["stats"]
    db = str(tmp_path / "runs.db")

    def store(*args):
        return subprocess.run([cli, "store", *args], capture_output=True, text=True)

    assert store("add", db, sd, "--debug-buffer", sb, "--tag", "commit=a").returncode == 0
    # the same program again, with a NaN planted in instruction 2's second
    # value (max_pool2d's indices) and a p99_abs shift in instruction 0's
    pte, rec = str(demo / "model.pte"), str(demo / "model.etrecord")
    d2, b2 = str(tmp_path / "c.etdp"), str(tmp_path / "c.bin")
    subprocess.run([cli, "run", pte, "--inputs-from", rec, "--etdump", d2,
                    "--debug-buffer", b2, "--debug-level", "stats", "--iterations", "2"],
                   check=True, capture_output=True)
    assert store("add", db, d2, "--debug-buffer", b2, "--tag", "commit=b").returncode == 0
    out = store("drift", db, "--baseline", "commit=a", "--candidate", "commit=b",
                "--fail-above", "0", "--format", "json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert len(rows) >= 8 and all(r["status"] == "ok" for r in rows)
    # a third run (another digest), its buffer planted: the first STATS
    # vectors are instruction 0's output and instruction 1's (128-byte
    # slots, in logging order)
    d3, b3 = tmp_path / "planted.etdp", tmp_path / "planted.bin"
    subprocess.run([cli, "run", pte, "--inputs-from", rec, "--etdump", str(d3),
                    "--debug-buffer", str(b3), "--debug-level", "stats",
                    "--iterations", "3"], check=True, capture_output=True)
    buf = bytearray(b3.read_bytes())
    for slot, field, value in ((0, "p99_abs", None), (1, "nan_count", 3.0)):
        vec = np.frombuffer(bytes(buf[128 * slot:128 * slot + 104]), np.float64).copy()
        vec[NAMES.index(field)] = vec[NAMES.index(field)] * 1.5 if value is None else value
        buf[128 * slot:128 * slot + 104] = vec.tobytes()
    b3.write_bytes(bytes(buf))
    p2 = b3
    assert store("add", db, str(d3), "--debug-buffer", str(p2), "--tag",
                 "commit=c").returncode == 0
    out = store("drift", db, "--baseline", "commit=a", "--candidate", "commit=c",
                "--fail-above", "20", "--format", "json")
    assert out.returncode == 1, out.stderr
    drifting = [r for r in json.loads(out.stdout) if r["drift"]]
    assert [(r["instruction"], r["status"]) for r in drifting] == [
        (0, "drift: p99_abs shift"), (1, "drift: NaN/Inf appears")]
    assert "2 of" in out.stderr
    # below the gate's threshold the shift is not drift, the NaN still is
    out = store("drift", db, "--baseline", "commit=a", "--candidate", "commit=c",
                "--fail-above", "60", "--format", "json")
    assert out.returncode == 1 and sum(r["drift"] for r in json.loads(out.stdout)) == 1
    # a run added without its debug buffer holds no STATS: trouble
    assert store("add", db, sd, "--tag", "commit=d").returncode == 0  # already stored
    out = store("drift", db, "--baseline", "commit=a", "--candidate", "commit=zzz")
    assert out.returncode == 2


def test_store_add_refuses_a_buffer_without_this_dumps_stats(cli, demo, tmp_path):
    files = stats_files(cli, demo, tmp_path)
    sd, sb = files["stats"]
    fd, fb = files["intermediates"]
    db = str(tmp_path / "refuse.db")

    def add(*args):
        return subprocess.run([cli, "store", "add", db, *args], capture_output=True, text=True)

    # a dump with no STATS: its buffer would be dropped without a word
    out = add(fd, "--debug-buffer", fb)
    assert out.returncode == 1 and "logs no STATS vectors" in out.stderr
    # another run's buffer (tensor bytes read as STATS): refused, nothing stored
    out = add(sd, "--debug-buffer", fb)
    assert out.returncode == 1 and "does not hold this ETDump's STATS" in out.stderr
    assert not os.path.exists(db)
    assert add(sd, "--debug-buffer", sb).returncode == 0
