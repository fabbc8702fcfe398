"""The CLI's outputs against references that do not come from etkit
(issue 24, section 9): numpy for statistics and metrics, pandas for
reading CSV and JSON back, the Chrome trace-event format's own rules for
`trace`, numpy-written .npy files for `run --input`, the ETRecord's ZIP
members for graph_map and `graph`; plus paths no test walked before
(`bundle`'s success, RunResult.inspector)."""
import glob
import io
import json
import os
import subprocess
import warnings
import zipfile

import numpy as np
import pandas as pd
import pytest

import etkit
from conftest import quiet_inspector

STATS = ("p10", "p50", "p90", "avg", "min", "max")


def run(cli, *args, status=0):
    out = subprocess.run([cli, *map(str, args)], capture_output=True)
    assert out.returncode == status, (args, out.returncode, out.stderr.decode())
    return out.stdout


def dumps(fixtures, oracle_dumps):
    names = ["appendix_b.etdp", "appendix_c.etdp", "delegates.etdp", "wrap.etdp",
             "modules.etdp"]
    paths = [os.path.join(fixtures, n) for n in names]
    return paths + sorted(glob.glob(os.path.join(oracle_dumps, "numeric_*.etdp")))


def reference_stats(raw):
    """Upstream's PerfData statistics, computed by numpy."""
    return {"p10": np.percentile(raw, 10), "p50": np.percentile(raw, 50),
            "p90": np.percentile(raw, 90), "avg": np.mean(raw),
            "min": np.min(raw), "max": np.max(raw)}


# ---------------------------------------------------------------- JSON, CSV


def test_json_statistics_are_numpy_s(fixtures, oracle_dumps, cli):
    checked = 0
    for path in dumps(fixtures, oracle_dumps):
        doc = json.loads(run(cli, "inspect", "--etdump_path", path, "--format", "json"))
        unit = doc["target_time_scale"]
        for ev in doc["events"]:
            raw = ev["raw"]
            if not raw:
                assert all(ev[f"{s} ({unit})"] is None for s in STATS), ev
                continue
            want = reference_stats(np.asarray(raw, dtype=np.float64))
            for s in STATS:
                assert ev[f"{s} ({unit})"] == pytest.approx(want[s], rel=1e-12, abs=0), \
                    (path, ev["event_name"], s)
            checked += 1
    assert checked > 20


def test_csv_and_json_read_back_with_pandas(fixtures, oracle_dumps, cli):
    for path in dumps(fixtures, oracle_dumps):
        # names read as text (an event may be called "True")
        csv = pd.read_csv(io.BytesIO(run(cli, "inspect", "--etdump_path", path,
                                         "--format", "csv")), index_col=0,
                          dtype={"event_name": str, "event_block_name": str},
                          keep_default_na=False, na_values=[""])
        doc = json.loads(run(cli, "inspect", "--etdump_path", path, "--format", "json"))
        unit = doc["target_time_scale"]
        events = pd.DataFrame(doc["events"])
        df = quiet_inspector(etdump_path=path).to_dataframe()
        # JSON: every event; CSV: the table's rows (no OPERATOR_CALL, as upstream)
        table = df[~df["event_name"].str.contains("OPERATOR_CALL")].reset_index(drop=True)
        assert list(events["event_name"]) == list(df["event_name"]), path
        assert list(events["event_block_name"]) == list(df["event_block_name"]), path
        assert list(csv["event_name"]) == list(table["event_name"]), path
        assert list(csv["event_block_name"]) == list(table["event_block_name"]), path
        for s in STATS:
            col = f"{s} ({unit})"
            np.testing.assert_allclose(csv[col].astype(float), table[col].astype(float),
                                       rtol=1e-12, equal_nan=True)
            np.testing.assert_allclose(events[col].astype(float), df[col].astype(float),
                                       rtol=1e-12, equal_nan=True)
        assert [r if isinstance(r, list) else None for r in events["raw"]] == \
            [r if isinstance(r, list) else None for r in df["raw"]]


