/*
 * etkit/etrecord.h - host reader and writer of ETRecord files, and the
 * linking of runtime events to the operators, source lines and modules
 * they came from.
 *
 * An ETRecord is a ZIP archive written at export time.  It is recognised
 * only by a zero-length member named "ETRECORD_V0".  It holds the
 * serialised exported programs (torch.export JSON), three JSON maps written
 * by the emitter, and opaque torch.save/pickle blobs.  Every layout since
 * July 2023 is read (see docs/etrecord.md and the shared artifacts notes):
 *
 *   - 2023: bare "edge_dialect_exported_program", programs without
 *     "_constants"/"_example_inputs", JSON unions spelled with every tag
 *     present and all but one null, nodes without "name", schema_version a
 *     bare integer;
 *   - 2024-07 on: single-key unions, {major, minor} schema versions;
 *   - 2026-02 on: one "edge_dialect_exported_program/<method>" per method;
 *   - stored or deflated members, "Infinity"/"-Infinity"/"NaN" literals,
 *     integers up to the full int64 range (larger ones become reals).
 *
 * READING
 *
 *     etk_etrecord_t *rec;
 *     etk_error_t err;
 *     etk_error_clear(&err);   // the first error wins: start cleared
 *     if (etk_etrecord_open_file("etrecord.bin", NULL, &rec, &err) != ETK_OK) {
 *       char line[512];
 *       fprintf(stderr, "%s\n", etk_error_format(&err, line, sizeof line));
 *       return 1;
 *     }
 *     const etk_etrecord_program_t *edge;
 *     int rc = etk_etrecord_edge_program_load(rec, "forward", &edge, &err);
 *     if (rc == ETK_OK)
 *       for (size_t i = 0; i < edge->node_count; i++)
 *         printf("%s %s %lld\n", edge->nodes[i].name, edge->nodes[i].op,
 *                (long long)edge->nodes[i].debug_handle);
 *     etk_etrecord_close(rec);
 *
 *   Opening checks the archive (entry count, declared sizes against the
 *   limits, the ETRECORD_V0 marker) and parses the three maps and
 *   export_graph_id.  Programs are parsed on first use and cached, so a
 *   record with a large ATen program costs nothing until that program is
 *   asked for.  Every failure is one etk_error_t: `where` names the archive
 *   member (or the archive), `line`/`column` locate JSON problems (column
 *   counts code points, both 1-based), and the message says what was
 *   expected.  As everywhere in etkit, `err` may be NULL, and an error
 *   record that already holds an error is left alone (clear it first).
 *
 * LINKING
 *   etk_etrecord_linker_t resolves one runtime event (method, chain,
 *   instruction id, delegate debug id, name) to what upstream's Inspector
 *   attaches to it: debug_handles, num_outputs, delegate_backend_name, and
 *   the graph nodes behind op_types, stack_traces and module_hierarchy.
 *   The rules are upstream's (inspector notes section 7, Appendix D),
 *   quirks included unless a flag turns them off.
 *
 * WRITING
 *   etk_etrecord_write_memory()/etk_etrecord_write_file() produce an
 *   ETRecord in the current layout from a plain description of the
 *   methods etkit built itself (see etk_etrecord_desc_t in
 *   etkit/etrecord_writer.h, which this header includes).
 *
 * MEMORY AND OWNERSHIP
 *   A record owns a copy of the archive bytes, one arena for every string
 *   and array below, and the members it has read.  Every pointer handed
 *   out stays valid until etk_etrecord_close().  Strings are NUL-terminated
 *   UTF-8 (a JSON string holding "\u0000" appears cut at that character).
 *   A record is not thread-safe: loading a program or reading a member
 *   mutates its caches.
 *
 * Host only (heap, libzip, jansson; stdio only in the *_file helpers).
 */
#ifndef ETKIT_ETRECORD_H
#define ETKIT_ETRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/status.h"
#include "etkit/etrecord_serde.h"
#include "etkit/etrecord_writer.h"
#include "etkit/torch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ limits */

/* Bounds that protect the reader from hostile files.  A limit that is hit
 * gives ETK_E_LIMIT (ETK_E_TOO_DEEP for nesting) naming the member. */
