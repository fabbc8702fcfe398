#!/usr/bin/env python3
"""Independent reference for `etkit memory PROGRAM.pte`.

Decodes each program with flatc (--json --strict-json --raw-binary against
schema/program.fbs), recomputes the memory plan from the issue's
definitions in the most direct way (instruction by instruction, every
tensor checked at every step, every pair compared), and compares what the
CLI prints: --format json (tensors, lifetimes, buffers, peaks, overlaps,
invalid tensors), --trace with and without --offsets (every event), and the
--check verdict (exit 3 and one line per problem, or exit 0 and no line).

It also derives programs from the fixtures' JSON and re-encodes them with
flatc --binary: two chains, a backward jump, and hostile programs
(dangling indices, a list item that is not a tensor, a list that contains
itself, negative sizes, byte sizes and ends past 64 bits, a truncated file),
which must give exit 1, one line on stderr and nothing on stdout.

Usage: reference.py --etkit EXE --flatc FLATC --schema program.fbs
                    --work DIR FIXTURE_DIR [CONFORMANCE_DIR]
Exit 0 all good, 1 a mismatch, 77 skipped (no flatc).
"""
import argparse
import copy
import glob
import json
import os
import subprocess
import sys

ELEM = {"BYTE": 1, "CHAR": 1, "SHORT": 2, "INT": 4, "LONG": 8, "HALF": 2,
        "FLOAT": 4, "DOUBLE": 8, "BOOL": 1, "QINT8": 1, "QUINT8": 1,
        "QINT32": 4, "BFLOAT16": 2, "QUINT4X2": 1, "QUINT2X4": 1,
        "BITS16": 2, "FLOAT8E5M2": 1, "FLOAT8E4M3FN": 1,
        "FLOAT8E5M2FNUZ": 1, "FLOAT8E4M3FNUZ": 1, "UINT16": 2,
        "UINT32": 4, "UINT64": 8}
LISTS = ("TensorList", "OptionalTensorList")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def decode(flatc, schema, pte, work):
    subprocess.run([flatc, "--json", "--strict-json", "--raw-binary", "-o",
                    work, schema, "--", pte], check=True,
                   stdout=subprocess.DEVNULL)
    base = os.path.splitext(os.path.basename(pte))[0]
    with open(os.path.join(work, base + ".json")) as f:
        return json.load(f)


def encode(flatc, schema, program, work, name):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(program, f)
    subprocess.run([flatc, "--binary", "-o", work, schema, path], check=True)
    return os.path.join(work, name + ".pte")  # the schema's file_extension


def references(instr):
    kind, a = instr["instr_args_type"], instr.get("instr_args", {})
    if kind in ("KernelCall", "DelegateCall"):
        return list(a.get("args", []))
    if kind == "MoveCall":
        return [a.get("move_from", 0), a.get("move_to", 0)]
    if kind == "JumpFalseCall":
        return [a.get("cond_value_index", 0)]
    if kind == "FreeCall":
        return [a.get("value_index", 0)]
    raise ValueError(kind)


