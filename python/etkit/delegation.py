"""Upstream's delegation summary (executorch.devtools.backend_debug):
get_delegation_info, print_delegation_info, DelegationBreakdown and
DelegationInfo with get_summary() and get_operator_delegation_dataframe(),
computed by etkit's C graph library from an ETRecord (no torch).

Upstream takes a lowered graph module; etkit takes what holds one without
torch: an ETRecord path, an etkit ETRecord (its edge program), or an
etkit ExportedProgram (ETRecord.edge_dialect_program, graph_map values,
Inspector.get_exported_program(); ``ep.graph_module`` is the program
itself, so upstream's ``get_delegation_info(ep.graph_module)`` reads the
same).  Beyond upstream: DelegationInfo.delegation_by_backend."""

import os
from dataclasses import asdict, dataclass, field
from typing import Dict

from . import _etkit

__all__ = ["DelegationBreakdown", "DelegationInfo", "get_delegation_info",
           "print_delegation_info"]

_IN = "occurrences_in_delegated_graphs"
_OUT = "occurrences_in_non_delegated_graphs"


@dataclass
class DelegationBreakdown:
    """Delegated and non-delegated occurrences of one op type."""

    op_type: str = ""
    delegated: int = 0
    non_delegated: int = 0


@dataclass
class DelegationInfo:
    num_delegated_subgraphs: int
    num_delegated_nodes: int
    num_non_delegated_nodes: int
    delegation_by_operator: Dict[str, DelegationBreakdown]
    #: etkit: backend id -> {"subgraphs": n, "delegated_nodes": n}
    delegation_by_backend: Dict[str, Dict[str, int]] = field(default_factory=dict)

    def get_summary(self) -> str:
        return (f"Total delegated subgraphs: {self.num_delegated_subgraphs}\n"
                f"Number of delegated nodes: {self.num_delegated_nodes}\n"
                f"Number of non-delegated nodes: {self.num_non_delegated_nodes}\n")

    def get_operator_delegation_dataframe(self):
        """op_type, occurrences_in_delegated_graphs,
        occurrences_in_non_delegated_graphs sorted by op_type, with a last
        "Total" row, as upstream."""
        import pandas as pd

        rows = [asdict(b) for b in self.delegation_by_operator.values()]
        df = pd.DataFrame(rows, columns=["op_type", "delegated", "non_delegated"])
        df = df.rename(columns={"delegated": _IN, "non_delegated": _OUT})
        df = df.sort_values(by="op_type", ignore_index=True)
        df.loc[len(df)] = ["Total", df[_IN].sum(), df[_OUT].sum()]
        return df


def _source(x):
    """(path, method, graph member) of what get_delegation_info takes."""
    from .inspector import ETRecord, ExportedProgram

    if isinstance(x, (str, bytes, os.PathLike)):
        return os.fsdecode(x), None, None
    if isinstance(x, ETRecord):
        return x.path, None, None
    if isinstance(x, ExportedProgram):
        return x._prog["path"], None, x.member
    raise TypeError(
        "get_delegation_info takes an ETRecord path, an etkit ETRecord or an "
        f"etkit ExportedProgram (no torch graph module), not {type(x).__name__}")


def get_delegation_info(graph_module, method: str = None) -> DelegationInfo:
    path, default_method, member = _source(graph_module)
    subgraphs, delegated, non_delegated, ops, backends = _etkit.delegation_info(
        path, method or default_method, member)
    return DelegationInfo(
        num_delegated_subgraphs=subgraphs,
        num_delegated_nodes=delegated,
        num_non_delegated_nodes=non_delegated,
        delegation_by_operator={op: DelegationBreakdown(op, d, n) for op, d, n in ops},
        delegation_by_backend={b: {"subgraphs": s, "delegated_nodes": n}
                               for b, s, n in backends})


def print_delegation_info(graph_module, method: str = None) -> None:
    """The summary, then the per-operator table as upstream prints it
    (tabulate's fancy_grid, through etkit's renderer when tabulate is
    absent: the same text)."""
    info = get_delegation_info(graph_module, method)
    print(info.get_summary())
    df = info.get_operator_delegation_dataframe()
    try:
        from tabulate import tabulate
    except ImportError:
        print(df.to_string())
        return
    print(tabulate(df, headers="keys", tablefmt="fancy_grid"))