typedef struct etk_etrecord_limits {
  uint64_t max_archive_bytes; /* the ZIP file itself (default 4 GiB) */
  uint32_t max_members;       /* ZIP entries (default 10000) */
  uint64_t max_member_bytes;  /* uncompressed size of one member that is
                                 read (default 1 GiB) */
  uint64_t max_total_bytes;   /* sum of declared uncompressed sizes of all
                                 members, and of bytes actually inflated
                                 (default 8 GiB): the zip-bomb guard */
  uint32_t max_json_depth;    /* nesting of [ and { in one JSON document
                                 (default 512, at most 2000) */
  uint64_t max_string_bytes;  /* one JSON string, escaped (default 256 MiB) */
  uint32_t max_graph_depth;   /* graphs nested in graphs: control flow and
                                 lowered modules (default 16) */
  uint64_t max_nodes;         /* nodes of one program, nested ones
                                 included (default 4 Mi) */
  uint32_t max_compression_ratio; /* a compressed member may declare at most
                                 max(1 MiB, ratio x its compressed size)
                                 uncompressed bytes (default 100; 0 = no
                                 bound).  Upstream stores members
                                 uncompressed; a higher ratio is a zip bomb,
                                 refused when the archive is opened. */
  uint32_t max_json_memory_ratio; /* memory jansson may take to parse one
                                 JSON document (a member, a node of a big
                                 program, a lowered module): at most this
                                 times the document's bytes, and at least
                                 1 MiB (default 32; 0 = no bound).  A file
                                 whose JSON would take more is refused
                                 with ETK_E_LIMIT. */
} etk_etrecord_limits_t;

/* Fills *limits with the defaults above.  `limits` must not be NULL. */
void etk_etrecord_limits_default(etk_etrecord_limits_t *limits);

/* ================================================================ opening */

typedef struct etk_etrecord etk_etrecord_t;

/* Opens an ETRecord held in data[0..len).  The bytes are copied, so the
 * caller may free them at once.  `limits` NULL means the defaults.  On
 * success *out owns the record (free with etk_etrecord_close()).  Errors:
 * ETK_E_INVALID_ARGUMENT (NULL out, or data NULL with len > 0),
 * ETK_E_BAD_IDENTIFIER (not a ZIP archive, or no ETRECORD_V0 member),
 * ETK_E_FORMAT (inconsistent archive or malformed map), ETK_E_TRUNCATED,
 * ETK_E_LIMIT / ETK_E_TOO_DEEP, ETK_E_BAD_UTF8, ETK_E_UNSUPPORTED
 * (encrypted member, unknown compression), ETK_E_NO_MEMORY.  *out is NULL
 * on failure.  `err` may be NULL. */
int etk_etrecord_open_memory(const void *data, size_t len,
                             const etk_etrecord_limits_t *limits,
                             etk_etrecord_t **out, etk_error_t *err);

/* Reads the file at `path` and opens it as above; errors about the archive
 * itself name the path.  ETK_E_IO when the file cannot be read. */
int etk_etrecord_open_file(const char *path,
                           const etk_etrecord_limits_t *limits,
                           etk_etrecord_t **out, etk_error_t *err);

/* Frees the record and everything it handed out.  NULL is a no-op. */
void etk_etrecord_close(etk_etrecord_t *rec);

/* ============================================================ the layout */

/* Which generation of the writer produced the file, guessed from member
 * names (there is no version field). */
typedef enum etk_etrecord_layout {
  ETK_ETRECORD_LAYOUT_UNKNOWN = 0, /* marker present, no edge program */
  ETK_ETRECORD_LAYOUT_2023_07,     /* program_buffer/et_dialect_graph_module */
  ETK_ETRECORD_LAYOUT_2023_09,     /* bare edge program, 2-member groups */
  ETK_ETRECORD_LAYOUT_2024_07,     /* 4-member groups, bare edge program */
  ETK_ETRECORD_LAYOUT_2026_02      /* edge_dialect_exported_program/<m> */
} etk_etrecord_layout_t;

/* Short text for a layout, e.g. "2023-09..2024-07 (bare edge program,
 * 2-member groups)"; never NULL, static. */
const char *etk_etrecord_layout_name(etk_etrecord_layout_t layout);

/* Members present, as bits of etk_etrecord_info_t.features. */
#define ETK_ETRECORD_HAS_DEBUG_HANDLE_MAP 0x01u
#define ETK_ETRECORD_HAS_DELEGATE_MAP 0x02u
#define ETK_ETRECORD_HAS_NUM_OUTS_MAP 0x04u
#define ETK_ETRECORD_HAS_EXPORTED_PROGRAM 0x08u
#define ETK_ETRECORD_HAS_EXPORT_GRAPH_ID 0x10u
#define ETK_ETRECORD_HAS_REFERENCE_OUTPUTS 0x20u
#define ETK_ETRECORD_HAS_REPRESENTATIVE_INPUTS 0x40u
#define ETK_ETRECORD_HAS_PROGRAM_BUFFER 0x80u

typedef struct etk_etrecord_info {
  etk_etrecord_layout_t layout;
  uint32_t features;       /* ETK_ETRECORD_HAS_* */
  int64_t export_graph_id; /* 0 unless HAS_EXPORT_GRAPH_ID */
  size_t member_count;
  size_t program_count;
  size_t method_count; /* methods named by the three maps */
} etk_etrecord_info_t;

