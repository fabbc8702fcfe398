"""check_graph_cli.py - `etkit graph --html` end to end, checked against
the other commands' own outputs for the same files.

  python3 check_graph_cli.py ETKIT WORKDIR CONFORMANCE_DIR [PAGES_DIR]

- the demo's ETRecord (`etkit demo`): the drawn nodes are exactly the
  call nodes `etkit graph` lists, plus its inputs and the output node;
  the delegated partition is the backend `etkit graph --maps` names, and
  holds the nodes of its debug handles; each node's data-value is the
  mean time per run of the events `etkit inspect --format json` gives its
  debug handle (the median per run, in the page's data-unit; the most
  specific events, OPERATOR_CALL wrappers left out); nodes without events
  have no value, inputs and outputs are drawn plain; the --against page's
  values are the change A->B of `etkit diff A.. --vs B..` for the same
  events (the Hodges-Lehmann shift), coloured only where significant;
- Model Explorer files: one graph node per drawn node, node data equal
  to the page's values;
- `etkit report --etrecord_path`: the same nodes and values; with a
  debug buffer the error overlay, or the one --overlay names;
- upstream's etrecord_toy_mul.bin and a generated ETRecord render;
- bad input: one line on stderr, exit 1 (2 for usage), no output file;
  an ETDump of another program: the other commands' warning and an
  uncoloured page.
PAGES_DIR receives demo.html and demo_against.html for the browser test.
"""
import html.parser
import json
import math
import os
import re
import shutil
import subprocess
import sys
import zipfile

ETKIT, WORK, CONF = sys.argv[1], sys.argv[2], sys.argv[3]
PAGES = sys.argv[4] if len(sys.argv) > 4 else None
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what)


