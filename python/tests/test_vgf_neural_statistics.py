"""Upstream's VGF neural statistics helpers (executorch.devtools.inspector's
parse_vgf_neural_statistics_metadata / _delegate_metadata and
Inspector.get_vgf_neural_statistics) on delegate metadata: a VGF record is
found among other backends' metadata and its base64 blobs decoded."""
import base64
import json
import os
import warnings

import pytest

import etkit
from etkit import (parse_vgf_neural_statistics_delegate_metadata,
                   parse_vgf_neural_statistics_metadata)


def record(**changes):
    rec = {"schema": "executorch.vgf.neural_statistics", "schema_version": 1,
           "segments": [{"name": "s0",
                         "debug_database": {"available": True, "encoding": "base64",
                                            "data": base64.b64encode(b"\x00db").decode()},
                         "statistics_info": {"available": False},
                         "statistics_memory": "not a blob"}]}
    rec.update(changes)
    return json.dumps(rec)


def test_one_record_decodes_its_blobs():
    for form in (record(), record().encode(), bytearray(record().encode())):
        out = parse_vgf_neural_statistics_metadata(form)
        (seg,) = out["segments"]
        assert seg["debug_database"]["raw_data"] == b"\x00db"
        assert seg["debug_database"]["data"] == base64.b64encode(b"\x00db").decode()
        assert seg["statistics_info"] == {"available": False, "raw_data": b""}
        assert seg["statistics_memory"] == "not a blob"  # only dicts are blobs
        assert out["schema_version"] == 1
    with pytest.raises(ValueError, match="Not VGF"):
        parse_vgf_neural_statistics_metadata(record(schema="other"))
    with pytest.raises(ValueError, match="schema version"):
        parse_vgf_neural_statistics_metadata(record(schema_version=2))
    bad = json.loads(record())
    bad["segments"][0]["debug_database"]["data"] = "not base64!"
    with pytest.raises(ValueError, match="Malformed base64"):
        parse_vgf_neural_statistics_metadata(json.dumps(bad))
    bad["segments"][0]["debug_database"]["encoding"] = "hex"
    with pytest.raises(ValueError, match="encoding"):
        parse_vgf_neural_statistics_metadata(json.dumps(bad))
    with pytest.raises(TypeError):
        parse_vgf_neural_statistics_metadata(5)


def test_a_list_skips_other_backends_and_refuses_damaged_vgf():
    got = parse_vgf_neural_statistics_delegate_metadata(
        [None, b"", "", 17, b"\xff\x00", '{"schema": "xnnpack"}', "[1, 2]", record()])
    assert len(got) == 1 and got[0]["segments"][0]["debug_database"]["raw_data"] == b"\x00db"
    with pytest.raises(ValueError, match="Malformed VGF"):
        parse_vgf_neural_statistics_delegate_metadata(
            [b'{"schema": "executorch.vgf.neural_statistics", '])
    with pytest.raises(ValueError, match="schema version"):
        parse_vgf_neural_statistics_delegate_metadata([record(schema_version=0)])


def test_inspector_collects_the_records_of_every_event(python_fixtures):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ins = etkit.Inspector(etdump_path=os.path.join(python_fixtures, "vgf.etdp"))
    metas = [e.raw_delegate_debug_metadatas for b in ins.event_blocks for e in b.events]
    assert len(metas) == 3 and all(m for m in metas)  # three delegated events
    (rec,) = ins.get_vgf_neural_statistics()
    assert rec["schema"] == "executorch.vgf.neural_statistics"
    (seg,) = rec["segments"]
    assert seg["name"] == "segment_0"
    assert seg["debug_database"]["raw_data"] == b"hello"
    assert seg["statistics_info"]["raw_data"] == b""
    # an Inspector without such metadata finds none
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = etkit.Inspector(etdump_path=os.path.join(python_fixtures, "wide.etdp"))
    assert plain.get_vgf_neural_statistics() == []