/* Describes the record.  Both pointers must not be NULL. */
void etk_etrecord_info_get(const etk_etrecord_t *rec,
                           etk_etrecord_info_t *info);

/* ================================================================ members */

typedef enum etk_etrecord_member_kind {
  ETK_ETRECORD_MEMBER_OTHER = 0,      /* unknown name (ignored) */
  ETK_ETRECORD_MEMBER_MARKER,         /* ETRECORD_V0 */
  ETK_ETRECORD_MEMBER_PROGRAM,        /* serialised ExportedProgram JSON */
  ETK_ETRECORD_MEMBER_STATE_DICT,     /* <program>_state_dict (torch.save) */
  ETK_ETRECORD_MEMBER_CONSTANTS,      /* <program>_constants (torch.save) */
  ETK_ETRECORD_MEMBER_EXAMPLE_INPUTS, /* <program>_example_inputs */
  ETK_ETRECORD_MEMBER_DEBUG_HANDLE_MAP,
  ETK_ETRECORD_MEMBER_DELEGATE_MAP,
  ETK_ETRECORD_MEMBER_NUM_OUTS_MAP, /* instruction_id_to_num_outs_map */
  ETK_ETRECORD_MEMBER_REFERENCE_OUTPUTS,
  ETK_ETRECORD_MEMBER_REPRESENTATIVE_INPUTS,
  ETK_ETRECORD_MEMBER_EXPORT_GRAPH_ID,
  ETK_ETRECORD_MEMBER_PROGRAM_BUFFER /* 2023 raw .pte bytes */
} etk_etrecord_member_kind_t;

typedef struct etk_etrecord_member {
  const char *name;
  uint64_t size; /* declared uncompressed size */
  uint64_t compressed_size;
  int32_t compression; /* ZIP method: 0 stored, 8 deflate, ... */
  etk_etrecord_member_kind_t kind;
} etk_etrecord_member_t;

/* What an opaque blob member holds, judged from its first bytes. */
typedef enum etk_etrecord_blob_kind {
  ETK_ETRECORD_BLOB_EMPTY = 0, /* zero bytes */
  ETK_ETRECORD_BLOB_TORCH_ZIP, /* "PK": a torch.save archive */
  ETK_ETRECORD_BLOB_PICKLE,    /* 0x80 PROTO: a raw pickle (before 2026-03) */
  ETK_ETRECORD_BLOB_JSON,      /* '{', '[' or a digit */
  ETK_ETRECORD_BLOB_UNKNOWN
} etk_etrecord_blob_kind_t;

/* Members in archive order.  `index` < info.member_count, else NULL. */
const etk_etrecord_member_t *etk_etrecord_member_at(const etk_etrecord_t *rec,
                                                    size_t index);

/* The member named exactly `name` (the last one when the archive repeats a
 * name, like Python's zipfile), or NULL. */
const etk_etrecord_member_t *etk_etrecord_member_find(const etk_etrecord_t *rec,
                                                      const char *name);

/* Reads (inflating if needed) the member named `name` and sets *data and *len
 * to its bytes, owned by the record and cached until close.  Used for the
 * reference outputs, representative inputs, state dicts and any other raw
 * member.  ETK_E_NOT_FOUND if there is no such member; ETK_E_LIMIT over
 * the member/total limits; ETK_E_FORMAT when the data is longer than
 * declared or fails its CRC, ETK_E_TRUNCATED when it is shorter. */
int etk_etrecord_member_read(etk_etrecord_t *rec, const char *name,
                             const uint8_t **data, size_t *len,
                             etk_error_t *err);

/* Classifies a blob (see etk_etrecord_blob_kind_t).  data may be NULL when
 * len is 0. */
etk_etrecord_blob_kind_t etk_etrecord_blob_kind(const uint8_t *data,
                                                size_t len);

/* =============================================================== programs */

typedef enum etk_etrecord_program_kind {
  ETK_ETRECORD_PROGRAM_EDGE = 0,  /* edge_dialect_exported_program[/m] */
  ETK_ETRECORD_PROGRAM_EXPORTED,  /* exported_program (ATen) */
  ETK_ETRECORD_PROGRAM_EXTRA,     /* graph map entry "<module>/<method>" */
  ETK_ETRECORD_PROGRAM_ET_DIALECT /* 2023 et_dialect_graph_module/<m> */
} etk_etrecord_program_kind_t;