def run(*args, ok=True):
    p = subprocess.run([ETKIT, *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise SystemExit(f"etkit {' '.join(args)} failed: {p.stderr}")
    return p


def page_nodes(path):
    """data-node -> (data-value or None, class) of every drawn node."""
    text = open(path, encoding="utf-8").read()
    out = {}
    for m in re.finditer(r'<g class="(gn[^"]*)" data-node="([^"]*)"'
                         r'(?: data-value="([^"]*)")?', text):
        name = m.group(2)
        check(name not in out, f"{path}: node {name} drawn twice")
        out[name] = (float(m.group(3)) if m.group(3) else None, m.group(1))
    return out, text


class Groups(html.parser.HTMLParser):
    """Per drawn node, the data-group labels of the groups around it, and
    whether each is a partition."""

    def __init__(self):
        super().__init__()
        self.stack, self.around = [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "g":
            self.stack.append((a.get("data-group"), "part" in cls)
                              if "gg" in cls else None)
            if "gn" in cls:
                self.around[a["data-node"]] = [x for x in self.stack if x]

    def handle_endtag(self, tag):
        if tag == "g":
            self.stack.pop()


def groups_around(text):
    p = Groups()
    p.feed(text)
    return p.around


def listing(etrecord):
    """`etkit graph` rows: name -> handle (None for '-'), and the inputs."""
    text = run("graph", etrecord).stdout
    rows, inputs, started = {}, [], False
    for line in text.splitlines():
        if line.startswith("inputs "):
            inputs = [x.strip() for x in line[6:].split(",") if x.strip()]
        if line.startswith("node "):
            started = True
            continue
        if started and line.strip():
            cells = re.split(r"\s{2,}", line.strip())
            rows[cells[0]] = None if cells[2] == "-" else int(cells[2])
    return rows, inputs


def inspect_events(etdump, etrecord):
    data = json.loads(run("inspect", "--etdump_path", etdump, "--etrecord_path",
                          etrecord, "--format", "json").stdout)
    return [e for e in data["events"] if e["debug_handles"] is not None]


def expected(events, handles, key):
    """Per node: sum of `key` over its most specific events."""
    by_handle = {}
    for name, h in handles.items():
        by_handle.setdefault(h, []).append(name)
    best = {}
    for e in events:
        if e["event_name"] == "OPERATOR_CALL":
            continue
        hs = e["debug_handles"]
        hs = hs if isinstance(hs, list) else [hs]
        cover = sorted({n for h in hs for n in by_handle.get(h, [])})
        for n in cover:
            size, total = best.get(n, (math.inf, 0.0))
            if len(cover) < size:
                best[n] = (len(cover), e[key])
            elif len(cover) == size:
                best[n] = (size, total + e[key])
    return {n: v for n, (_, v) in best.items()}


def close(a, b):
    return abs(a - b) <= 1e-9 + 1e-6 * abs(b)


UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}


def page_unit(text):
    m = re.search(r'<section class="gv"[^>]* data-unit="([^"]*)"', text)
    return m.group(1) if m else None


def demo_checks():
    d1, d2 = os.path.join(WORK, "d1"), os.path.join(WORK, "d2")
    for d in (d1, d2):
        run("demo", "--output-dir", d, "--runs", "3")
    rec, dump = os.path.join(d1, "model.etrecord"), os.path.join(d1, "etdump.etdp")
    html = os.path.join(WORK, "demo.html")
    run("graph", rec, "--html", html, "--etdump_path", dump)
    nodes, text = page_nodes(html)
    rows, inputs = listing(rec)
    # the page draws the user inputs only; torch.export names the weights'
    # placeholders p_* (parameters), b_* (buffers) and c_* (constants)
    inputs = [x for x in inputs if not x.startswith(("p_", "b_", "c_"))]
    check(set(nodes) == set(rows) | set(inputs) | {"output"},
          f"demo nodes {sorted(nodes)} != listing {sorted(rows)} + inputs + output")
    # the partition: the backend of the delegate map, around its handles' nodes
    maps = run("graph", rec, "--maps").stdout
    backend = re.search(r"\[(?:\d+, )*\d+\]\s+(\S+)", maps).group(1)
    m = re.search(r'<g class="gg part[^"]*" data-group="([^"]*)"', text)
    check(m and m.group(1) == backend, f"partition {m and m.group(1)} != {backend}")
    around = groups_around(text)
    delegated = re.search(r"\[([\d, ]+)\]\s+" + re.escape(backend), maps).group(1)
    inside = {n for n, gs in around.items() if (backend, True) in gs}
    want_inside = {name for h in (int(x) for x in delegated.split(","))
                   for name, handle in rows.items() if handle == h}
    check(inside == want_inside and inside,
          f"partition holds {sorted(inside)}, the maps say {sorted(want_inside)}")
    # module groups: conv1's node sits in a group named conv1
    check(("conv1", False) in around.get("aten_convolution_default", []),
          "aten_convolution_default is not in the conv1 group")
    # values against `etkit inspect --format json`
    events = inspect_events(dump, rec)
    want = expected(events, rows, "p50 (ms)")
    unit = page_unit(text)
    check(unit in UNITS, f"page unit {unit}")
    per_ms = 1e-3 / UNITS.get(unit, 1e-3)
    for name, (value, cls) in nodes.items():
        if name in want:
            check(value is not None and close(value, want[name] * per_ms),
                  f"{name}: page {value} != inspect {want[name]} ms")
        elif name in inputs or name == "output":
            check(value is None and "io" in cls.split(), f"{name}: input drawn {cls}")
        else:
            check(value is None and "nv" in cls.split(), f"{name}: no event but {value}")
    check(len(want) >= 8, f"only {len(want)} nodes have events")
    # against: the p50 change A -> B
    html_ab = os.path.join(WORK, "demo_against.html")
    dump2 = os.path.join(d2, "etdump.etdp")
    run("graph", rec, "--html", html_ab, "--etdump_path", dump, "--against", dump2)
    ab, text_ab = page_nodes(html_ab)
    # the shift of `etkit diff` (pooling a dump twice leaves the
    # Hodges-Lehmann shift as it is) for the nodes of one event each
    diff = json.loads(run("diff", dump, dump, "--vs", dump2, dump2,
                          "--format", "json").stdout)["changes"]
    one = {}
    for e in events:
        hs = e["debug_handles"]
        hs = hs if isinstance(hs, list) else [hs]
        names = [n for n, h in rows.items() if h in hs]
        if len(names) == 1 and e["event_name"] != "OPERATOR_CALL":
            one.setdefault(names[0], []).append(e)
    compared = 0
    for name, (value, cls) in ab.items():
        evs = one.get(name, [])
        if len(evs) != 1:
            continue
        d = [c for c in diff if c["name"] == evs[0]["event_name"] and
             c["instruction_id"] == evs[0]["instruction_id"] and c["block"] == "Execute"]
        if d:
            compared += 1
            check(value is not None and close(value, d[0]["delta_pct"] / 100),
                  f"{name}: change {value} != diff {d[0]['delta_pct']} %")
    check(compared >= 6, f"only {compared} A/B nodes checked against diff")
    check("data-fa=" in text_ab and "data-fb=" in text_ab, "A/B values missing")
    # numerical error: two runs of the same input agree exactly, so every
    # node with values has MSE 0 (a value, not "no event")
    html_err = os.path.join(WORK, "demo_error.html")
    run("graph", rec, "--html", html_err, "--overlay", "error", "--etdump_path", dump,
        "--debug_buffer_path", os.path.join(d1, "debug_buffer.bin"), "--against", dump2,
        "--against-debug-buffer", os.path.join(d2, "debug_buffer.bin"))
    err_nodes, text_err = page_nodes(html_err)
    compared = [v for v, _ in err_nodes.values() if v is not None]
    check(len(compared) >= 8 and all(v == 0 for v in compared),
          f"error overlay values {compared}")
    check("numerical error (MSE)" in text_err, "error legend")
    # Model Explorer files
    me, nd = os.path.join(WORK, "graph.json"), os.path.join(WORK, "data.json")
    run("graph", rec, "--model-explorer", me, "--node-data", nd, "--etdump_path", dump)
    coll = json.load(open(me))
    ids = {n["id"] for g in coll["graphs"] for n in g["nodes"]}
    check(set(nodes) <= ids, f"Model Explorer ids lack {set(nodes) - ids}")
    data = json.load(open(nd))
    results = next(iter(data.values()))["results"]
    for name, (value, _) in nodes.items():
        if value is None:
            check(name not in results, f"node data gives {name} a value")
        else:
            check(name in results and close(results[name]["value"], value),
                  f"node data of {name}")
    # an ETDump of another program (upstream's tutorial dump for the toy
    # record): the warning, an uncoloured page
    other = os.path.join(CONF, "etdump_tutorial.etdp")
    toy = os.path.join(CONF, "etrecord_toy_mul.bin")
    if os.path.exists(other) and os.path.exists(toy):
        out = os.path.join(WORK, "other.html")
        p = run("graph", toy, "--html", out, "--etdump_path", other)
        check("another program" in p.stderr, f"no other-program warning: {p.stderr}")
        other_nodes, _ = page_nodes(out)
        check(other_nodes and all(v is None for v, _ in other_nodes.values()),
              "other program coloured")
    # the HTML report gains the same graph section, with the same values
    report = os.path.join(WORK, "report.html")
    run("report", "--etdump_path", dump, "--etrecord_path", rec, "-o", report)
    in_report, _ = page_nodes(report)
    check(in_report == nodes, "the report's graph section differs from the page")
    # ... which follows the data: with a debug buffer, the numerical error
    # against the ETRecord's reference outputs (the page of `etkit graph
    # --overlay error` with the same files); --overlay chooses as in
    # `etkit graph`, and is refused (exit 2, no output) as there
    buf = os.path.join(d1, "debug_buffer.bin")
    for overlay in (None, "share", "memory"):
        extra = ["--overlay", overlay] if overlay else []
        report_o = os.path.join(WORK, f"report_{overlay or 'auto'}.html")
        page_o = os.path.join(WORK, f"page_{overlay or 'auto'}.html")
        run("report", "--etdump_path", dump, "--etrecord_path", rec,
            "--debug_buffer_path", buf, *extra, "-o", report_o)
        run("graph", rec, "--html", page_o, "--etdump_path", dump,
            "--debug_buffer_path", buf, "--overlay", overlay or "error")
        got, got_text = page_nodes(report_o)
        want_o, _ = page_nodes(page_o)
        check(got == want_o and any(v is not None for v, _ in got.values()),
              f"report --overlay {overlay}: section differs from etkit graph's")
        if not overlay:
            check("numerical error (MSE)" in got_text and
                  "avg time per run" not in got_text,
                  "a report with a debug buffer is not coloured by the error")
    for args, what in ((["--overlay", "nosuch"], "unknown overlay"),
                       (["--overlay", "snr"], "snr without a debug buffer"),
                       (["--overlay", "time", "--etrecord_path", None],
                        "overlay without an ETRecord")):
        argv = ["--etdump_path", dump, "--etrecord_path", rec]
        if None in args:
            argv, args = ["--etdump_path", dump], args[:2]
        bad_report = os.path.join(WORK, "bad_report.html")
        p = run("report", *argv, *args, "-o", bad_report, ok=False)
        check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and
              not os.path.exists(bad_report),
              f"report {what}: exit {p.returncode}, {p.stderr!r}")
    if PAGES:
        os.makedirs(PAGES, exist_ok=True)
        shutil.copy(html, os.path.join(PAGES, "demo.html"))
        shutil.copy(html_ab, os.path.join(PAGES, "demo_against.html"))
    return rec, dump


def rewrite(src, dst, change):
    """A copy of ETRecord `src` whose edge program JSON went through change()."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "edge_dialect_exported_program/forward":
                prog = json.loads(data)
                change(prog["graph_module"]["graph"]["nodes"])
                data = json.dumps(prog).encode()
            zout.writestr(info.filename, data)


def bad_inputs(rec, dump):
    out = os.path.join(WORK, "bad.html")

    def refused(args, code, what):
        if os.path.exists(out):
            os.remove(out)
        p = run("graph", *args, ok=False)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == code, f"{what}: exit {p.returncode} (wanted {code})")
        check(len(lines) == 1 and lines[0].startswith("etkit graph"),
              f"{what}: stderr {p.stderr!r}")
        check(not os.path.exists(out) and
              not [f for f in os.listdir(WORK) if f.startswith("bad.html")],
              f"{what}: output left behind")

    def dup(nodes):
        nodes[1]["name"] = nodes[0]["name"]

    def missing(nodes):
        nodes[1]["inputs"][0]["arg"]["as_tensor"]["name"] = "no_such_value"

    def cycle(nodes):
        last = nodes[-1]["outputs"][0]["as_tensor"]["name"]
        nodes[0]["inputs"][0]["arg"]["as_tensor"]["name"] = last

    for name, change in (("duplicate", dup), ("missing", missing), ("cycle", cycle)):
        bad = os.path.join(WORK, f"{name}.etrecord")
        rewrite(rec, bad, change)
        refused([bad, "--html", out], 1, f"{name} node")
    refused([__file__, "--html", out], 1, "not an ETRecord")
    refused([rec, "--html", out, "--method", "nosuch"], 1, "no such method")
    refused([rec, "--html", out, "--etdump_path", rec], 1, "ETDump not an ETDump")
    refused([rec, "--html", out, "--overlay", "nosuch"], 2, "unknown overlay")
    refused([rec, "--html", out, "--against", dump], 2, "--against without A")
    refused([rec, "--html", out, "--overlay", "error", "--etdump_path", dump], 2,
            "error without a debug buffer")
    refused([rec, "--html", os.path.join(WORK, "no", "dir", "x.html")], 1,
            "output folder missing")


def other_records():
    toy = os.path.join(CONF, "etrecord_toy_mul.bin")
    if os.path.exists(toy):
        out = os.path.join(WORK, "toy.html")
        run("graph", toy, "--html", out)
        nodes, _ = page_nodes(out)
        rows, inputs = listing(toy)
        check(set(nodes) == set(rows) | set(inputs) | {"output"},
              f"toy nodes {sorted(nodes)}")
    else:
        print("note: etrecord_toy_mul.bin absent, not checked")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    rec, dump = demo_checks()
    bad_inputs(rec, dump)
    other_records()
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all graph CLI checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
