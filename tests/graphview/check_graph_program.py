"""check_graph_program.py - `etkit graph PROGRAM.pte|.bpte` (a program
without its ETRecord) end to end, against the other commands' outputs
for the same files.

  python3 check_graph_program.py ETKIT KWS_TOOL WORKDIR CONFORMANCE_DIR [PAGES_DIR]

- the listing: one "#I" row per KernelCall and DelegateCall, as many as
  `etkit info --ops` counts kernel calls plus the delegates `etkit info`
  lists; the page draws every one of them once, with the inputs and the
  output, nothing else; the delegate call sits in a partition named
  after its backend; its tooltip arguments name the folded constants;
- the ETDump join by instruction id: each node's data-value is the
  median time of the event `etkit inspect --format json` gives its
  instruction (OPERATOR_CALL wrappers and a delegate's own events left
  out), in the page's data-unit; the Model Explorer node data holds the
  same values; --against colours by change; --overlay memory needs no
  ETDump; --overlay error against a second run (the KWS example, whose
  integer outputs are exact matches) or, for a .bpte, against its
  expected outputs;
- the demo (`etkit demo`), the KWS example (etkit_kws_model) run with
  `etkit run --etdump`, and upstream's programs of ../shared/conformance;
- bad input: usage mistakes exit 2, a missing method 1, one line each and
  no page; another program's ETDump gives the warning and an uncoloured
  page.
PAGES_DIR receives demo_program.html and kws_program.html for the browser.
"""
import json
import os
import re
import shutil
import subprocess
import sys

ETKIT, KWS, WORK, CONF = sys.argv[1:5]
PAGES = sys.argv[5] if len(sys.argv) > 5 else None
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
    """data-node -> (data-value or None, the tag's text)."""
    text = open(path, encoding="utf-8").read()
    out = {}
    for m in re.finditer(r'<g class="gn[^"]*" data-node="([^"]*)"[^>]*>', text):
        tag = m.group(0)
        name = m.group(1)
        check(name not in out, f"{path}: node {name} drawn twice")
        v = re.search(r'data-value="([^"]*)"', tag)
        out[name] = (float(v.group(1)) if v else None, tag)
    return out, text


UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}


def page_unit(text):
    m = re.search(r'<section class="gv"[^>]* data-unit="([^"]*)"', text)
    return m.group(1) if m else None


def close(a, b):
    return abs(a - b) <= 1e-9 + 1e-6 * abs(b)


def listing(program):
    """`etkit graph PROGRAM` rows: node -> (op, constants count)."""
    rows, started = {}, False
    for line in run("graph", program).stdout.splitlines():
        if line.startswith("node "):
            started = True
            continue
        if started and line.strip():
            cells = re.split(r"\s{2,}", line.strip())
            consts = re.search(r"(\d+) \(\d+ B\)$", line)
            rows[cells[0]] = (cells[1], int(consts.group(1)) if consts else 0)
    return rows


def counted_calls(program):
    """Kernel calls (`info --ops`) and delegates (`info`) of forward."""
    ops = run("info", "--ops", program).stdout
    calls = int(re.search(r"(\d+) kernel calls?", ops).group(1))
    info = run("info", program).stdout
    backends = re.findall(r"delegate \d+: backend ([^\s,]+)", info)
    inputs = int(re.search(r"method forward: (\d+) inputs?", info).group(1))
    return calls, backends, inputs


def structure(program, page, etdump=None):
    """The listing and the page against `info`; returns the page's nodes."""
    rows = listing(program)
    calls, backends, inputs = counted_calls(program)
    call_rows = [n for n in rows if n.startswith("#")]
    check(len(call_rows) == calls + len(backends),
          f"{program}: {len(call_rows)} call rows, info counts {calls} kernel "
          f"calls and {len(backends)} delegates")
    args = ["graph", program, "--html", page]
    if etdump:
        args += ["--etdump_path", etdump]
    run(*args)
    nodes, text = page_nodes(page)
    want = set(call_rows) | {f"input{k}" for k in range(inputs)} | {"output"}
    check(set(nodes) == want, f"{page}: nodes {sorted(nodes)} != {sorted(want)}")
    for name, (op, consts) in rows.items():
        if not name.startswith("#") or name not in nodes:
            continue
        tag = nodes[name][1]
        m = re.search(r'data-args="([^"]*)"', tag)
        folded = len(re.findall(r": (?:const|external) ", m.group(1))) if m else 0
        check(folded == consts, f"{page}: {name} tooltip has {folded} constants, "
              f"the listing {consts}")
    for backend in backends:
        check(f'data-group="{backend}"' in text,
              f"{page}: no partition of {backend}")
    return nodes, text, rows