/* How unions are spelled in a program's JSON. */
typedef enum etk_etrecord_dialect {
  ETK_ETRECORD_DIALECT_UNKNOWN = 0, /* no union seen */
  ETK_ETRECORD_DIALECT_ALL_TAGS,    /* before 2024-07: every tag, nulls */
  ETK_ETRECORD_DIALECT_SINGLE_KEY   /* since 2024-07: {"tag": value} */
} etk_etrecord_dialect_t;

typedef struct etk_etrecord_program_ref {
  const char *member; /* archive member holding the JSON */
  const char *module; /* before the last '/', or the whole member name */
  const char *method; /* after the last '/'; "forward" for a bare edge
                         program; "" for exported_program */
  etk_etrecord_program_kind_t kind;
} etk_etrecord_program_ref_t;

/* Programs of the record, in archive order.  NULL when out of range. */
const etk_etrecord_program_ref_t *etk_etrecord_program_at(
    const etk_etrecord_t *rec, size_t index);

/* One "key,path,type" entry of a node's nn_module_stack.  `path` is as
 * written (e.g. "L['self'].layer1" or "layer1.0"); `normalized` is the
 * dotted attribute path from the root module ("layer1.0", "" for the
 * root); `type` is the qualified class name. */
typedef struct etk_etrecord_module_entry {
  const char *key;
  const char *path;
  const char *normalized;
  const char *type;
} etk_etrecord_module_entry_t;

/* One "name,fn" entry of a node's source_fn_stack. */
typedef struct etk_etrecord_source_fn {
  const char *name;
  const char *fn;
} etk_etrecord_source_fn_t;

/* One metadata entry, as stored (all values are strings). */
typedef struct etk_etrecord_metadata {
  const char *key;
  const char *value;
} etk_etrecord_metadata_t;

#define ETK_ETRECORD_NO_PARENT SIZE_MAX

/* One call_function node.  Nodes of nested graphs (control-flow branches,
 * and the original module of an executorch_call_delegate's lowered
 * module) follow the node that owns them, with depth > 0. */
typedef struct etk_etrecord_node {
  const char *name;   /* "name", or the first output's name (2023) */
  const char *target; /* full target, e.g.
                         "executorch.exir.dialects.edge.ops.aten.mul.Tensor" */
  const char *op;     /* the Inspector's op type: target without its dialect
                         prefix ("aten.mul.Tensor", "executorch_call_delegate",
                         "getitem" for "_operator.getitem") */
  bool has_debug_handle;
  int64_t debug_handle;        /* metadata "debug_handle" (0 when absent) */
  const char *stack_trace;     /* NULL when absent */
  const char *nn_module_stack; /* raw string, NULL when absent */
  const etk_etrecord_module_entry_t *modules; /* decoded, outermost first */
  size_t module_count;         /* 0 when absent or not decodable */
  const char *source_fn_stack; /* raw, NULL when absent */
  const etk_etrecord_source_fn_t *source_fns;
  size_t source_fn_count;
  const char *torch_fn;                    /* raw, NULL when absent */
  const char *from_node;                   /* raw JSON text, NULL when absent */
  const etk_etrecord_metadata_t *metadata; /* every metadata entry */
  size_t metadata_count;
  const char *args;           /* one-line summary "self=arg0_1, other=arg1_1" */
  const char *const *outputs; /* output value names */
  size_t output_count;
  const char *delegate_backend; /* backend_id of a lowered module, or NULL */
  uint32_t depth;               /* 0 for the program's own graph */
  size_t parent; /* owning node's index, or ETK_ETRECORD_NO_PARENT */
  /* Structured (etkit/etrecord_serde.h): */
  size_t graph; /* index of its graph in etk_etrecord_program_t.graphs */
  const etk_etrecord_arg_t *input_args; /* the NamedArguments, in order */
  size_t input_arg_count;
  const etk_etrecord_arg_t *output_args; /* the output Arguments */
  size_t output_arg_count;
  /* metadata "debug_handle" as integers: one for "7", several for a list
   * ("[7, 8]", "(7, 8)"); debug_handle above is the first */
  const int64_t *debug_handles;
  size_t debug_handle_count;
} etk_etrecord_node_t;

typedef struct etk_etrecord_program {
  etk_etrecord_program_ref_t ref;
  etk_etrecord_dialect_t dialect;
  int64_t schema_major;      /* schema_version (a bare int in 2023) */
  int64_t schema_minor;      /* -1 when schema_version was a bare int */
  const char *verifiers;     /* comma-joined dialect names ("EDGE"), or "" */
  const char *const *inputs; /* graph input names */
  size_t input_count;
  const char *const *outputs; /* graph output names */
  size_t output_count;
  const etk_etrecord_node_t *nodes; /* depth-first, see etk_etrecord_node_t */
  size_t node_count;
  /* Its graphs (etkit/etrecord_serde.h): [0] the top graph, then nested
   * ones in walk order. */
  const etk_etrecord_graph_t *graphs;
  size_t graph_count;
} etk_etrecord_program_t;

