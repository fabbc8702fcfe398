/*
 * internal.h - private structures shared by the ETRecord reader files.
 *
 * A record (struct etk_etrecord) owns:
 *   - the libzip archive, opened over a private copy of the file bytes
 *     (libzip frees that copy when the archive is discarded);
 *   - `members`: one slot per ZIP entry, in archive order, with the bytes
 *     of the member once read (malloc'd, cached until close);
 *   - `programs`: one slot per program member; a slot's `loaded` program
 *     has its own arena, so a failed or abandoned parse frees everything
 *     it allocated;
 *   - `maps`: the three emitter maps merged per method, in the record's
 *     arena.
 * Every public pointer handed out points into one of these and lives until
 * etk_etrecord_close().
 */
#ifndef ETKIT_ETRECORD_INTERNAL_H
#define ETKIT_ETRECORD_INTERNAL_H

#include <jansson.h>
#include <stdarg.h>
#include <zip.h>

#include "common/buffers.h"
#include "common/vec.h"
#include "etkit/etrecord.h"
#include "etkit/utf8.h"

/* ------------------------------------------------------------------- JSON */

/* Parses text[0..len) with the record limits.  Before jansson sees it the
 * text is checked for UTF-8, nesting depth and string sizes, and the
 * tokens jansson does not accept are rewritten: Infinity, -Infinity and NaN
 * become sentinel strings (see etr_json_special), integers beyond int64
 * become reals.  Error positions are mapped back to the original text.
 * `where` names the member; `context` (may be NULL) is prefixed to the
 * message, e.g. "in the lowered module of node 'x'". */
int etr_json_parse(const char *text, size_t len,
                   const etk_etrecord_limits_t *limits, const char *where,
                   const char *context, json_t **out, etk_error_t *err);

/* json_lazy.c: the memory bound of one parse (limits->max_json_memory_ratio
 * times its text, at least ETR_JSON_MIN_BUDGET) and a scanner of byte
 * spans (no tree) for reading big containers one element at a time. */
#define ETR_JSON_MIN_BUDGET ((size_t)1 << 20)
void etr_json_budget_begin(const etk_etrecord_limits_t *limits, size_t len);
/* Ends the budget; true when an allocation was refused (*limit: the bound). */
bool etr_json_budget_end(size_t *limit);

typedef struct etr_json_span {
  size_t start, end; /* text[start .. end) */
} etr_json_span_t;

typedef struct etr_json_iter {
  size_t at, end;
  char close;
  bool need_value, bad;
} etr_json_iter_t;

/* The checks etr_json_parse makes before jansson (UTF-8, depth, string
 * sizes) over a whole document, without parsing it. */
int etr_json_check(const char *text, size_t len,
                   const etk_etrecord_limits_t *limits, const char *where,
                   etk_error_t *err);
/* The document's one value (blanks around it allowed). */
bool etr_json_root(const char *t, size_t len, etr_json_span_t *out);
/* The value of key `name` (written without escapes) in object `obj`. */
bool etr_json_member(const char *t, etr_json_span_t obj, const char *name,
                     etr_json_span_t *out);
/* Iterates over a list (open '[', key NULL) or an object (open '{'). */
bool etr_json_iter_init(const char *t, etr_json_span_t span, char open,
                        etr_json_iter_t *it);
/* The next element; false at the end or on text it does not understand
 * (then it->bad). */
bool etr_json_next(const char *t, etr_json_iter_t *it, etr_json_span_t *key,
                   etr_json_span_t *value);

/* 1 for +Infinity, -1 for -Infinity, 2 for NaN, 0 for anything else. */
int etr_json_special(const json_t *value);

/* Sets an error with the 1-based line and column (in code points) of
 * text[offset]. */
int etr_error_at(etk_error_t *err, int code, const char *where,
                 const char *text, size_t len, size_t offset, const char *fmt,
                 ...) ETK_PRINTF_LIKE(7, 8);

/* Strict canonical decimal int64 ("0", "17", "-3"; no '+', no leading
 * zeros, no spaces).  Returns false when s[0..n) is not one. */
bool etr_parse_int64(const char *s, size_t n, int64_t *out);

/* ---------------------------------------------------------------- record */

typedef struct etr_member {
  etk_etrecord_member_t pub;
  zip_uint64_t zip_index;
  bool encrypted;
  bool loaded;
  uint8_t *data; /* loaded bytes plus a NUL (not counted in len) */
  size_t len;
} etr_member_t;

typedef struct etr_handle_ref {
  int64_t handle;
  size_t node;
} etr_handle_ref_t;

typedef struct etr_program {
  etk_etrecord_program_t pub;
  etr_arena_t arena;
  etk_etrecord_node_t *nodes;   /* malloc'd */
  etk_etrecord_graph_t *graphs; /* malloc'd */
  /* handle index: node pointers sorted by (handle, node order) */
  int64_t *index_handles;
  const etk_etrecord_node_t **index_nodes;
  size_t index_count;
} etr_program_t;

typedef struct etr_program_slot {
  etk_etrecord_program_ref_t ref;
  etr_program_t *loaded;
} etr_program_slot_t;

