"""VGF neural-accelerator statistics carried in delegate debug metadata.

Upstream's ``executorch.devtools.inspector.vgf_neural_statistics`` under the
same names: Arm's VGF backend writes, as a delegate event's
``delegate_debug_metadata``, a JSON object whose ``schema`` is
``"executorch.vgf.neural_statistics"`` (version 1) and whose segments carry
base64 blobs (``debug_database``, ``statistics_info``,
``statistics_memory``).  These functions recognise such records among the
metadata of every backend and return them as dicts, each available blob with
its decoded bytes in ``raw_data``; ``Inspector.get_vgf_neural_statistics()``
collects them from every event.
"""

import base64
import binascii
import json
from typing import Any, Dict, List, Sequence, Union

SCHEMA = "executorch.vgf.neural_statistics"
SCHEMA_VERSION = 1

DelegateMetadataBytes = Union[bytes, bytearray, str]

_BLOB_KEYS = ("debug_database", "statistics_info", "statistics_memory")

__all__ = [
    "parse_vgf_neural_statistics_delegate_metadata",
    "parse_vgf_neural_statistics_metadata",
]


def _as_bytes(metadata) -> bytes:
    if isinstance(metadata, (bytes, bytearray)):
        return bytes(metadata)
    if isinstance(metadata, str):
        return metadata.encode("utf-8")
    raise TypeError(f"Unsupported delegate metadata type: {type(metadata)}")


def _blob(entry: Dict[str, Any]) -> Dict[str, Any]:
    """A copy of a blob entry with `raw_data`: its decoded bytes (b"" when
    the entry says it is not available)."""
    out = dict(entry)
    if not out.get("available", False):
        out.setdefault("raw_data", b"")
        return out
    if out.get("encoding") != "base64":
        raise ValueError("Unsupported VGF neural statistics blob encoding: "
                         f"{out.get('encoding')}")
    try:
        out["raw_data"] = base64.b64decode(out.get("data", ""), validate=True)
    except (binascii.Error, TypeError) as e:
        raise ValueError("Malformed base64 data in VGF neural statistics blob") from e
    return out


def parse_vgf_neural_statistics_metadata(metadata: DelegateMetadataBytes) -> Dict[str, Any]:
    """One metadata record (bytes, bytearray or str holding the JSON) as a
    dict; ValueError when it is not VGF neural statistics of schema
    version 1 or a blob does not decode."""
    record = json.loads(_as_bytes(metadata).decode("utf-8"))
    if not isinstance(record, dict) or record.get("schema") != SCHEMA:
        schema = record.get("schema") if isinstance(record, dict) else None
        raise ValueError(f"Not VGF neural statistics metadata: {schema}")
    if record.get("schema_version") != SCHEMA_VERSION:
        raise ValueError("Unsupported VGF neural statistics metadata schema version: "
                         f"{record.get('schema_version')}")
    record = dict(record)
    segments = []
    for segment in record.get("segments", []):
        segment = dict(segment)
        for key in _BLOB_KEYS:
            if isinstance(segment.get(key), dict):
                segment[key] = _blob(segment[key])
        segments.append(segment)
    record["segments"] = segments
    return record


def parse_vgf_neural_statistics_delegate_metadata(
        delegate_metadata_list: Sequence[DelegateMetadataBytes]) -> List[Dict[str, Any]]:
    """The VGF neural statistics records among one event's delegate metadata
    (Event.raw_delegate_debug_metadatas).  Empty entries, values that are
    not bytes or text, text that is not JSON and JSON of another schema
    (other backends' metadata) are skipped; a record that names the VGF
    schema but is damaged raises ValueError."""
    records = []
    for metadata in delegate_metadata_list:
        if metadata is None or metadata in (b"", ""):
            continue
        try:
            data = _as_bytes(metadata)
        except TypeError:
            continue
        try:
            record = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            if SCHEMA.encode("utf-8") in data:
                raise ValueError("Malformed VGF neural statistics delegate metadata") from e
            continue
        if not isinstance(record, dict) or record.get("schema") != SCHEMA:
            continue
        records.append(parse_vgf_neural_statistics_metadata(data))
    return records