/* Parses (once; later calls return the cached result) the program at
 * `index` and sets *out.  Errors name the member and the JSON position:
 * ETK_E_FORMAT, ETK_E_TRUNCATED, ETK_E_BAD_UTF8, ETK_E_TOO_DEEP,
 * ETK_E_LIMIT, ETK_E_MISSING_FIELD (no graph_module.graph),
 * ETK_E_NOT_FOUND (index out of range), ETK_E_NO_MEMORY.  A failed parse
 * is retried on the next call. */
int etk_etrecord_program_load(etk_etrecord_t *rec, size_t index,
                              const etk_etrecord_program_t **out,
                              etk_error_t *err);

/* Writes the program's schema_version: "MAJOR.MINOR", or "MAJOR" when the
 * ETRecord stored a bare int (schema_minor < 0).  snprintf-style return
 * value; `prog` must not be NULL. */
size_t etk_etrecord_program_schema_version(const etk_etrecord_program_t *prog,
                                           char *out, size_t out_size);

/* Loads the edge-dialect program of `method`: the member
 * "edge_dialect_exported_program/<method>", else the bare
 * "edge_dialect_exported_program" when `method` is "forward".  `method`
 * NULL means "forward", or the only edge program when there is exactly one.
 * ETK_E_NOT_FOUND when there is none. */
int etk_etrecord_edge_program_load(etk_etrecord_t *rec, const char *method,
                                   const etk_etrecord_program_t **out,
                                   etk_error_t *err);

/* Loads a program by the names upstream's get_exported_program(graph=...)
 * and reference_graph accept: an exact member name
 * ("aten_dialect_output/forward", "exported_program"), a graph-map module
 * name to which "/forward" is appended ("aten_dialect_output"), or
 * "edge_dialect_exported_program" / "edge_dialect_graph_module" for the
 * forward edge program.  ETK_E_NOT_FOUND otherwise. */
int etk_etrecord_graph_load(etk_etrecord_t *rec, const char *name,
                            const etk_etrecord_program_t **out,
                            etk_error_t *err);

/* Nodes of `prog` whose debug handle is `handle`, in node order, through
 * *nodes (an array owned by the record).  Returns the count (0 and *nodes
 * NULL when none).  getitem and memory.alloc nodes are left out, like
 * upstream's operator graph.  Nested nodes are included; check
 * node->depth to keep only the top graph.  `nodes` may be NULL to count. */
size_t etk_etrecord_program_nodes_for_handle(
    const etk_etrecord_program_t *prog, int64_t handle,
    const etk_etrecord_node_t *const **nodes);

/* =================================================================== maps */

/* debug_handle_map[method][instruction_id]. */
typedef struct etk_etrecord_handle_entry {
  int64_t instruction_id;
  bool is_list; /* the JSON value was a list (delegate calls) */
  bool is_null; /* the JSON value was null (upstream: handles None) */
  const int64_t *handles;
  size_t handle_count;
} etk_etrecord_handle_entry_t;

/* delegate_map[method][instruction_id].delegate_map[id], in JSON order. */
typedef struct etk_etrecord_delegate_id {
  const char *id; /* the key as written: "0", "fc", ... */
  const int64_t *handles;
  size_t handle_count;
} etk_etrecord_delegate_id_t;

/* delegate_map[method][instruction_id]. */
typedef struct etk_etrecord_delegate_entry {
  int64_t instruction_id;
  const char *backend_name; /* "name"; "" when the key is absent (upstream's
                               entry.get("name", "")), NULL when it is null */
  bool has_id_map;          /* "delegate_map" was an object (not null) */
  const etk_etrecord_delegate_id_t *ids;
  size_t id_count;
} etk_etrecord_delegate_entry_t;

/* instruction_id_to_num_outs_map[method][instruction_id]. */
typedef struct etk_etrecord_num_outs_entry {
  int64_t instruction_id;
  int64_t num_outputs;
} etk_etrecord_num_outs_entry_t;

/* The three maps of one method.  Entries are sorted by instruction id. */
typedef struct etk_etrecord_method_maps {
  const char *method;
  bool in_debug_handle_map, in_delegate_map, in_num_outs_map;
  const etk_etrecord_handle_entry_t *handles;
  size_t handle_count;
  const etk_etrecord_delegate_entry_t *delegates;
  size_t delegate_count;
  const etk_etrecord_num_outs_entry_t *num_outs;
  size_t num_outs_count;
} etk_etrecord_method_maps_t;