def instruction_times(etdump):
    """instruction id -> p50 (ms) of its own event."""
    data = json.loads(run("inspect", "--etdump_path", etdump, "--format",
                          "json").stdout)
    out = {}
    for e in data["events"]:
        if e["event_block_name"] == "Default" or e["event_name"] in (
                "OPERATOR_CALL", "Method::execute", "Method::init",
                "Program::load_method"):
            continue
        if e["delegate_debug_identifier"] is not None:
            continue
        check(e["instruction_id"] not in out,
              f"two events for instruction {e['instruction_id']}")
        out[e["instruction_id"]] = e["p50 (ms)"]
    return out


def join_checks(page_text, nodes, etdump, what):
    times = instruction_times(etdump)
    unit = page_unit(page_text)
    check(unit in UNITS, f"{what}: page unit {unit}")
    per_ms = 1e-3 / UNITS.get(unit, 1e-3)
    for name, (value, _) in nodes.items():
        if not name.startswith("#"):
            check(value is None, f"{what}: {name} has a value")
            continue
        i = int(name[1:])
        check(i in times, f"{what}: no event for {name}")
        if i in times:
            check(value is not None and close(value, times[i] * per_ms),
                  f"{what}: {name} page {value} != inspect {times[i]} ms")
    check(len(times) == sum(n.startswith("#") for n in nodes),
          f"{what}: {len(times)} instruction events for the drawn calls")


def refused(args, code, out, what):
    if os.path.exists(out):
        os.remove(out)
    p = run(*args, ok=False)
    lines = p.stderr.strip().splitlines()
    check(p.returncode == code and len(lines) == 1 and not os.path.exists(out),
          f"{what}: exit {p.returncode} (want {code}), stderr {p.stderr!r}")


def demo():
    d1, d2 = os.path.join(WORK, "d1"), os.path.join(WORK, "d2")
    for d in (d1, d2):
        run("demo", "--output-dir", d, "--runs", "3")
    pte, dump = os.path.join(d1, "model.pte"), os.path.join(d1, "etdump.etdp")
    page = os.path.join(WORK, "demo_program.html")
    nodes, text, _ = structure(pte, page, dump)
    join_checks(text, nodes, dump, "demo")
    # the delegate call is a partition of its own
    check(re.search(r'data-group="EtkitMicroBackend"', text) is not None,
          "demo: no EtkitMicroBackend box")
    # Model Explorer: the same nodes, node data equal to the page's values
    me, nd = os.path.join(WORK, "me.json"), os.path.join(WORK, "nd.json")
    run("graph", pte, "--model-explorer", me, "--node-data", nd,
        "--etdump_path", dump)
    ids = {n["id"] for g in json.load(open(me))["graphs"] for n in g["nodes"]}
    check(set(nodes) <= ids, f"Model Explorer ids {sorted(ids)}")
    data = json.load(open(nd))
    results = next(iter(data.values()))["results"]
    for name, (value, _) in nodes.items():
        if value is not None:
            check(name in results and close(results[name]["value"], value),
                  f"node data of {name}: {results.get(name)} != {value}")
    # A -> B: both medians in the tooltips
    ab = os.path.join(WORK, "demo_program_ab.html")
    run("graph", pte, "--html", ab, "--etdump_path", dump, "--against",
        os.path.join(d2, "etdump.etdp"))
    check('data-fa="' in open(ab, encoding="utf-8").read(), "A/B page has no A values")
    # memory from the program alone: every call writes sized tensors
    mem = os.path.join(WORK, "demo_memory.html")
    run("graph", pte, "--html", mem, "--overlay", "memory")
    mnodes, _ = page_nodes(mem)
    check(all(v is not None for n, (v, _) in mnodes.items() if n.startswith("#")),
          "memory overlay: a call without a size")
    # the bundled program of the demo: the same graph
    bnodes, _, _ = structure(os.path.join(d1, "model.bpte"),
                             os.path.join(WORK, "demo_bpte.html"))
    check(set(bnodes) == set(nodes), "the .bpte's graph differs from the .pte's")
    # the .bpte's expected outputs are the reference of the error overlay:
    # the node writing the output (the last addmm) is compared, nothing else
    bpte = os.path.join(d1, "model.bpte")
    bdump, bbuf = os.path.join(WORK, "bp.etdp"), os.path.join(WORK, "bp.bin")
    run("run", bpte, "--etdump", bdump, "--debug-level", "outputs",
        "--debug-buffer", bbuf)
    err = os.path.join(WORK, "demo_bpte_error.html")
    run("graph", bpte, "--html", err, "--overlay", "error", "--etdump_path",
        bdump, "--debug_buffer_path", bbuf)
    enodes, etext = page_nodes(err)
    valued = {n: v for n, (v, _) in enodes.items() if v is not None}
    check(valued == {"#7": 0.0} and "MSE 0" in etext,
          f"bundled error overlay: {valued}")
    if PAGES:
        shutil.copy(page, os.path.join(PAGES, "demo_program.html"))
    return pte, dump