def test_summary_totals_are_sums_of_averages(fixtures, cli):
    """--summary against the Inspector's own events: per block, an
    operator's total is the sum of its events' averages (numpy), its share
    that over the method's time, and the framework overhead what the
    operators leave of the method."""
    path = os.path.join(fixtures, "appendix_b.etdp")
    doc = json.loads(run(cli, "inspect", "--etdump_path", path, "--summary",
                         "--format", "json"))
    ins = quiet_inspector(etdump_path=path)
    rows = pd.DataFrame(doc["summary"])
    checked = 0
    for index, block in enumerate(ins.event_blocks):
        mine = rows[rows.event_block_index == index]
        method = mine[mine.kind == "method"]
        (method_event,) = [e for e in block.events if e.name == method.op_type.iloc[0]]
        method_time = np.mean(method_event.perf_data.raw)
        assert method["total (ms)"].iloc[0] == pytest.approx(method_time, rel=1e-12)
        op_total = 0.0
        for _, row in mine[mine.kind == "operator"].iterrows():
            events = [e for e in block.events if e.perf_data is not None and
                      e.name in (row.op_type, "native_call_" + row.op_type)]
            assert len(events) == row["count"], (index, row.op_type)
            total = sum(np.mean(e.perf_data.raw) for e in events)
            assert row["total (ms)"] == pytest.approx(total, rel=1e-12)
            assert row["% of method"] == pytest.approx(100 * total / method_time, rel=1e-9)
            op_total += total
            checked += 1
        over = mine[mine.kind == "framework_overhead"]
        assert over["total (ms)"].iloc[0] == pytest.approx(method_time - op_total,
                                                           rel=1e-9, abs=1e-15)
    assert checked >= 4


# ---------------------------------------------------------------- trace


def check_trace_event_format(doc):
    """The rules of the Trace Event Format (JSON object form): every event
    has a name, a phase and integer pid/tid; complete events ("X") have a
    numeric ts and a non-negative dur; metadata events ("M") name a
    process or thread in args; slices of one thread nest (a slice that
    starts inside another ends inside it) so that viewers stack them."""
    assert isinstance(doc["traceEvents"], list)
    assert doc.get("displayTimeUnit", "ms") in ("ms", "ns")
    by_thread = {}
    for e in doc["traceEvents"]:
        # X complete, B/E begin/end, i/I instant, M metadata, C counter,
        # b/e/n async, s/t/f flow
        assert isinstance(e["name"], str) and e["ph"] in "XBEiIMCbenstf"
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        if e["ph"] == "M":
            assert e["name"] in ("process_name", "process_sort_index", "thread_name",
                                 "thread_sort_index"), e
            assert isinstance(e["args"], dict)
        if e["ph"] == "X":
            assert isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float))
            assert e["dur"] >= 0, e
            by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
    for slices in by_thread.values():
        slices.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in slices:
            end = e["ts"] + e["dur"]
            while stack and stack[-1] <= e["ts"] + 1e-9:
                stack.pop()
            if stack:
                assert end <= stack[-1] + 1e-9, ("slices overlap", e)
            stack.append(end)
    return by_thread


@pytest.mark.parametrize("name", ["appendix_b.etdp", "delegates.etdp", "wrap.etdp",
                                  "modules.etdp"])
def test_trace_follows_the_trace_event_format(fixtures, cli, tmp_path, name):
    path = os.path.join(fixtures, name)
    run(cli, "trace", "--etdump_path", path, "-o", tmp_path / "t.json")
    doc = json.loads((tmp_path / "t.json").read_text())
    by_thread = check_trace_event_format(doc)
    assert by_thread
    # each operator slice lasts what the Inspector says its run took (us)
    df = quiet_inspector(etdump_path=path, target_time_scale="us").to_dataframe()
    durations = {}
    for _, row in df.iterrows():
        if isinstance(row["raw"], list):
            durations.setdefault(row["event_name"], set()).update(
                round(x, 6) for x in row["raw"])
    seen = 0
    for slices in by_thread.values():
        for e in slices:
            if e.get("cat") == "operator" and e["name"] in durations:
                assert round(e["dur"], 6) in durations[e["name"]], e
                seen += 1
    assert seen or name == "modules.etdp"


# ---------------------------------------------------------------- numerics