/* The maps of the index-th method (methods in first-seen order), or NULL.
 * A map written flat (not nested by method) is filed under "forward". */
const etk_etrecord_method_maps_t *etk_etrecord_maps_at(
    const etk_etrecord_t *rec, size_t index);

/* The maps of `method` (NULL = "forward"), or NULL. */
const etk_etrecord_method_maps_t *etk_etrecord_maps_find(
    const etk_etrecord_t *rec, const char *method);

/* The debug_handle_map entry of an instruction, or NULL.  `maps` may be NULL
 * (then NULL). */
const etk_etrecord_handle_entry_t *etk_etrecord_maps_handles(
    const etk_etrecord_method_maps_t *maps, int64_t instruction_id);

/* The delegate_map entry of an instruction, or NULL.  `maps` may be NULL. */
const etk_etrecord_delegate_entry_t *etk_etrecord_maps_delegate(
    const etk_etrecord_method_maps_t *maps, int64_t instruction_id);

/* num_outputs of an instruction: its instruction_id_to_num_outs_map value,
 * else `fallback` (upstream uses 1).  `maps` may be NULL. */
int64_t etk_etrecord_maps_num_outputs(const etk_etrecord_method_maps_t *maps,
                                      int64_t instruction_id, int64_t fallback);

/* Delegate-id resolution flags. */
#define ETK_ETRECORD_DELEGATE_ID_EXACT 0x1u /* no substring fallback */

/* Resolves a delegate debug id inside one delegate entry, the way upstream
 * does: a string id is looked up exactly first; otherwise (and always for
 * an integer id) the exact key str(id) is taken and then every key that is
 * a substring of str(id), in JSON order, overwrites it (the last match
 * wins).  ETK_ETRECORD_DELEGATE_ID_EXACT keeps only exact matches.  Give
 * either id_int >= 0 or a non-empty id_str (id_int wins, as in ETDump).
 * Sets *handles and *count (owned by the record).  ETK_E_NOT_FOUND when nothing
 * matches (upstream: None); ETK_E_INVALID_ARGUMENT for NULL entry/out
 * pointers or no id. */
int etk_etrecord_delegate_resolve(const etk_etrecord_delegate_entry_t *entry,
                                  int64_t id_int, const char *id_str,
                                  unsigned flags, const int64_t **handles,
                                  size_t *count);

/* ======================================================== text helpers */

/* A borrowed slice of a string (not NUL-terminated). */
typedef struct etk_etrecord_span {
  const char *ptr;
  size_t len;
} etk_etrecord_span_t;

/* One frame of a Python stack trace: `File "<file>", line <line>, in
 * <function>` followed by an indented source line (`code`, trimmed; empty
 * when absent). */
typedef struct etk_etrecord_frame {
  etk_etrecord_span_t file;
  int64_t line;
  etk_etrecord_span_t function;
  etk_etrecord_span_t code;
} etk_etrecord_frame_t;

/* Splits a stack trace text[0..len) into frames, outermost first, the way
 * the emitter's regex `File "(.*)", line (\d+), in (.*)` does (the file is
 * everything up to the last `", line ` of the line).  Writes at most `cap`
 * frames (frames may be NULL when cap is 0) and sets *count to the total.
 * Lines that are not frames and do not follow one are skipped.  Never
 * fails on text: returns ETK_OK, or ETK_E_INVALID_ARGUMENT for NULL
 * text with len > 0 or NULL count.  Spans point into `text`. */
int etk_etrecord_stack_trace_split(const char *text, size_t len,
                                   etk_etrecord_frame_t *frames, size_t cap,
                                   size_t *count);

/* The innermost user frame of a stack trace: the last frame whose file is
 * not under site-packages/dist-packages and not "<...>", else the last
 * frame.  ETK_E_NOT_FOUND when the text has no frame. */
int etk_etrecord_stack_trace_user_frame(const char *text, size_t len,
                                        etk_etrecord_frame_t *frame);

/* One nn_module_stack entry as spans of the raw text. */
typedef struct etk_etrecord_module_span {
  etk_etrecord_span_t key, path, type;
} etk_etrecord_module_span_t;

/* Splits an nn_module_stack string like torch does: on ';' first, then each
 * entry on the commas outside () and [], which must give exactly three
 * parts (key, path, type).  Writes at most `cap` entries and sets *count
 * to the total.  ETK_E_FORMAT (with *count = index of the bad entry) when
 * an entry has another number of parts.  An empty text has 0 entries. */
int etk_etrecord_module_stack_split(const char *text, size_t len,
                                    etk_etrecord_module_span_t *entries,
                                    size_t cap, size_t *count);

