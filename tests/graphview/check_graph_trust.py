"""check_graph_trust.py - the graph view's figures and colours say what the
files hold (issue 28, "trust, round 3"), end to end through `etkit graph`.

  python3 check_graph_trust.py ETKIT WORKDIR [PAGES_DIR]

PAGES_DIR receives snr.html, zero.html and same.html for the browser test.

Two traced runs of the demo program on different inputs (A on ones, B on
random numbers) with intermediate outputs, and A traced twice more:
- `--overlay snr` with --against colours every compared node with the SNR
  `etkit numerics` gives its own value; the legend says higher is better;
- max_pool's int64 indices stay out of the MSE (the node's MSE is its float
  output's, the tooltip counts the mismatching indices); a delegated node
  keeps its own value, not the DELEGATE_CALL's logged input or weights;
- an error of 0 everywhere (a run against the reference it was made from)
  is one neutral colour and "all equal", never the darkest;
- A against itself (and against a second dump of the same runs): no node
  is coloured, the legend says "no significant change";
- units: the time legend and node data in one readable unit (no "e+",
  nothing below 0.001 in the legend), memory in B/KiB/MiB, node data's
  "unit"; the partition's closed box shows its DELEGATE_CALL time;
  inputs are not "no event";
- usage: `--overlay share` without an ETDump and `--html --help`; `report
  --help` no longer says "no scripts";
- `etkit graph` prints control characters of node names escaped.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

ETKIT, WORK = sys.argv[1], sys.argv[2]
PAGES = sys.argv[3] if len(sys.argv) > 3 else None
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what)


def run(*args, ok=True):
    p = subprocess.run([ETKIT, *args], capture_output=True)
    if ok and p.returncode != 0:
        raise SystemExit(f"etkit {' '.join(args)} failed: {p.stderr.decode()}")
    return p


def nodes_of(path):
    text = open(path, encoding="utf-8").read()
    out = {}
    for m in re.finditer(r'<g class="(gn[^"]*)" data-node="([^"]*)"'
                         r'(?: data-value="([^"]*)")?(?: data-fmt="[^"]*")?'
                         r'(?: data-op="[^"]*")?(?: data-module="[^"]*")?'
                         r'(?: data-src="[^"]*")?(?: data-shape="[^"]*")?'
                         r'(?: data-fig="([^"]*)")?[^>]*><rect[^>]* fill="([^"]*)"',
                         text):
        out[m.group(2)] = {"cls": m.group(1).split(),
                           "value": float(m.group(3)) if m.group(3) else None,
                           "fig": m.group(4) or "", "fill": m.group(5)}
    return out, text


def legend(text):
    m = re.search(r'<span class="gv-legend">(.*?)</div>', text, re.S)
    return re.sub(r"<[^>]+>", " ", m.group(1)) if m else ""


def numerics_rows(a, abuf, b, bbuf):
    p = run("numerics", a, "--debug_buffer_path", abuf, b, "--against-debug-buffer",
            bbuf, "--format", "json")
    return json.loads(p.stdout)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    d = os.path.join(WORK, "demo")
    run("demo", "--output-dir", d)
    rec, pte = os.path.join(d, "model.etrecord"), os.path.join(d, "model.pte")
    # input B: the values 0..63 scaled, as .npy (float32, [1, 1, 8, 8])
    npy = os.path.join(WORK, "in.npy")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 8, 8), }"
    header += " " * (118 - len(header)) + "\n"
    import struct
    with open(npy, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<64f", *[((k * 37) % 64) / 32.0 - 1.0 for k in range(64)]))
    A, Ab = os.path.join(WORK, "a.etdp"), os.path.join(WORK, "a.bin")
    B, Bb = os.path.join(WORK, "b.etdp"), os.path.join(WORK, "b.bin")
    run("run", pte, "--iterations", "5", "--etdump", A, "--debug-level", "intermediates",
        "--debug-buffer", Ab)
    run("run", pte, "--iterations", "5", "--input", npy, "--etdump", B,
        "--debug-level", "intermediates", "--debug-buffer", Bb)

    # SNR against B: every compared node has the SNR of its own float value
    snr = os.path.join(WORK, "snr.html")
    nd = os.path.join(WORK, "snr.json")
    run("graph", rec, "--html", snr, "--node-data", nd, "--overlay", "snr",
        "--etdump_path", A, "--debug_buffer_path", Ab, "--against", B,
        "--against-debug-buffer", Bb)
    nodes, text = nodes_of(snr)
    valued = {n: v for n, v in nodes.items() if v["value"] is not None}
    check(len(valued) >= 8, f"snr overlay colours {len(valued)} nodes")
    results = json.load(open(nd))["graph"]["results"]
    check(len(results) == len(valued), f"snr node data has {len(results)} results")
    check("higher is better" in legend(text), f"snr legend: {legend(text)}")
    rows = numerics_rows(A, Ab, B, Bb)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    conv = [r for r in rows if r.get("event_name") == "native_call_convolution.out"]
    check(conv and "aten_convolution_default" in valued and
          abs(valued["aten_convolution_default"]["value"] - conv[0]["snr"]) < 1e-6,
          f"conv SNR {valued.get('aten_convolution_default')} != numerics {conv[:1]}")
    # error: max_pool's MSE is its float output's, the indices are counted
    err = os.path.join(WORK, "err.html")
    run("graph", rec, "--html", err, "--overlay", "error", "--etdump_path", A,
        "--debug_buffer_path", Ab, "--against", B, "--against-debug-buffer", Bb)
    nodes, text = nodes_of(err)
    pool = [r for r in rows if r.get("event_name", "").startswith("native_call_max_pool2d")
            and r.get("instruction") == 2]
    floats = [r["mse"] for r in pool if r["dtype_a"].startswith("float")]
    mp = nodes["aten_max_pool2d_default"]
    check(floats and abs(mp["value"] - floats[0]) < 1e-9,
          f"max_pool MSE {mp['value']} != its float output's {floats}")
    check("integer output" in mp["fig"] and "elements differ" in mp["fig"],
          f"max_pool tooltip lacks the index mismatches: {mp['fig']}")
    deleg = [r for r in rows if r.get("delegate_debug_id") not in (None, "")
             and "convolution" in str(r.get("delegate_debug_id"))]
    c2 = nodes["aten_convolution_default_1"]
    check(deleg and abs(c2["value"] - deleg[0]["mse"]) < 1e-9,
          f"delegated conv MSE {c2['value']} != its own row {deleg[:1]}")
    worst = max((v["value"], n) for n, v in nodes.items() if v["value"] is not None)
    check(worst[1] == "aten_convolution_default",
          f"worst error is {worst}, not the first convolution")

    # zero error everywhere: neutral, "all equal"
    zero = os.path.join(WORK, "zero.html")
    run("graph", rec, "--html", zero, "--overlay", "error", "--etdump_path", A,
        "--debug_buffer_path", Ab, "--against", A, "--against-debug-buffer", Ab)
    nodes, text = nodes_of(zero)
    fills = {v["fill"] for v in nodes.values() if v["value"] is not None}
    check(all(v["value"] in (None, 0.0) for v in nodes.values()), "zero overlay values")
    check(len(fills) == 1 and "#7f0000" not in fills, f"zero error painted {fills}")
    check("all equal" in legend(text), f"zero legend: {legend(text)}")

    # A against itself, and pooled dumps of the same runs: nothing coloured
    for extra in ([], ["--etdump_path", A, "--against", A]):
        same = os.path.join(WORK, "same.html")
        run("graph", rec, "--html", same, "--etdump_path", A, "--against", A, *extra)
        nodes, text = nodes_of(same)
        compared = [v for v in nodes.values() if v["value"] is not None]
        check(len(compared) >= 8 and all("ns" in v["cls"] and v["fill"] == "#f7f7f7"
                                         for v in compared),
              f"A vs A coloured: {[(v['value'], v['fill']) for v in compared]}")
        check("no significant change" in legend(text), f"A/A legend: {legend(text)}")

    # units, the closed partition box, inputs
    t = os.path.join(WORK, "time.html")
    tnd = os.path.join(WORK, "time.json")
    run("graph", rec, "--html", t, "--node-data", tnd, "--etdump_path", A)
    nodes, text = nodes_of(t)
    lg = legend(text)
    check(re.search(r"\((µs|ms|s|ns)\)", lg) and "e+" not in lg and "e-" not in lg,
          f"time legend: {lg}")
    nums = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) (?:µs|ms|ns|s)\b", lg)]
    check(nums and min(nums) >= 0.01, f"legend numbers {nums}")
    tdata = json.load(open(tnd))["graph"]
    check(tdata.get("unit") in ("µs", "ms", "s", "ns"), f"node data unit {tdata.get('unit')}")
    check("io" in nodes["x"]["cls"] and "url(#gv-hatch)" != nodes["x"]["fill"],
          "the input x is drawn as no event")
    check("no event (0)" in lg, f"inputs counted as no event: {lg}")
    part = re.search(r'<g class="gg part[^"]*" data-group="[^"]*" data-gvalue="([^"]*)"',
                     text)
    insp = json.loads(run("inspect", "--etdump_path", A, "--format", "json").stdout)
    call = [e for e in insp["events"] if e["event_name"] == "DELEGATE_CALL"]
    per_ms = {"µs": 1e3, "ms": 1.0, "s": 1e-3, "ns": 1e6}[tdata["unit"]]
    check(part and call and abs(float(part.group(1)) - call[0]["p50 (ms)"] * per_ms) < 1e-6,
          f"partition box {part and part.group(1)} != DELEGATE_CALL {call[:1]}")
    check(re.search(r'class="gct"[^>]*>2 nodes · [\d.]+ (µs|ms)', text),
          "the partition's closed cover shows no time")
    mem = os.path.join(WORK, "mem.html")
    run("graph", rec, "--html", mem, "--overlay", "memory")
    lg = legend(open(mem, encoding="utf-8").read())
    check(re.search(r"\((B|KiB|MiB)\)", lg) and "bytes" not in lg and "e+" not in lg,
          f"memory legend: {lg}")

    # usage
    out = os.path.join(WORK, "u.html")
    p = run("graph", rec, "--html", out, "--overlay", "share", ok=False)
    check(p.returncode == 2 and not os.path.exists(out) and
          len(p.stderr.decode().strip().splitlines()) == 1,
          f"--overlay share without an ETDump: exit {p.returncode} {p.stderr!r}")
    p = run("graph", "--html", "--help", ok=False)
    check(p.returncode == 0 and b"--model-explorer" in p.stdout,
          f"--html --help: exit {p.returncode} {p.stderr!r}")

    p = run("report", "--help")
    check(b"no scripts" not in p.stdout and b"script" in p.stdout,
          "report --help still says the page has no scripts")

    # control characters of node names are escaped in the listing
    hostile = os.path.join(WORK, "hostile.etrecord")
    with zipfile.ZipFile(rec) as zin, zipfile.ZipFile(hostile, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "edge_dialect_exported_program/forward":
                prog = json.loads(data)
                prog["graph_module"]["graph"]["nodes"][0]["name"] = "x\x1b]0;owned\x07\u202e"
                data = json.dumps(prog).encode()
            zout.writestr(info.filename, data)
    p = run("graph", hostile, ok=False)
    check(p.returncode == 0 and b"\x1b" not in p.stdout and b"\x07" not in p.stdout and
          "\u202e".encode() not in p.stdout and b"x\\x1b]0;owned\\x07\\u202e" in p.stdout,
          f"listing prints control characters raw: exit {p.returncode}")
    if PAGES:
        os.makedirs(PAGES, exist_ok=True)
        for name in ("snr.html", "zero.html", "same.html"):
            shutil.copy(os.path.join(WORK, name), os.path.join(PAGES, name))
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all graph trust checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
