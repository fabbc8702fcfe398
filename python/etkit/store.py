"""etkit.Store: the run history of `etkit store` (docs/store.md) from Python.

    store = etkit.Store("runs.db")               # or "postgresql://..."
    store.add("etdump.etdp", model="mv2", commit="abc123")
    store.runs(model="mv2")                      # DataFrame, one row per run
    store.trend(op="native_call_convolution.out", model="mv2")
    store.compare({"commit": "abc"}, {"commit": "def"})

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


class Store:
    """A run-history database: a SQLite file path or a postgresql:// URI."""

    def __init__(self, url):
        self.url = str(url)

    def __repr__(self):
        # never the password of a postgresql:// URL
        return f"Store({_etkit.store_redact(self.url)!r})"

    def add(self, etdump, etrecord=None, program=None, tags=None, **more_tags):
        """Adds one ETDump (a path) with its tags; returns the run id (the
        existing one when the same dump is already stored)."""
        all_tags = _strings(tags)
        all_tags.update(_strings(more_tags))
        run_id, _existed, _ops, _samples, _digest = _etkit.store_add(
            self.url, str(etdump), all_tags,
            None if etrecord is None else str(etrecord),
            None if program is None else str(program))
        return run_id

    def runs(self, **where):
        """The runs matching every key=value condition, oldest first."""
        return _frame(_etkit.store_query(self.url, "runs", "",
                                         _strings(where, True)))

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