/* Normalises a module access path to the dotted attribute path from the
 * root: "L['self'].layer1" -> "layer1", "getattr(L['self'].layers, '0').fc"
 * -> "layers.0.fc", "L__self___fc" -> "fc", "layers[0]" -> "layers.0",
 * "L['self']" -> "".  Anything else is copied unchanged.  Writes a
 * NUL-terminated result into out[0..out_size) (truncated to fit; out may be
 * NULL when out_size is 0) and returns the full length, like snprintf. */
size_t etk_etrecord_module_path_normalize(const char *path, size_t len,
                                          char *out, size_t out_size);

/* Module matching modes. */
typedef enum etk_etrecord_module_match {
  /* upstream find_total_for_module: `name` is a substring of an entry key */
  ETK_ETRECORD_MODULE_SUBSTRING = 0,
  /* `name` equals an entry's normalised path, raw path or key */
  ETK_ETRECORD_MODULE_EXACT_PATH = 1
} etk_etrecord_module_match_t;

/* True when one of node's nn_module_stack entries matches `name`.  False
 * for NULL arguments and for nodes without a decoded module stack. */
bool etk_etrecord_node_in_module(const etk_etrecord_node_t *node,
                                 const char *name,
                                 etk_etrecord_module_match_t mode);

/* Writes the node's module path: the innermost entry's normalised path
 * ("layer1.conv"), followed by " (Conv2d)" (the last component of its type)
 * when `with_type`.  "" when the node has no module stack.  snprintf-style
 * return value; `node` must not be NULL. */
size_t etk_etrecord_node_module_path(const etk_etrecord_node_t *node,
                                     bool with_type, char *out,
                                     size_t out_size);

/* Writes "file:line" of the node's innermost user frame, with only the
 * file's base name unless `full_path`.  "" when there is no stack trace.
 * snprintf-style return value; `node` must not be NULL. */
size_t etk_etrecord_node_source(const etk_etrecord_node_t *node, bool full_path,
                                char *out, size_t out_size);

/* The Inspector's op type of a target string (see etk_etrecord_node_t.op)
 * written into out (snprintf-style).  `target` must not be NULL. */
size_t etk_etrecord_op_from_target(const char *target, char *out,
                                   size_t out_size);

/* ================================================================ linking */

/* One runtime event, as the Inspector sees it. */
typedef struct etk_etrecord_event_ref {
  const char *method;      /* NULL = "forward" */
  const char *name;        /* event name ("DELEGATE_CALL", "Method::init"..) */
  int32_t chain_index;     /* < 0: not an instruction event */
  int64_t instruction_id;  /* < 0 or ignored when has_instruction_id false */
  bool has_instruction_id; /* false = upstream's _instruction_id None */
  int64_t delegate_debug_id_int;     /* -1 when none */
  const char *delegate_debug_id_str; /* NULL or "" when none */
} etk_etrecord_event_ref_t;

/* What linking attaches to one event.  Arrays belong to the linker and are
 * valid until the next resolve call or etk_etrecord_linker_destroy(). */
typedef struct etk_etrecord_event_link {
  bool has_debug_handles;     /* false = upstream None */
  bool debug_handles_is_list; /* the map held a list (else one integer) */
  const int64_t *debug_handles;
  size_t debug_handle_count;
  int64_t num_outputs; /* 1 unless the num-outs map says otherwise */
  const char *delegate_backend_name; /* NULL = None; "" when unnamed */
  bool no_delegate_mapping; /* delegated event without a delegate_map entry:
                               upstream logs "No delegate mapping found" */
  /* One node per (handle, node) pair, handles in order: the op_types list
   * is nodes[i]->op, duplicates included. */
  const etk_etrecord_node_t *const *nodes;
  size_t node_count;
  /* The same nodes, first occurrence of each name only: the keys of
   * stack_traces and module_hierarchy (upstream appends "_" to FX names
   * there: "aten_mul_tensor_"). */
  const etk_etrecord_node_t *const *unique_nodes;
  size_t unique_node_count;
} etk_etrecord_event_link_t;

/* Linker flags (0 = upstream's behaviour, quirks included). */
/* events with chain_index < 0 (framework events) get no handles; upstream
 * gives them instruction 0's */
#define ETK_ETRECORD_LINK_INSTRUCTIONS_ONLY 0x1u
/* delegate ids match exactly, no substring fallback */
#define ETK_ETRECORD_LINK_EXACT_DELEGATE_IDS 0x2u
/* only nodes of the program's own graph (depth 0), as upstream */
#define ETK_ETRECORD_LINK_TOP_GRAPH_ONLY 0x4u
/* use the "forward" maps and graph for every method, as upstream */
#define ETK_ETRECORD_LINK_FORWARD_ONLY 0x8u

typedef struct etk_etrecord_linker etk_etrecord_linker_t;