def kws(demo_pte, demo_dump):
    d = os.path.join(WORK, "kws")
    os.makedirs(d)
    p = subprocess.run([KWS, d], capture_output=True, text=True)
    check(p.returncode == 0, f"etkit_kws_model: {p.stderr}")
    pte = os.path.join(d, "kws.pte")
    dumps = []
    for k in range(2):
        dump, buf = os.path.join(d, f"run{k}.etdp"), os.path.join(d, f"run{k}.bin")
        run("run", pte, "--iterations", "3", "--etdump", dump, "--debug-level",
            "intermediates", "--debug-buffer", buf)
        dumps.append((dump, buf))
    page = os.path.join(WORK, "kws_program.html")
    nodes, text, rows = structure(pte, page, dumps[0][0])
    join_checks(text, nodes, dumps[0][0], "kws")
    # two runs of one program: no error anywhere, integer outputs exact
    err = os.path.join(WORK, "kws_error.html")
    run("graph", pte, "--html", err, "--overlay", "error", "--etdump_path",
        dumps[0][0], "--debug_buffer_path", dumps[0][1], "--against",
        dumps[1][0], "--against-debug-buffer", dumps[1][1])
    enodes, etext = page_nodes(err)
    compared = [v for n, (v, _) in enodes.items() if v is not None]
    check(compared and all(v == 0 for v in compared),
          f"kws A/A error: {compared}")
    # int8 activations are quantized values: compared by MSE as upstream's
    # comparators do, never as exact matches (docs/numerics.md)
    check("elements differ" not in etext,
          "kws A/A: int8 outputs counted as exact matches")
    # another program's ETDump: warned, drawn without colour
    other = os.path.join(WORK, "kws_other.html")
    p = run("graph", pte, "--html", other, "--etdump_path", demo_dump)
    check("another program" in p.stderr, f"no other-program warning: {p.stderr!r}")
    onodes, otext = page_nodes(other)
    check(all(v is None for v, _ in onodes.values()) and "gv-note" in otext,
          "another program's ETDump coloured the page")
    # usage and bad input
    bad = os.path.join(WORK, "bad.html")
    refused(["graph", pte, "--html", bad, "--overlay", "error", "--etdump_path",
             dumps[0][0], "--debug_buffer_path", dumps[0][1]], 2, bad,
            "error overlay without --against")
    refused(["graph", pte, "--html", bad, "--graph", "exported_program"], 2, bad,
            "--graph on a program")
    refused(["graph", pte, "--html", bad, "--method", "nope"], 1, bad,
            "missing method")
    p = run("graph", pte, "--method", "nope", ok=False)
    check(p.returncode == 1 and "forward" in p.stderr, f"listing: {p.stderr!r}")
    if PAGES:
        shutil.copy(page, os.path.join(PAGES, "kws_program.html"))


def upstream():
    seen = 0
    for name in ("add.pte", "module_linear_inline_constants.pte",
                 "bundled_program.bpte"):
        path = os.path.join(CONF, name)
        if not os.path.exists(path):
            print(f"note: {name} absent, not checked")
            continue
        seen += 1
        structure(path, os.path.join(WORK, name + ".html"))
    if os.environ.get("CI") == "true":
        check(seen == 3, "CI=true but upstream's programs are absent")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    if PAGES:
        os.makedirs(PAGES, exist_ok=True)
    pte, dump = demo()
    kws(pte, dump)
    upstream()
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all program graph checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
