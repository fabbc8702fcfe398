"""etkit.Store: the run history of `etkit store` (docs/store.md) from Python.

    store = etkit.Store("runs.db")               # or "postgresql://..."
    store.add("etdump.etdp", model="mv2", commit="abc123")
    store.runs(model="mv2")                      # DataFrame, one row per run
    store.trend(op="native_call_convolution.out", model="mv2")
    store.compare({"commit": "abc"}, {"commit": "def"})
    store.show(3)                                # one run's operators
    store.export("v3", model="mv2")              # CSV/JSON/v3 text
    store.report({"branch": "main"}, {"commit": "def"}, "r.html")
    store.prune(commit="abc", keep_last=2, dry_run=True)

Every query returns a pandas DataFrame with the columns of the matching
`etkit store` command's CSV.  Tags and conditions are str -> str.
"""

from . import _etkit

__all__ = ["Store"]


def _frame(columns):
    import pandas as pd

    return pd.DataFrame(columns)


def _strings(d, conditions=False):
    out = {}
    for k, v in (d or {}).items():
        k, v = str(k), str(v)
        if "\x00" in k or "\x00" in v:
            raise ValueError(f"tag {k!r}={v!r} contains a NUL character")
        if conditions and v == "":
            raise ValueError(
                f"the condition {k}= has an empty value; it would select "
                "every run")
        out[k] = v
    return out


def _iso_time(when):
    """run_time as the ISO 8601 text the store parses (None stays None)."""
    import datetime

    if when is None:
        return None
    if isinstance(when, datetime.datetime):  # pandas Timestamp included
        return when.isoformat(timespec="seconds")
    if isinstance(when, datetime.date):
        return when.isoformat()
    if isinstance(when, str):
        if "\x00" in when:
            raise ValueError("run_time contains a NUL character")
        return when
    raise ValueError(f"run_time must be a str or a datetime, not {when!r}")


class Store:
    """A run-history database: a SQLite file path or a postgresql:// URI."""

    def __init__(self, url):
        self.url = str(url)

    def __repr__(self):
        # never the password of a postgresql:// URL
        return f"Store({_etkit.store_redact(self.url)!r})"

    def add(self, etdump, etrecord=None, program=None, tags=None,
            run_time=None, **more_tags):
        """Adds one ETDump (a path) with its tags; returns the run id (the
        existing one when the same dump is already stored).  run_time: when
        the run was made (an ISO 8601 str, a datetime or a pandas
        Timestamp; naive means UTC), stored beside the time of the add."""
        all_tags = _strings(tags)
        all_tags.update(_strings(more_tags))
        run_id, _existed, _ops, _samples, _digest = _etkit.store_add(
            self.url, str(etdump), all_tags,
            None if etrecord is None else str(etrecord),
            None if program is None else str(program),
            _iso_time(run_time))
        return run_id

    def runs(self, **where):
        """The runs matching every key=value condition, oldest first; the
        `added` (when stored) and `run_time` (when the run was made, NaT when
        unknown) columns are datetime64 (UTC)."""
        import pandas as pd

        frame = _frame(_etkit.store_query(self.url, "runs", "",
                                          _strings(where, True)))
        for col in ("added", "run_time"):
            if col in frame:
                frame[col] = pd.to_datetime(frame[col], utc=True)
        return frame

    def show(self, run):
        """One run's operators with their samples' statistics."""
        if isinstance(run, bool) or not isinstance(run, int) or run < 1:
            raise ValueError(f"show needs a run id (an int >= 1), not {run!r}")
        return _frame(_etkit.store_query(self.url, "show", str(run), {}))

    def export(self, format="csv", **where):
        """The matching runs as text: "csv", "json" or "v3" (PyTorch's
        benchmark database records), as `etkit store export`."""
        if format not in ("csv", "json", "v3"):
            raise ValueError(f"format must be csv, json or v3, not {format!r}")
        return _etkit.store_export(self.url, format, _strings(where, True))

    def report(self, baseline, candidate, path=None, markdown=None,
               threshold=2.0, alpha=0.05):
        """The `etkit store report` page (HTML, or Markdown when markdown is
        true or path ends in .md); written to path when given (under a
        temporary name, renamed when complete), returned otherwise."""
        import os

        if markdown is None:
            markdown = path is not None and str(path).endswith(".md")
        text = _etkit.store_report(
            self.url, _strings(baseline, True), _strings(candidate, True),
            bool(markdown), float(threshold), float(alpha))
        if path is None:
            return text
        tmp = f"{path}.tmp.{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
        return None

    def prune(self, keep_last=0, dry_run=False, **where):
        """Deletes the matching runs but the newest keep_last; returns how
        many (dry_run: the ids it would delete, deleting nothing).  Needs a
        condition or keep_last: it never deletes every run by default."""
        if not isinstance(keep_last, int) or keep_last < 0:
            raise ValueError(f"keep_last must be an int >= 0, not {keep_last!r}")
        conds = _strings(where, True)
        if not conds and keep_last == 0:
            raise ValueError("prune needs a condition or keep_last")
        if dry_run:
            ids = list(self.runs(**conds)["id"])
            return ids[:max(len(ids) - keep_last, 0)]
        return _etkit.store_prune(self.url, conds, keep_last)

    def trend(self, op=None, module=None, method=None, **where):
        """One row per matching run: the statistics of one operator (op),
        module (module) or method (method) over time."""
        chosen = [(k, v) for k, v in (("op", op), ("module", module),
                                      ("method", method)) if v is not None]
        if len(chosen) != 1:
            raise ValueError("trend takes exactly one of op, module, method")
        kind, name = chosen[0]
        return _frame(_etkit.store_query(self.url, kind, str(name),
                                         _strings(where, True)))

    def compare(self, baseline, candidate, op=None, threshold=2.0, alpha=0.05):
        """Every operator of the baseline runs against the candidate runs:
        medians, Hodges-Lehmann delta % with its confidence interval,
        Mann-Whitney p, Benjamini-Hochberg q, significant, direction."""
        return _frame(_etkit.store_compare(
            self.url, _strings(baseline, True), _strings(candidate, True),
            op, float(threshold), float(alpha)))