def expected_plan(plan):
    values = plan["values"]
    instrs = [i for c in plan.get("chains", []) for i in c.get("instructions", [])]
    n = len(instrs)
    ops = plan.get("operators", [])

    def items(v):
        if values[v]["val_type"] in LISTS:
            return [x for x in values[v]["val"].get("items", []) if x >= 0]
        return []

    tensors = {}
    for v, ev in enumerate(values):
        if ev["val_type"] == "Tensor" and "allocation_info" in ev["val"]:
            t, ai = ev["val"], ev["val"]["allocation_info"]
            nbytes = ELEM[t.get("scalar_type", "BYTE")]
            for s in t.get("sizes", []):
                nbytes *= s
            tensors[v] = {"value": v, "mem_id": ai.get("memory_id", 0),
                          "offset": ai.get("memory_offset_low", 0)
                          | ai.get("memory_offset_high", 0) << 32,
                          "nbytes": nbytes, "uses": []}
    for i, ins in enumerate(instrs):
        for v in references(ins):
            for x in [v] + items(v):
                if x in tensors:
                    tensors[x]["uses"].append(i)
    if n:
        for v in plan.get("inputs", []):
            for x in [v] + items(v):
                if x in tensors:
                    tensors[x]["uses"].append(0)
        for v in plan.get("outputs", []):
            for x in [v] + items(v):
                if x in tensors:
                    tensors[x]["uses"].append(n - 1)
    alias = {}
    for ins in instrs:
        if ins["instr_args_type"] != "KernelCall":
            continue
        a = ins["instr_args"]
        if ops[a.get("op_index", 0)]["name"] == "executorch_prim::et_view":
            src, dst = a["args"][0], a["args"][-1]
            if src in tensors and dst in tensors and src != dst:
                alias.setdefault(dst, src)
    for t in tensors.values():
        t["first"] = min(t["uses"]) if t["uses"] else None
        t["last"] = max(t["uses"]) if t["uses"] else None

    def root(v):
        seen = set()
        while v in alias and v not in seen:
            seen.add(v)
            v = alias[v]
        return v

    sizes = plan.get("non_const_buffer_sizes", [])
    ts = sorted(tensors.values(), key=lambda t: t["value"])
    live_at = [[] for _ in range(n)]  # tensors live at each instruction
    for t in ts:
        if t["first"] is not None:
            for i in range(t["first"], t["last"] + 1):
                live_at[i].append(t)
    buffers = []
    for mem_id in range(1, len(sizes)):
        peak, at = 0, None
        for i in range(n):
            live = sum(t["nbytes"] for t in live_at[i]
                       if t["mem_id"] == mem_id)
            if live > peak:
                peak, at = live, i
        buffers.append({"mem_id": mem_id, "size": sizes[mem_id],
                        "peak_bytes": peak, "peak_instruction": at})
    pairs = set()
    for live in live_at:
        for i, x in enumerate(live):
            for y in live[i + 1:]:
                if (x["mem_id"] == y["mem_id"]
                        and x["offset"] < y["offset"] + y["nbytes"]
                        and y["offset"] < x["offset"] + x["nbytes"]
                        and root(x["value"]) != root(y["value"])):
                    pairs.add((x["value"], y["value"]))
    overlaps = sorted(pairs)
    invalid = [t["value"] for t in ts
               if not 1 <= t["mem_id"] < len(sizes)
               or t["offset"] + t["nbytes"] > sizes[t["mem_id"]]]
    trace, tid = [], 0
    for i in range(n):
        live = live_at[i]
        if not live:
            continue
        start = 0
        for t in live:
            trace.append((t["value"], start, t["offset"], t["nbytes"],
                          t["mem_id"], tid))
            start += t["nbytes"]
        tid += 1
    return {"n": n, "tensors": ts, "buffers": buffers, "overlaps": overlaps,
            "invalid": invalid, "trace": trace}


def run(etkit, *args):
    return subprocess.run([etkit, "memory"] + list(args), capture_output=True,
                          text=True)


def compare(etkit, pte, plan, work, method=None):
    name = os.path.basename(pte)
    want = expected_plan(plan)
    extra = ["--method", method] if method else []
    r = run(etkit, pte, "--format", "json", *extra)
    if r.returncode != 0:
        fail("%s: exit %d: %s" % (name, r.returncode, r.stderr))
        return
    got = json.loads(r.stdout)
    if got["num_instructions"] != want["n"]:
        fail("%s: num_instructions %s != %s" % (name, got["num_instructions"],
                                                 want["n"]))
    keys = ("value", "mem_id", "offset", "nbytes", "first", "last")
    g = [tuple(t[k] for k in keys) for t in got["tensors"]]
    w = [tuple(t[k] for k in keys) for t in want["tensors"]]
    if g != w:
        fail("%s: tensors differ:\n  got  %s\n  want %s" % (name, g[:20], w[:20]))
    bkeys = ("mem_id", "size", "peak_bytes", "peak_instruction")
    g = [tuple(b[k] for k in bkeys) for b in got["buffers"]]
    w = [tuple(b[k] for k in bkeys) for b in want["buffers"]]
    if g != w:
        fail("%s: buffers %s != %s" % (name, g, w))
    g = [(o["a"], o["b"]) for o in got["overlaps"]]
    if g != want["overlaps"]:
        fail("%s: overlaps %s != %s" % (name, g, want["overlaps"]))
    if got["invalid"] != want["invalid"]:
        fail("%s: invalid %s != %s" % (name, got["invalid"], want["invalid"]))
    for offsets in (False, True):
        out = os.path.join(work, name + (".offsets" if offsets else "") + ".trace.json")
        r = run(etkit, pte, "--trace", out, *(["--offsets"] if offsets else []),
                *extra)
        if r.returncode != 0:
            fail("%s: --trace exit %d" % (name, r.returncode))
            continue
        with open(out) as f:
            events = json.load(f)["traceEvents"]
        g = [(int(e["name"].split("_")[-1]), e["ts"], e["dur"], e["pid"],
              e["tid"], e["cat"], e["ph"], e["args"]["bytes"],
              e["args"]["Memory ID"]) for e in events]
        w = [(v, off if offsets else start, nb, mem, tid, "memory_allocation",
              "X", nb, mem) for v, start, off, nb, mem, tid in want["trace"]]
        if g != w:
            fail("%s: trace%s differs (%d vs %d events)" %
                 (name, " --offsets" if offsets else "", len(g), len(w)))
    r = run(etkit, pte, "--check", *extra)
    problems = len(want["overlaps"]) + len(want["invalid"])
    lines = [l for l in r.stdout.splitlines() if l]
    if r.returncode != (3 if problems else 0) or len(lines) != problems:
        fail("%s: --check exit %d with %d lines, expected %d problems" %
             (name, r.returncode, len(lines), problems))
    print("ok %s%s: %d tensors, %d instructions, %d overlaps, %d invalid" %
          (name, " (%s)" % method if method else "", len(want["tensors"]),
           want["n"], len(want["overlaps"]), len(want["invalid"])))