/* Creates a linker over `rec` (which must outlive it).  flags:
 * ETK_ETRECORD_LINK_*.  ETK_E_INVALID_ARGUMENT for NULL rec/out,
 * ETK_E_NO_MEMORY. */
int etk_etrecord_linker_create(etk_etrecord_t *rec, unsigned flags,
                               etk_etrecord_linker_t **out, etk_error_t *err);

/* Makes every later resolve take its nodes from the graph `name` (any name
 * etk_etrecord_graph_load() accepts: "edge_dialect_graph_module", a
 * graph-map member "<module>/<method>", "exported_program", ...) instead
 * of the event's method's edge program: upstream's
 * Inspector(reference_graph_name=...).  The debug handles still come from
 * the method's maps.  NULL goes back to the edge programs.  Errors:
 * ETK_E_INVALID_ARGUMENT (NULL linker), ETK_E_NOT_FOUND (no such graph),
 * the program's load errors; the linker is unchanged on error. */
int etk_etrecord_linker_set_graph(etk_etrecord_linker_t *linker,
                                  const char *name, etk_error_t *err);

/* Resolves one event into *out (see etk_etrecord_event_link_t):
 *   1. no instruction id (or chain < 0 with INSTRUCTIONS_ONLY), or an id
 *      absent from debug_handle_map[method]: nothing (handles None);
 *   2. num_outputs = num-outs map value, else 1;
 *   3. not delegated: the map's handles; DELEGATE_CALL events also get the
 *      delegate entry's backend name;
 *   4. delegated without a delegate entry: the map's handles,
 *      no_delegate_mapping set;
 *   5. delegated with an entry: backend name, handles from
 *      etk_etrecord_delegate_resolve() (None when nothing matches);
 *   6. then, except for "Method::init", "Program::load_method" and
 *      "Method::execute", the edge program's nodes of every handle (or
 *      the reference graph's, etk_etrecord_linker_set_graph()).
 * The edge program of the method is loaded on first use; its load errors
 * are returned (ETK_E_NOT_FOUND is not an error: the event just gets no
 * nodes).  `ev` and `out` must not be NULL. */
int etk_etrecord_linker_resolve(etk_etrecord_linker_t *linker,
                                const etk_etrecord_event_ref_t *ev,
                                etk_etrecord_event_link_t *out,
                                etk_error_t *err);

/* True when a node of link->unique_nodes is in module `name` (see
 * etk_etrecord_node_in_module): the test find_total_for_module applies to
 * each event.  False for NULL arguments. */
bool etk_etrecord_link_in_module(const etk_etrecord_event_link_t *link,
                                 const char *name,
                                 etk_etrecord_module_match_t mode);

/* Frees the linker (NULL is a no-op). */
void etk_etrecord_linker_destroy(etk_etrecord_linker_t *linker);

/* ----------------------------------------------- reading the ETRecord's */

/* Decodes the ETRecord member "reference_outputs" ({method: [outputs of
 * case 0, case 1, ...]}) or "representative_inputs" (a list of inputs).
 * The archive owns what it decoded (`rec` may be closed before it); close
 * it with etk_torch_archive_close().  Errors: ETK_E_NOT_FOUND (no
 * such member, or it is empty), ETK_E_UNSUPPORTED ("legacy pickle, not
 * decoded": records written before 2026-03 pickled these with
 * pickle.dumps), and those of etk_torch_archive_open() naming the member. */
int etk_etrecord_reference_outputs_open(etk_etrecord_t *rec,
                                        const etk_pickle_limits_t *limits,
                                        etk_torch_archive_t **out,
                                        etk_error_t *err);
int etk_etrecord_representative_inputs_open(etk_etrecord_t *rec,
                                            const etk_pickle_limits_t *limits,
                                            etk_torch_archive_t **out,
                                            etk_error_t *err);

/* Selects reference_outputs[method][index] (the expected outputs of one
 * test case) from a decoded reference_outputs root.  index -1 means "no
 * bundled input index" and selects the LAST case, as upstream's Inspector
 * does (a block without an index gets reference_outputs[m][-1]); other
 * negative indices are refused.  *case_value is a LIST or TUPLE of
 * outputs (or a single TENSOR when the case was pickled bare).  `method`
 * NULL means "forward".  Errors: ETK_E_FORMAT (the root is not a dict, or
 * the method's entry not a list/tuple), ETK_E_NOT_FOUND (no such method,
 * index out of range; the message gives the number of cases). */
int etk_etrecord_reference_select(const etk_pickle_value_t *reference_outputs,
                                  const char *method, int64_t index,
                                  const etk_pickle_value_t **case_value,
                                  etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_ETRECORD_H */