def test_numerics_metrics_are_numpy_s(numerics_fixtures, cli):
    f = numerics_fixtures
    doc = json.loads(_numerics(cli, f))

    def values(dump, buf):
        ins = quiet_inspector(etdump_path=f"{f}/{dump}", debug_buffer_path=f"{f}/{buf}")
        out = {}
        for block in ins.event_blocks:
            for ev in block.events:
                for k, v in enumerate(ev.debug_data):
                    if isinstance(v, np.ndarray):
                        out[(block.name, ev.name, k)] = v
        return out

    a, b = values("a.etdp", "a.bin"), values("b.etdp", "b.bin")
    checked = 0
    for row in doc["rows"]:
        if row["status"] != "matched" or row["list_item"] is not None:
            continue
        key = (row["event_block_name"], row["event_name"], row["output_index"])
        if key not in a or key not in b:
            continue
        x = a[key].astype(np.float64).ravel()
        y = b[key].astype(np.float64).ravel()
        err = y - x
        if row["exact"]:  # integers: a mismatch count, no MSE/SNR
            assert a[key].dtype.kind in "iub"
            assert row["mismatches"] == int(np.count_nonzero(a[key] != b[key]))
            assert row["mse"] is None and row["snr"] is None
            assert row["max_abs_error"] == np.max(np.abs(err))
            checked += 1
            continue
        assert a[key].dtype.kind not in "iub"
        mse = np.mean(err ** 2)
        assert row["mse"] == pytest.approx(mse, rel=1e-9, abs=1e-15)
        assert row["max_abs_error"] == pytest.approx(np.max(np.abs(err)), rel=1e-9)
        with np.errstate(all="ignore"):
            snr = 10 * np.log10(np.mean(x ** 2) / mse)
        if not np.isfinite(snr):  # no error (or no signal): JSON null
            assert row["snr"] is None
        else:
            assert row["snr"] == pytest.approx(snr, rel=1e-9)
        with np.errstate(all="ignore"):
            cos = np.dot(x, y) / (np.linalg.norm(x) * np.linalg.norm(y))
        if np.isfinite(cos):
            assert row["cosine"] == pytest.approx(cos, rel=1e-9)
        checked += 1
    assert checked >= 2


def _numerics(cli, f):
    out = subprocess.run([cli, "numerics", "--etdump_path", f"{f}/a.etdp",
                          "--debug_buffer_path", f"{f}/a.bin", "--against", f"{f}/b.etdp",
                          "--against-debug-buffer", f"{f}/b.bin", "--format", "json"],
                         capture_output=True)
    assert out.returncode in (0, 3), out.stderr.decode()
    return out.stdout


# ---------------------------------------------------------------- run, .npy


