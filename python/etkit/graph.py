"""Model Explorer files from an ETRecord or a program (etkit.model_explorer),
and the graph view of either without an Inspector method
(etkit.graph_view).

Model Explorer (google-ai-edge/model-explorer) loads a graph JSON file (a
GraphCollection) and node-data JSON files.  etkit writes both from the
ETRecord alone, with node ids equal to the FX node names that Model
Explorer's own PyTorch adapter gives the program, so node data etkit writes
also colours graphs users made with the adapter themselves.
"""

import os
import warnings
from typing import Optional

from . import _checks, _etkit
from .inspector import ETRecord, GraphView, Inspector, parse_etrecord

__all__ = ["model_explorer", "graph_view"]


def _program_path(source):
    """The path of `source` when it is a program (.pte) or a bundled
    program (.bpte), told by its first bytes as `etkit graph` tells them;
    else None."""
    if isinstance(source, (ETRecord, bytes, bytearray)) or source is None:
        return None
    try:
        path = _checks.fspath(source, "source")
    except TypeError:
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return None
    return path if head[4:8] in (b"ET12", b"BP08") else None

# the names of `etkit graph --overlay` (etk_graph_view_overlay_check)
_OVERLAYS = ("time", "share", "count", "error", "mse", "snr", "memory")


def model_explorer(etrecord, graph_path: str, node_data_path: Optional[str] = None,
                   inspector: Optional[Inspector] = None, overlay: str = "time",
                   reference_graph: Optional[str] = None,
                   method: Optional[str] = None) -> dict:
    """Writes Model Explorer's graph JSON of an ETRecord's graph to
    `graph_path` and, with an Inspector, the node data of one overlay to
    `node_data_path`.

    etrecord: a path or an ETRecord (etkit.parse_etrecord); or the path of
      a program (.pte or .bpte) without its ETRecord: its instruction
      graph (one node per KernelCall and DelegateCall, ids "#I"; see
      docs/graph-view.md), joined with the Inspector's events by
      instruction id.
    inspector: the Inspector whose per-node figures the node data holds;
      nodes no event reached are left out (never written as 0).  An ETDump
      of another program gives a warning and empty results.
    overlay: the names of `etkit graph --overlay`: "time" (median per
      run, in the unit the file's "unit" names), "share" (% of
      Method::execute), "count" (runs), "error" (or "mse") and "snr"
      (numerical error of the program outputs against the ETRecord's
      reference outputs; needs the Inspector's debug buffer), "memory"
      (output bytes, from the ETRecord alone: no inspector needed).
    reference_graph: another recorded graph ("exported_program",
      "aten_dialect_output", ...); default the edge dialect program.
    method: the method (default "forward", or the only one).

    Returns {"nodes": graph nodes, "partitions": delegate partitions}.
    Files are written whole (a temporary name, then renamed).
    """
    program = _program_path(etrecord)
    if program is not None and reference_graph is not None:
        raise ValueError("reference_graph names an ETRecord's graph; "
                         f"{program} is a program")
    if program is None and isinstance(etrecord, (str, os.PathLike)):
        etrecord = parse_etrecord(os.fspath(etrecord))
    if program is None and not isinstance(etrecord, ETRecord):
        raise TypeError("etrecord must be a path, an etkit ETRecord or a "
                        "program's path")
    if overlay not in _OVERLAYS:
        raise ValueError(f"overlay must be one of {', '.join(_OVERLAYS)}, not {overlay!r}")
    if node_data_path is not None and inspector is None and overlay != "memory":
        raise ValueError("node_data_path needs an inspector (the figures come from its "
                         "ETDump), except with overlay=\"memory\"")
    if inspector is not None and not isinstance(inspector, Inspector):
        raise TypeError("inspector must be an etkit Inspector")
    handle = inspector._handle if inspector is not None else None
    nodes, partitions, notes = _etkit.graph_model_explorer(
        program if program is not None else etrecord._handle, str(graph_path),
        None if node_data_path is None else str(node_data_path),
        handle, overlay, reference_graph, method)
    for note in notes:
        warnings.warn(note, stacklevel=2)
    return {"nodes": nodes, "partitions": partitions}


def graph_view(source, inspector: Optional[Inspector] = None,
               overlay: Optional[str] = None,
               against: Optional[Inspector] = None,
               method: Optional[str] = None,
               title: Optional[str] = None) -> GraphView:
    """The page of `etkit graph SOURCE --html` as a GraphView (shown inline
    in Jupyter, .save(path), .html).

    source: an ETRecord (a path or etkit.parse_etrecord's object), or a
      program's path (.pte or .bpte) when the ETRecord is not at hand: its
      instruction graph, constants folded, delegate calls boxed.
    inspector: the run whose figures colour the nodes (joined by debug
      handle with an ETRecord, by instruction id with a program); None
      draws the graph uncoloured (or with overlay="memory").
    overlay: "time" (default with an inspector), "share", "count",
      "error"/"mse", "snr", "memory".  On a program, "error" and "snr"
      need `against` (a program has no reference outputs).
    against: an Inspector of a second run: the change from `inspector`'s
      run to it, or with "error"/"snr" the numerical error between them.
    method: the method (default "forward", or the first/only one).
    An ETDump of another program gives a warning and an uncoloured page.
    """
    program = _program_path(source)
    if program is None:
        if isinstance(source, (str, os.PathLike)):
            source = parse_etrecord(os.fspath(source))
        if not isinstance(source, ETRecord):
            raise TypeError("source must be an ETRecord, its path, or a "
                            "program's path")
    for what, value in (("inspector", inspector), ("against", against)):
        if value is not None and not isinstance(value, Inspector):
            raise TypeError(f"{what} must be an etkit Inspector")
    if overlay is not None and overlay not in _OVERLAYS:
        raise ValueError(f"overlay must be one of {', '.join(_OVERLAYS)}, not {overlay!r}")
    numerical = overlay in ("error", "mse", "snr")
    if numerical and program is not None and against is None:
        raise ValueError(f"overlay={overlay!r} on a program needs against= (a "
                         "program has no reference outputs)")
    if against is not None and inspector is None:
        raise ValueError("against needs an inspector")
    if overlay is None and inspector is not None:
        overlay = "time"
    page, notes = _etkit.graph_html(
        program if program is not None else source._handle,
        inspector._handle if inspector is not None else None, overlay,
        against._handle if against is not None else None, False, title, method)
    for note in notes:
        warnings.warn(note, stacklevel=2)
    return GraphView(page)
