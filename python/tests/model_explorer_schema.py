"""A test-only validator of Model Explorer's published file formats.

Model Explorer (google-ai-edge/model-explorer, python package
model_explorer) publishes its formats as dataclasses: graph_builder.py
(GraphCollection, Graph, GraphNode, IncomingEdge, KeyValue, MetadataItem,
...) and node_data_builder.py (ModelNodeData, GraphNodeData,
NodeDataResult, ThresholdItem, GradientItem).  The tables below restate
their fields and types (written for etkit's tests, not copied): a field is
(type, required).  A loaded JSON value passes when every required field is
present, every field present is known (a dataclass refuses unknown keyword
arguments) and every value has its declared type.  Beyond the types, the
graph checks what the visualizer relies on: unique node ids per graph and
edges whose source is a node of the same graph.
"""

NUM = (int, float)

# type forms: a Python type or tuple, ("list", T), ("dict", T), ("opt", T),
# ("obj", TABLE), ("enum", values), ("either", T1, T2)
KEY_VALUE_NODE_IDS = {
    "type": (str, False),
    "nodeIds": (("list", str), False),
}
KEY_VALUE = {
    "key": (str, True),
    "value": (("either", str, ("obj", KEY_VALUE_NODE_IDS)), True),
}
METADATA_ITEM = {
    "id": (str, True),
    "attrs": (("list", ("obj", KEY_VALUE)), False),
}
INCOMING_EDGE = {
    "sourceNodeId": (str, True),
    "sourceNodeOutputId": (str, False),
    "targetNodeInputId": (str, False),
}
NODE_STYLE = {
    "backgroundColor": (str, False),
    "borderColor": (str, False),
    "hoveredBorderColor": (str, False),
}
NODE_CONFIG = {"pinToGroupTop": (bool, False)}
GRAPH_NODE = {
    "id": (str, True),
    "label": (str, True),
    "namespace": (str, False),
    "subgraphIds": (("list", str), False),
    "attrs": (("list", ("obj", KEY_VALUE)), False),
    "incomingEdges": (("list", ("obj", INCOMING_EDGE)), False),
    "outputsMetadata": (("list", ("obj", METADATA_ITEM)), False),
    "inputsMetadata": (("list", ("obj", METADATA_ITEM)), False),
    "style": (("opt", ("obj", NODE_STYLE)), False),
    "config": (("opt", ("obj", NODE_CONFIG)), False),
}
GROUP_NODE_CONFIG = {
    "namespaceRegex": (str, True),
    "layoutDirection": (("opt", int), False),
}
LAYOUT_CONFIGS = {
    "nodeSep": (("opt", int), False),
    "rankSep": (("opt", int), False),
    "edgeSep": (("opt", int), False),
}
GRAPH = {
    "id": (str, True),
    "nodes": (("list", ("obj", GRAPH_NODE)), False),
    "groupNodeAttributes": (("opt", ("dict", ("dict", str))), False),
    "groupNodeConfigs": (("opt", ("list", ("obj", GROUP_NODE_CONFIG))), False),
    "nodeLabelsToHide": (("opt", ("list", str)), False),
    "tasksData": (("opt", dict), False),
    "layoutConfigs": (("opt", ("obj", LAYOUT_CONFIGS)), False),
}
GRAPH_COLLECTION = {
    "label": (str, True),
    "graphs": (("list", ("obj", GRAPH)), False),
    "graphSorting": (("enum", ("node_count_asc", "node_count_desc",
                               "name_asc", "name_desc")), False),
}

NODE_DATA_RESULT = {
    "value": (NUM, True),
    "bgColor": (("opt", str), False),
    "textColor": (("opt", str), False),
}
THRESHOLD_ITEM = {
    "value": (NUM, True),
    "bgColor": (str, True),
    "textColor": (("opt", str), False),
}
GRADIENT_ITEM = {
    "stop": (NUM, True),
    "bgColor": (("opt", str), False),
    "textColor": (("opt", str), False),
}
GRAPH_NODE_DATA = {
    "results": (("dict", ("obj", NODE_DATA_RESULT)), True),
    "thresholds": (("list", ("obj", THRESHOLD_ITEM)), False),
    "gradient": (("list", ("obj", GRADIENT_ITEM)), False),
    "hideInAggregatedStatsTable": (bool, False),
    "hideInChildrenStatsTable": (bool, False),
    "hideAggregatedStats": (("opt", ("list", ("enum", ("min", "max", "sum", "avg")))), False),
    "showExpandedSummaryOnGroupNode": (bool, False),
    "showLabelCountColumnsInChildrenStatsTable": (bool, False),
    # etkit's one addition (not in Model Explorer's dataclasses): the
    # values' unit.  Model Explorer reads the fields above by name and
    # never looks at others, so a file with it loads unchanged.
    "unit": (str, False),
}


