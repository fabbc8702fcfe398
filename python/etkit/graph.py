"""Model Explorer files from an ETRecord (etkit.model_explorer).

Model Explorer (google-ai-edge/model-explorer) loads a graph JSON file (a
GraphCollection) and node-data JSON files.  etkit writes both from the
ETRecord alone, with node ids equal to the FX node names that Model
Explorer's own PyTorch adapter gives the program, so node data etkit writes
also colours graphs users made with the adapter themselves.
"""

import warnings
from typing import Optional

from . import _etkit
from .inspector import ETRecord, Inspector, parse_etrecord

__all__ = ["model_explorer"]

# the names of `etkit graph --overlay` (etk_graph_view_overlay_check)
_OVERLAYS = ("time", "share", "count", "error", "mse", "snr", "memory")


def model_explorer(etrecord, graph_path: str, node_data_path: Optional[str] = None,
                   inspector: Optional[Inspector] = None, overlay: str = "time",
                   reference_graph: Optional[str] = None,
                   method: Optional[str] = None) -> dict:
    """Writes Model Explorer's graph JSON of an ETRecord's graph to
    `graph_path` and, with an Inspector, the node data of one overlay to
    `node_data_path`.

    etrecord: a path or an ETRecord (etkit.parse_etrecord).
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
    if isinstance(etrecord, str):
        etrecord = parse_etrecord(etrecord)
    if not isinstance(etrecord, ETRecord):
        raise TypeError("etrecord must be a path or an etkit ETRecord")
    if overlay not in _OVERLAYS:
        raise ValueError(f"overlay must be one of {', '.join(_OVERLAYS)}, not {overlay!r}")
    if node_data_path is not None and inspector is None and overlay != "memory":
        raise ValueError("node_data_path needs an inspector (the figures come from its "
                         "ETDump), except with overlay=\"memory\"")
    if inspector is not None and not isinstance(inspector, Inspector):
        raise TypeError("inspector must be an etkit Inspector")
    handle = inspector._handle if inspector is not None else None
    nodes, partitions, notes = _etkit.graph_model_explorer(
        etrecord._handle, str(graph_path),
        None if node_data_path is None else str(node_data_path),
        handle, overlay, reference_graph, method)
    for note in notes:
        warnings.warn(note, stacklevel=2)
    return {"nodes": nodes, "partitions": partitions}