struct etk_etrecord {
  etk_etrecord_limits_t limits;
  zip_t *zip;
  etr_arena_t arena;
  etr_member_t *members;
  size_t member_count;
  etr_program_slot_t *programs;
  size_t program_count;
  etk_etrecord_method_maps_t *maps;
  size_t maps_count;
  etk_etrecord_info_t info;
  uint64_t bytes_inflated;
};

/* Reads a member by index into its cache (limits enforced). */
int etr_member_load(etk_etrecord_t *rec, etr_member_t *m, etk_error_t *err);
/* Frees the loaded bytes of `m` (nobody may hold them); a later
 * etr_member_load reads them again. */
void etr_member_unload(etr_member_t *m);

/* Loads the member `pub` (as etr_member_load) and parses it as JSON into
 * *root, which the caller then owns.  Errors name `member`. */
int etr_member_load_json(etk_etrecord_t *rec, const etk_etrecord_member_t *pub,
                         const char *member, json_t **root, etk_error_t *err);

/* Opens the ZIP over `owned` (the record takes it, also on failure), lists
 * the members, checks the ETRECORD_V0 marker and lists the programs
 * (archive.c).  Errors name `where`. */
int etr_archive_open(etk_etrecord_t *rec, uint8_t *owned, size_t len,
                     const char *where, etk_error_t *err);

/* Parses the three maps and export_graph_id (called once by open). */
int etr_maps_parse(etk_etrecord_t *rec, etk_error_t *err);

/* Frees a loaded program. */
void etr_program_free(etr_program_t *prog);

/* Parses one program member (see edge_program.c). */
int etr_program_parse(etk_etrecord_t *rec, const etr_program_slot_t *slot,
                      etr_program_t **out, etk_error_t *err);

/* Decoders used by edge_program.c (see text.c): ETK_OK, ETK_E_FORMAT when the
 * text does not decode (nothing is set), ETK_E_NO_MEMORY. */
int etr_module_stack_decode(etr_arena_t *arena, const char *text,
                            etk_etrecord_module_entry_t **entries,
                            size_t *count);
int etr_source_fn_stack_decode(etr_arena_t *arena, const char *text,
                               etk_etrecord_source_fn_t **entries,
                               size_t *count);

/* ------------------------------------------------------------------ serde */

/* Picks the chosen member of a union in either spelling (serde.c); the
 * first union seen sets *dialect (may be NULL) when it is still UNKNOWN. */
bool etr_union_pick(json_t *u, etk_etrecord_dialect_t *dialect,
                    const char **tag, json_t **val);

/* State of the typed decoders (serde.c): results go into `arena`; `failed`
 * turns sticky on the first allocation failure (they return -1 then). */
typedef struct etr_serde {
  etr_arena_t *arena;
  etk_etrecord_dialect_t *dialect;
  bool failed;
} etr_serde_t;

/* Decodes one Argument union (`name`/`keyword`: its NamedArgument's). */
int etr_serde_arg(etr_serde_t *s, json_t *u, const char *name, bool keyword,
                  etk_etrecord_arg_t *a, uint32_t depth);

/* Decodes a JSON list of NamedArguments (`named`) or Arguments. */
int etr_serde_args(etr_serde_t *s, json_t *list, bool named,
                   etk_etrecord_arg_t **out, size_t *count);

/* Fills a graph's inputs, outputs, tensor_values, custom objects, symbol
 * names and (when `signature` is an object) its specs. */
int etr_serde_graph(etr_serde_t *s, json_t *graph, json_t *signature,
                    etk_etrecord_graph_t *g);
/* The tensor_values object of a graph read from its text span one entry
 * at a time (json_lazy.c): 0 done, -1 out of memory, 1 text jansson
 * refuses (the caller parses the whole document instead). */
int etr_serde_tensor_values_lazy(etr_serde_t *s, const char *text,
                                 etr_json_span_t span,
                                 const etk_etrecord_limits_t *limits,
                                 const char *where, etk_etrecord_graph_t *g);

/* Parses a debug_handle metadata text ("7", "[7, 8]", "(7,)") into an
 * arena array.  ETK_E_FORMAT (nothing set) when it is none of these. */
int etr_serde_debug_handles(etr_arena_t *arena, const char *text, int64_t **out,
                            size_t *count);

/* Encodes the ETRecord writer's references: *outputs (reference_outputs)
 * when refs->method_count > 0, *inputs (representative_inputs) when
 * refs->input_count > 0, both malloc'd torch.save archives (NULL/0
 * otherwise).  Errors name "ETRecord writer: references". */
/* The weights of a method as a torch.save archive of {key: tensor} in
 * weight order (*out malloc'd).  Errors as etr_write_references(). */
int etr_write_state_dict(const etk_etrecord_weight_desc_t *weights,
                         size_t count, uint8_t **out, size_t *out_len,
                         etk_error_t *err);
int etr_write_references(const etk_etrecord_references_desc_t *refs,
                         uint8_t **outputs, size_t *outputs_len,
                         uint8_t **inputs, size_t *inputs_len,
                         etk_error_t *err);

#endif /* ETKIT_ETRECORD_INTERNAL_H */