def _check(value, form, where, errors):
    if isinstance(form, tuple) and form and isinstance(form[0], str):
        kind = form[0]
        if kind == "list":
            if not isinstance(value, list):
                errors.append(f"{where}: expected a list, got {type(value).__name__}")
                return
            for i, item in enumerate(value):
                _check(item, form[1], f"{where}[{i}]", errors)
        elif kind == "dict":
            if not isinstance(value, dict):
                errors.append(f"{where}: expected an object, got {type(value).__name__}")
                return
            for key, item in value.items():
                _check(item, form[1], f"{where}[{key!r}]", errors)
        elif kind == "opt":
            if value is not None:
                _check(value, form[1], where, errors)
        elif kind == "obj":
            check_object(value, form[1], where, errors)
        elif kind == "enum":
            if value not in form[1]:
                errors.append(f"{where}: {value!r} is not one of {form[1]}")
        elif kind == "either":
            trial = []
            _check(value, form[1], where, trial)
            if trial:
                trial2 = []
                _check(value, form[2], where, trial2)
                if trial2:
                    errors.append(f"{where}: matches neither form ({trial[0]}; {trial2[0]})")
        return
    # plain types; bool is not a number here (json true is not 1)
    if isinstance(value, bool) and form is not bool and bool not in (
            form if isinstance(form, tuple) else (form,)):
        errors.append(f"{where}: expected {form}, got a boolean")
    elif not isinstance(value, form):
        errors.append(f"{where}: expected {form}, got {type(value).__name__}")


def check_object(value, table, where, errors):
    if not isinstance(value, dict):
        errors.append(f"{where}: expected an object, got {type(value).__name__}")
        return
    for key in value:
        if key not in table:
            errors.append(f"{where}: unknown field {key!r}")
    for key, (form, required) in table.items():
        if key not in value:
            if required:
                errors.append(f"{where}: missing required field {key!r}")
            continue
        _check(value[key], form, f"{where}.{key}", errors)


def validate_graph_collection(doc):
    """Errors (a list of strings) of a graph JSON file's content."""
    errors = []
    check_object(doc, GRAPH_COLLECTION, "collection", errors)
    if not isinstance(doc, dict) or not isinstance(doc.get("graphs", []), list):
        return errors
    graphs = [g for g in doc.get("graphs", [])
              if isinstance(g, dict) and isinstance(g.get("id"), str)]
    graph_ids = set()
    for gi, graph in enumerate(graphs):
        if graph["id"] in graph_ids:
            errors.append(f"graphs[{gi}]: duplicate graph id {graph['id']!r}")
        graph_ids.add(graph["id"])
    for gi, graph in enumerate(graphs):
        nodes = [n for n in graph.get("nodes", [])
                 if isinstance(n, dict) and isinstance(n.get("id"), str)]
        ids = [n["id"] for n in nodes]
        if len(ids) != len(set(ids)):
            errors.append(f"graphs[{gi}]: duplicate node ids")
        known = set(ids)
        for node in nodes:
            for edge in node.get("incomingEdges", []):
                if isinstance(edge, dict) and edge.get("sourceNodeId") not in known:
                    errors.append(f"graphs[{gi}] node {node['id']!r}: edge from "
                                  f"unknown node {edge.get('sourceNodeId')!r}")
            for sub in node.get("subgraphIds", []):
                if sub not in graph_ids:
                    errors.append(f"node {node['id']!r}: unknown subgraph {sub!r}")
    return errors


def validate_node_data(doc, graph_doc=None):
    """Errors of a node-data file ({graph_id: GraphNodeData}); with the
    graph file, result keys must be node ids of that graph."""
    errors = []
    if not isinstance(doc, dict):
        return ["node data: expected an object"]
    for graph_id, data in doc.items():
        check_object(data, GRAPH_NODE_DATA, f"node data[{graph_id!r}]", errors)
    if graph_doc is not None and not errors:
        graphs = {g["id"]: {n["id"] for n in g.get("nodes", [])}
                  for g in graph_doc.get("graphs", [])}
        for graph_id, data in doc.items():
            if graph_id not in graphs:
                errors.append(f"node data for unknown graph {graph_id!r}")
                continue
            for key in data["results"]:
                if key not in graphs[graph_id]:
                    errors.append(f"result for unknown node {key!r}")
        for graph_id, data in doc.items():
            stops = [g["stop"] for g in data.get("gradient", [])]
            if stops and (min(stops) != 0 or max(stops) != 1):
                errors.append("gradient must give stops 0 and 1")
    return errors