def derived(flatc, schema, base, work, etkit):
    """Programs made from the chain fixture's JSON."""
    plan = base["execution_plan"][0]
    # Two chains: the second chain repeats the first; instructions are
    # numbered across chains, so lifetimes run over 8 instructions.
    two = copy.deepcopy(base)
    p = two["execution_plan"][0]
    p["chains"].append(copy.deepcopy(p["chains"][0]))
    compare(etkit, encode(flatc, schema, two, work, "two_chains"), p, work)
    # A backward jump (a loop): lifetimes stay in instruction order.
    loop = copy.deepcopy(base)
    p = loop["execution_plan"][0]
    p["values"].append({"val_type": "Bool", "val": {"bool_val": True}})
    p["chains"][0]["instructions"].append(
        {"instr_args_type": "JumpFalseCall",
         "instr_args": {"cond_value_index": len(p["values"]) - 1,
                        "destination_instruction": 1}})
    path = encode(flatc, schema, loop, work, "backward_jump")
    compare(etkit, path, p, work)
    got = json.loads(run(etkit, path, "--format", "json").stdout)
    if got["backward_jumps"] != 1:
        fail("backward_jump: backward_jumps %s" % got["backward_jumps"])
    # Hostile programs: exit 1, one line on stderr, nothing on stdout.
    nv = len(plan["values"])

    def hostile(name, edit):
        prog = copy.deepcopy(base)
        edit(prog["execution_plan"][0])
        path = encode(flatc, schema, prog, work, name)
        for extra in ([], ["--check"], ["--format", "json"]):
            r = run(etkit, path, *extra)
            if (r.returncode != 1 or r.stdout or
                    len(r.stderr.strip().splitlines()) != 1):
                fail("%s %s: exit %d, stdout %r, stderr %r" %
                     (name, extra, r.returncode, r.stdout[:80], r.stderr))
                return
        print("ok %s rejected: %s" % (name, r.stderr.strip()))

    def arg(p, v):
        p["chains"][0]["instructions"][0]["instr_args"]["args"][0] = v

    def add_list(p, items, kind="TensorList"):
        p["values"].append({"val_type": kind, "val": {"items": items}})
        arg(p, len(p["values"]) - 1)

    def tensor0(p):
        return p["values"][0]["val"]

    hostile("dangling_arg", lambda p: arg(p, nv + 5))
    hostile("negative_arg", lambda p: arg(p, -2))
    hostile("dangling_output", lambda p: p.__setitem__("outputs", [nv]))
    hostile("list_item_not_tensor",
            lambda p: add_list(p, [0, len(p["values"])]))
    hostile("cyclic_list", lambda p: add_list(p, [0, len(p["values"])]))
    hostile("optional_list_dangling",
            lambda p: add_list(p, [-1, nv + 9], "OptionalTensorList"))
    hostile("negative_size", lambda p: tensor0(p).__setitem__("sizes", [-16]))
    hostile("size_overflow", lambda p: tensor0(p).__setitem__(
        "sizes", [2147483647, 2147483647, 2147483647]))
    hostile("end_overflow", lambda p: tensor0(p)["allocation_info"].__setitem__(
        "memory_offset_high", 4294967295) or tensor0(p)[
        "allocation_info"].__setitem__("memory_offset_low", 4294967295))
    hostile("negative_buffer", lambda p: p.__setitem__(
        "non_const_buffer_sizes", [0, -128]))
    hostile("bad_operator", lambda p: p["chains"][0]["instructions"][0][
        "instr_args"].__setitem__("op_index", 7))
    hostile("jump_outside", lambda p: p["chains"][0]["instructions"].append(
        {"instr_args_type": "JumpFalseCall",
         "instr_args": {"cond_value_index": 0,
                        "destination_instruction": 99}}))
    # Truncated: the chain program cut in half.
    src = os.path.join(work, "truncated.pte")
    whole = encode(flatc, schema, base, work, "whole")
    with open(whole, "rb") as f:
        data = f.read()
    with open(src, "wb") as f:
        f.write(data[: len(data) // 2])
    r = run(etkit, src)
    if r.returncode != 1 or r.stdout or len(r.stderr.strip().splitlines()) != 1:
        fail("truncated: exit %d, stderr %r" % (r.returncode, r.stderr))
    else:
        print("ok truncated rejected: %s" % r.stderr.strip())


def etdump_check(etkit, pte, work):
    """Run the program on etkit's runtime with an ETDump, then compare the
    runtime's allocation events with the plan: one planned_memory_<id>
    event per buffer of exactly the buffer's size."""
    dump = os.path.join(work, os.path.basename(pte) + ".etdp")
    r = subprocess.run([etkit, "run", pte, "--etdump", dump, "--iterations",
                        "2"], capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: etkit run failed: %s" % (pte, r.stderr))
        return
    r = run(etkit, pte, "--etdump", dump, "--format", "json")
    got = json.loads(r.stdout) if r.returncode == 0 else {}
    rows = {x["allocator"]: x for x in got.get("runtime", [])}
    for b in got.get("buffers", []):
        row = rows.get("planned_memory_%d" % b["mem_id"])
        if (not row or row["mem_id"] != b["mem_id"] or
                row["planned_bytes"] != b["size"] or
                row["total_bytes"] != b["size"] * row["runs"] or
                row["events"] != row["runs"]):
            fail("%s: --etdump rows %s do not match buffer %s" %
                 (pte, rows, b))
            return
    if "method_allocator" not in rows:
        fail("%s: --etdump lacks the method allocator" % pte)
        return
    print("ok %s --etdump: %d allocators" % (os.path.basename(pte), len(rows)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--etkit", required=True)
    ap.add_argument("--flatc", default="")
    ap.add_argument("--schema", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("fixtures")
    ap.add_argument("conformance", nargs="?")
    a = ap.parse_args()
    if not a.flatc or not os.path.exists(a.flatc):
        print("SKIPPED: flatc not found")
        return 77
    os.makedirs(a.work, exist_ok=True)
    programs = sorted(glob.glob(os.path.join(a.fixtures, "*.pte")))
    if not programs:
        fail("no fixtures in %s" % a.fixtures)
    for pte in programs:
        compare(a.etkit, pte, decode(a.flatc, a.schema, pte, a.work)["execution_plan"][0],
                a.work)
    residual = os.path.join(a.fixtures, "residual.pte")
    if os.path.exists(residual):
        etdump_check(a.etkit, residual, a.work)
    chain = os.path.join(a.fixtures, "chain_reuse.pte")
    if os.path.exists(chain):
        derived(a.flatc, a.schema, decode(a.flatc, a.schema, chain, a.work),
                a.work, a.etkit)
    conf = sorted(glob.glob(os.path.join(a.conformance or "", "*.pte")))
    if not conf:
        print("SKIPPED: conformance programs absent (%s)" % a.conformance)
    for pte in conf:
        prog = decode(a.flatc, a.schema, pte, a.work)
        for plan in prog["execution_plan"]:
            compare(a.etkit, pte, plan, a.work, plan["name"])
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