@pytest.fixture(scope="module")
def demo(cli, tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    run(cli, "demo", "--output-dir", out)
    return out


def test_run_input_npy_written_by_numpy(demo, cli, tmp_path):
    value = np.random.default_rng(7).standard_normal((1, 1, 8, 8)).astype(np.float32)
    np.save(tmp_path / "in.npy", value)
    run(cli, "run", demo / "model.pte", "--input", tmp_path / "in.npy",
        "--output-dir", tmp_path / "out")
    (out,) = sorted(glob.glob(str(tmp_path / "out" / "*.npy")))
    got = np.load(out)  # numpy reads what etkit wrote
    want = etkit.run(demo / "model.pte", [value]).outputs[0]
    np.testing.assert_array_equal(got, want)
    # numpy writes a Fortran-ordered array with fortran_order True: refused
    # by name (docs/compatibility.md), never read in the wrong order
    np.save(tmp_path / "f.npy", np.asfortranarray(np.ones((1, 1, 8, 2), np.float32)))
    err = subprocess.run([cli, "run", demo / "model.pte", "--input", tmp_path / "f.npy"],
                         capture_output=True)
    assert err.returncode == 1 and b"Fortran-order arrays are not supported" in err.stderr


def test_npy_reader_versions_and_dtypes(demo, cli, tmp_path):
    """Format versions 1.0 and 2.0 as numpy writes them, and a dtype the
    program does not take (refused with a message naming it)."""
    from numpy.lib import format as npformat

    value = np.full((1, 1, 8, 8), 0.5, np.float32)
    want = etkit.run(demo / "model.pte", [value]).outputs[0]
    for version in ((1, 0), (2, 0)):
        path = tmp_path / f"v{version[0]}.npy"
        with open(path, "wb") as f:
            npformat.write_array(f, value, version=version)
        run(cli, "run", demo / "model.pte", "--input", path, "--output-dir",
            tmp_path / f"o{version[0]}")
        (out,) = glob.glob(str(tmp_path / f"o{version[0]}" / "*.npy"))
        np.testing.assert_array_equal(np.load(out), want)
    np.save(tmp_path / "wrong.npy", value.astype(np.int64))
    err = subprocess.run([cli, "run", demo / "model.pte", "--input", tmp_path / "wrong.npy"],
                         capture_output=True)
    assert err.returncode == 1, err.stderr
    assert b"input 0 is LONG [1, 1, 8, 8]; the method takes FLOAT [1, 1, 8, 8]" in err.stderr, err.stderr


# ---------------------------------------------------------------- bundle, graph


def test_bundle_success_path(demo, cli, tmp_path):
    value = np.random.default_rng(3).standard_normal((1, 1, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", value)
    run(cli, "bundle", demo / "model.pte", "-o", tmp_path / "m.bpte",
        "--input", tmp_path / "x.npy", "--case")
    out = run(cli, "run", tmp_path / "m.bpte", "--verify").decode()
    assert "2 of 2 checked cases passed" in out, out
    # the program inside is the one given, byte for byte
    run(cli, "bundle", "--extract", tmp_path / "m.bpte", "-o", tmp_path / "back.pte")
    assert (tmp_path / "back.pte").read_bytes() == (demo / "model.pte").read_bytes()


def _graph_nodes(etrecord, member):
    """call_function nodes (name, target) of a program, read from the
    ETRecord's JSON with zipfile and json alone."""
    with zipfile.ZipFile(etrecord) as z:
        doc = json.loads(z.read(member))
    graph = doc.get("graph_module", doc)["graph"]
    nodes = []
    for n in graph["nodes"]:
        target = n.get("target")
        nodes.append(target if isinstance(target, str) else str(target))
    return doc, nodes


def test_graph_output_and_graph_map_against_the_zip(conformance, cli):
    record = os.path.join(conformance, "etrecord_toy_mul.bin")
    with zipfile.ZipFile(record) as z:
        members = set(z.namelist())
    rec = etkit.parse_etrecord(record)
    gm = rec.graph_map
    assert gm, "the sample has extra graphs"
    for key in gm:
        assert any(m == key or m.endswith("/" + key) or m.startswith(key) for m in members), key
    text = run(cli, "graph", record).decode()
    prog = rec.edge_dialect_program
    assert prog is not None
    _, targets = _graph_nodes(record, "edge_dialect_exported_program")
    calls = [t for t in targets if "ops" in t]
    assert calls and len(prog.nodes) == len(calls)
    for node, target in zip(prog.nodes, calls):
        # the listing shows each node with its op (the target's last three
        # components: namespace.op.overload), as the ZIP's JSON has it
        op = ".".join(target.split(".")[-3:])
        assert node.target == target
        assert any(line.startswith(node.name) and op in line for line in text.splitlines()), \
            (node.name, op)
    assert f"nodes     {len(calls)}" in text


def test_run_result_inspector(demo):
    value = np.full((1, 1, 8, 8), 0.25, np.float32)
    r = etkit.run(demo / "model.pte", [value], iterations=3, debug_level="outputs")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the run's buffer is passed: no warning
        ins = r.inspector()
    execute = [b for b in ins.event_blocks if b.name == "Execute"]
    assert execute
    ev = next(e for e in execute[0].events if e.name == "Method::execute")
    assert len(ev.perf_data.raw) == 3
    np.testing.assert_array_equal(execute[0].run_output[0], r.outputs[0])
    assert r.inspector(target_time_scale="us")._target_time_scale == etkit.TimeScale.US


# ---------------------------------------------------------------- report


class _Tables:
    """The report's sections as lists of (heading, rows of cell texts)."""

    def __init__(self, html):
        from html.parser import HTMLParser

        self.sections = {}
        parser = HTMLParser()
        state = {"section": None, "heading": "", "in_h3": False, "row": None,
                 "cell": None}

        def start(tag, attrs):
            attrs = dict(attrs)
            if tag == "section":
                state["section"] = attrs.get("id")
                self.sections.setdefault(state["section"], [])
            elif tag == "h3":
                state["in_h3"], state["heading"] = True, ""
            elif tag == "table" and state["section"]:
                self.sections[state["section"]].append((state["heading"], []))
            elif tag == "tr":
                state["row"] = []
            elif tag in ("td", "th") and state["row"] is not None:
                state["cell"] = ""

        def end(tag):
            if tag == "h3":
                state["in_h3"] = False
            elif tag in ("td", "th") and state["cell"] is not None:
                state["row"].append(state["cell"].strip())
                state["cell"] = None
            elif tag == "tr" and state["row"] is not None:
                if state["section"] and self.sections[state["section"]]:
                    self.sections[state["section"]][-1][1].append(state["row"])
                state["row"] = None

        def data(text):
            if state["in_h3"]:
                state["heading"] += text
            if state["cell"] is not None:
                state["cell"] += text

        parser.handle_starttag, parser.handle_endtag = start, end
        parser.handle_data = data
        parser.feed(html)


_UNITS = {"ns": 1e-6, "us": 1e-3, "\u00b5s": 1e-3, "ms": 1.0, "s": 1e3}


def test_report_against_the_events_and_flatc(fixtures, cli, tmp_path, source_dir):
    """The report's facts against flatc's own decoding of the dump, and its
    per-block operator totals against numpy over the Inspector's events
    (three significant digits, in the unit each column names)."""
    import re
    import shutil

    path = os.path.join(fixtures, "appendix_b.etdp")
    run(cli, "report", "--etdump_path", path, "-o", tmp_path / "r.html")
    tables = _Tables((tmp_path / "r.html").read_text(encoding="utf-8"))
    facts = dict((r[0], r[1]) for r in tables.sections["file"][0][1] if len(r) == 2)
    ins = quiet_inspector(etdump_path=path)
    assert int(facts["event blocks"]) == len(ins.event_blocks)
    assert int(facts["Inspector events"]) == sum(len(b.events) for b in ins.event_blocks)
    flatc = shutil.which("flatc")
    if flatc:  # an independent decoding of the same bytes
        out = subprocess.run(
            [flatc, "--json", "--strict-json", "--raw-binary", "--size-prefixed",
             "-o", str(tmp_path), os.path.join(source_dir, "schema/etdump_schema_flatcc.fbs"),
             "--", path], capture_output=True)
        assert out.returncode == 0, out.stderr.decode()
        (decoded,) = glob.glob(str(tmp_path / "*.json"))
        doc = json.loads(open(decoded).read())
        runs = doc["run_data"]
        assert int(facts["runs (RunData)"]) == len(runs)
        kinds = [k for r in runs for e in r.get("events", []) for k in e]
        assert int(facts["profile events"]) == kinds.count("profile_event")
        assert int(facts["debug events"]) == kinds.count("debug_event")
    checked = 0
    for heading, rows in tables.sections["summary"]:
        m = re.match(r"block (\d+):", heading)
        assert m, heading
        block = ins.event_blocks[int(m.group(1))]
        header = rows[0]
        unit = re.search(r"total \(([^)]+)\)", " ".join(header)).group(1)
        to_ms = _UNITS[unit]
        col = header.index(f"total ({unit})")
        for cells in rows[1:]:
            op = cells[0]
            events = [e for e in block.events if e.perf_data is not None
                      and e.name in (op, "native_call_" + op)]
            if not events or op in ("Method::execute", "Program::load_method"):
                continue
            want = sum(np.mean(e.perf_data.raw) for e in events)
            assert float(cells[col]) * to_ms == pytest.approx(want, rel=5e-3), (op, cells)
            checked += 1
    assert checked >= 3
