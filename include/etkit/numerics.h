/*
 * etkit/numerics.h - numerical debugging (library etkit_numerics): tensor
 * views, upstream's comparators and compare_results, and the A/B
 * comparison of two traced runs.  See docs/numerics.md.
 */
#ifndef ETKIT_NUMERICS_H
#define ETKIT_NUMERICS_H

#include <stddef.h>
#include <stdint.h>

#include "etkit/common.h"
#include "etkit/etdump.h"
#include "etkit/inspector_core.h"
#include "etkit/interp.h"
#include "etkit/render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ====================================================================
 * NUMERICS (src/inspector/numerics.c): where accuracy goes.
 *
 *   - tensor views over any etkit data (debug buffer, torch.save archive,
 *     bundled program) and the values the runtime logged;
 *   - upstream's numerical comparators (inspector notes 8.3: L1, MSE, SNR,
 *     float64, NaN and broadcasting rules) plus max-abs error and cosine;
 *   - upstream's compare_results (8.4: snr, mse, cosine_similarity in
 *     float32, rounded to 2 decimals, and its exact text);
 *   - an A/B comparison of the intermediate outputs of two traced runs of
 *     the same program (float vs quantized, two backends), per
 *     instruction, in table/TSV/CSV/JSON (`etkit numerics`).
 * See docs/numerics.md.
 * ==================================================================== */

#define ETK_NUMERICS_MAX_DIMS 64

/* A read-only view of a tensor.  Element (i0, i1, ...) is at byte
 * (offset + sum(ik * strides[k])) * element size of `data`. */
typedef struct etk_numerics_tensor {
  int scalar_type;        /* etk_scalar_type_t (c10 codes, etkit/schema.h) */
  uint32_t dim;           /* <= ETK_NUMERICS_MAX_DIMS */
  const int64_t *sizes;   /* dim entries >= 0 (may be NULL when dim is 0) */
  const int64_t *strides; /* in elements, >= 0; NULL = C-contiguous */
  int64_t offset;         /* in elements, >= 0 */
  const void *data;       /* little-endian elements */
  uint64_t data_len;      /* bytes readable at data */
} etk_numerics_tensor_t;

/* Bytes per element of the types the comparisons read: BYTE, CHAR, SHORT,
 * INT, LONG, HALF, FLOAT, DOUBLE, BOOL, BFLOAT16, BITS16, UINT16, UINT32,
 * UINT64; 0 for any other (quantized, float8, ...). */
size_t etk_numerics_element_size(int scalar_type);

/* Checks a view: a readable type, dim, sizes/strides >= 0, every element
 * inside data[0..data_len).  *numel (may be NULL) gets the element count.
 * ETK_E_UNSUPPORTED (type), ETK_E_INVALID_ARGUMENT (shape), ETK_E_BAD_OFFSET
 * (an element outside the data), ETK_E_OVERFLOW. */
int etk_numerics_tensor_check(const etk_numerics_tensor_t *t, uint64_t *numel,
                              etk_error_t *err);

/* Writes "[2, 3]" (Python's list repr of the sizes) into out; snprintf
 * style. */
size_t etk_numerics_shape_text(const etk_numerics_tensor_t *t, char *out,
                               size_t out_size);

/* ------------------------------------------------ upstream comparators */

typedef enum etk_numerics_metric {
  ETK_NUMERICS_L1 = 0,  /* sum |a - b| */
  ETK_NUMERICS_MSE,     /* mean (a - b)^2 */
  ETK_NUMERICS_SNR,     /* 10 log10(mean a^2 / mean (a - b)^2), a = reference */
  ETK_NUMERICS_MAX_ABS, /* max |a - b| (etkit) */
  ETK_NUMERICS_COSINE   /* sum ab / (sqrt(sum a^2) sqrt(sum b^2)) (etkit) */
} etk_numerics_metric_t;

/* "L1", "MSE", "SNR", "max_abs", "cosine". */
const char *etk_numerics_metric_name(etk_numerics_metric_t metric);

/* Upstream's distance names: the text stripped and upper-cased must be
 * "L1", "MSE" or "SNR" (etkit adds "MAX_ABS" and "COSINE").
 * ETK_E_INVALID_ARGUMENT otherwise. */
int etk_numerics_metric_parse(const char *name, etk_numerics_metric_t *out);

/* etk_numerics_compare() flags. */
#define ETK_NUMERICS_NO_BROADCAST        \
  0x1u /* shapes must be equal (upstream \
          broadcasts [3] against [1]) */

/* Upstream's element_compare(a, b) (a = the reference / AOT side): both
 * tensors are read as float64; a tensor holding a NaN gets nan_to_num
 * (NaN -> 0, +inf -> DBL_MAX, -inf -> -DBL_MAX) while infinities of a
 * tensor without NaN are kept; the shapes broadcast like torch (trailing
 * dimensions equal or 1).  SNR's signal is a's own mean square; 0/0 gives
 * NaN, a zero signal with error -inf, no error +inf.  MSE and SNR of empty
 * tensors are NaN; L1 of empty tensors is 0.  Sums are compensated
 * (Neumaier), so results equal torch's up to its float64 summation order.
 * Errors: ETK_E_MISMATCH (shapes that cannot broadcast, or differ under
 * NO_BROADCAST: "shapes [3] and [4] cannot be broadcast"), those of
 * etk_numerics_tensor_check(). */
int etk_numerics_compare(const etk_numerics_tensor_t *a,
                         const etk_numerics_tensor_t *b,
                         etk_numerics_metric_t metric, unsigned flags,
                         double *out, etk_error_t *err);

/* ------------------------------------------------ compare_results */

typedef enum etk_compare_metric {
  ETK_COMPARE_SNR = 0,          /* "snr" */
  ETK_COMPARE_MSE,              /* "mse" */
  ETK_COMPARE_COSINE_SIMILARITY /* "cosine_similarity" */
} etk_compare_metric_t;

#define ETK_COMPARE_ALL                                 \
  0x7u /* every metric: bit (1 << etk_compare_metric_t) \
        */

const char *etk_compare_metric_name(etk_compare_metric_t metric);

/* One value of upstream's compare_results: both tensors cast to float32,
 * element-wise arithmetic in float32, then
 *   mse    round(mean((ref - run)^2), 2)
 *   snr    round(10 * log10(mean(ref^2) / mean((ref - run)^2)), 2)
 *   cosine round(sum(ref * run) / (sqrt(sum ref^2) * sqrt(sum run^2)), 2)
 * with Python's round() (correctly rounded, ties to even).  Reductions are
 * accumulated in float64 and rounded to float32 once (torch sums in
 * float32 blocks), which can only matter at a rounding boundary of the
 * second decimal.  mse/snr broadcast like torch; cosine needs equal shapes
 * (ETK_E_MISMATCH "Input tensors must have the same shape", upstream's
 * ValueError). */
int etk_compare_results_value(const etk_numerics_tensor_t *reference,
                              const etk_numerics_tensor_t *run,
                              etk_compare_metric_t metric, double *out,
                              etk_error_t *err);

/* One (reference, run) pair; a NULL side is not a tensor (upstream puts
 * None in its lists, and its print then fails; etkit prints "None"). */
typedef struct etk_compare_pair {
  const etk_numerics_tensor_t *reference;
  const etk_numerics_tensor_t *run;
} etk_compare_pair_t;

/* Upstream's compare_results(reference, run, metrics, plot=False) output
 * for pairs[0..count) (the pairs of zip(reference, run)): for each metric
 * of the mask (0 = all) in the order snr, mse, cosine_similarity, the
 * metric name, a line of 20 '-', one line per pair printed as
 * f"{i:<5}{v:>8.5f}" (a pair with a non-tensor side: f"{i:<5}{'None':>8}"),
 * then "\n\n".  values (may be NULL) receives 3 * count doubles, [metric *
 * count + i] (NaN when not computed).  A metric that fails stops the
 * output after the metrics already printed, like upstream's exception.
 * Errors: those of etk_compare_results_value() naming the output index,
 * the sink's ETK_E_IO. */
int etk_compare_results_write(const etk_compare_pair_t *pairs, size_t count,
                              unsigned metrics, etk_render_sink_t *sink,
                              double *values, etk_error_t *err);

/* Python's f"{v:>8.5f}" of a double (NaN -> "nan", never "-nan") into
 * out[0..out_size); snprintf-style return value. */
size_t etk_compare_format_value(double v, char *out, size_t out_size);

/* ------------------------------------------------ logged values */

typedef enum etk_numerics_value_kind {
  ETK_NUMERICS_VALUE_NONE = 0,   /* Null or String value: upstream's None */
  ETK_NUMERICS_VALUE_TENSOR,     /* a tensor (or one item of a TensorList) */
  ETK_NUMERICS_VALUE_SCALAR,     /* Int, Bool, Float, Double (as a double) */
  ETK_NUMERICS_VALUE_TENSOR_LIST /* a TensorList asked for as a whole */
} etk_numerics_value_kind_t;

/* A logged debug value, inflated as upstream's Inspector does (notes
 * 8.1): the tensor's bytes at its offset in the debug buffer.  When the
 * logged strides describe a dense layout other than the contiguous one (a
 * channels-last dim order), the view reads the elements through them, so
 * values compare in logical order (upstream reads every tensor as
 * contiguous; docs/compatibility.md). */
typedef struct etk_numerics_value {
  int kind;            /* etk_numerics_value_kind_t */
  int value_type;      /* etk_etdump_value_type_t of the Value */
  uint32_t list_count; /* TensorList: number of tensors */
  double scalar;       /* SCALAR */
  int scalar_type;     /* TENSOR */
  uint32_t dim;
  int64_t sizes[ETK_NUMERICS_MAX_DIMS];
  const uint8_t *data; /* into the debug buffer (NULL when empty) */
  uint64_t nbytes;
  int strided; /* strides[0..dim) hold a dense non-contiguous layout */
  int64_t strides[ETK_NUMERICS_MAX_DIMS]; /* in elements, when strided */
} etk_numerics_value_t;

/* Inflates the value of debug event `etdump_event` of `dump` from the debug
 * buffer buf[0..len): item 0 of a single value; item k of a TensorList
 * gives that tensor (kind TENSOR, list_count set), item ~0u the list as a
 * whole (kind TENSOR_LIST, no data).  Errors: ETK_E_INVALID_ARGUMENT (not
 * a debug event, item out of range), ETK_E_FORMAT (no debug_entry),
 * ETK_E_UNSUPPORTED (a dtype upstream cannot inflate), ETK_E_LIMIT (more
 * than ETK_NUMERICS_MAX_DIMS dims), ETK_E_BAD_OFFSET (bytes outside the
 * buffer; also when buf is NULL and the tensor is not empty). */
int etk_numerics_debug_value(const etk_etdump_t *dump, const uint8_t *buf,
                             size_t len, size_t etdump_event, uint32_t item,
                             etk_numerics_value_t *out, etk_error_t *err);

/* A view of a TENSOR or SCALAR value (a 0-d DOUBLE view of v->scalar).
 * The view points into *v, which must outlive it.  0 for other kinds. */
int etk_numerics_value_view(const etk_numerics_value_t *v,
                            etk_numerics_tensor_t *view);

/* ------------------------------------------------ A/B of two runs */

typedef enum etk_numerics_status {
  ETK_NUMERICS_MATCHED = 0,    /* both sides: metrics computed */
  ETK_NUMERICS_ONLY_A,         /* logged in A only */
  ETK_NUMERICS_ONLY_B,         /* logged in B only */
  ETK_NUMERICS_SHAPE_MISMATCH, /* both, different shapes: no metrics */
  ETK_NUMERICS_KIND_MISMATCH,  /* tensor vs scalar / list / None */
  ETK_NUMERICS_NOT_NUMERIC,    /* None values, or a type that cannot be read */
  ETK_NUMERICS_ARGUMENT        /* an input or constant argument of a delegate
                                  call (etk_numerics_ab_mark_arguments):
                                  metrics computed, but not its output */
} etk_numerics_status_t;

/* "matched", "only in A", "only in B", "shape mismatch", "kind mismatch",
 * "not numeric", "delegate argument". */
const char *etk_numerics_status_name(etk_numerics_status_t status);

typedef struct etk_numerics_row {
  const char *block;                 /* block name ("" when absent) */
  size_t block_occurrence;           /* k-th block of that name (0-based) */
  size_t block_a, block_b;           /* inspector blocks (SIZE_MAX: absent) */
  int is_output;                     /* a program output (output=true) */
  int32_t chain_index;               /* of the logged value (-1 when unset) */
  int32_t instruction_id;            /* -1 for program outputs */
  int64_t delegate_debug_id_int;     /* -1 when none */
  const char *delegate_debug_id_str; /* NULL when none */
  uint32_t output_index;             /* n-th value logged for this instruction
                                        and delegate id in the run (n-th program
                                        output for outputs) */
  int32_t list_item;             /* TensorList item, -1 for a single value */
  const char *name;              /* the debug event's name, else the profile
                                    event of its instruction (not
                                    OPERATOR_CALL), else "" */
  uint32_t event_a, event_b;     /* ETDump event indices, UINT32_MAX absent */
  int status;                    /* etk_numerics_status_t */
  const char *dtype_a, *dtype_b; /* "float32", ... (NULL when absent) */
  const char *shape_a, *shape_b; /* "[1, 4, 8, 8]" (NULL when absent) */
  uint64_t numel;                /* elements compared */
  double mse, snr, max_abs, cosine; /* NaN unless MATCHED (A = reference);
                                       mse, snr and cosine NaN when exact */
  const char *op_types;             /* set by etk_numerics_ab_set_op_types(),
                                       NULL when none */
  int exact;           /* MATCHED integer or bool values (indices, flags,
                          integer-quantized data): compared as exact
                          matches, never ranked by MSE/SNR */
  uint64_t mismatches; /* exact rows: elements that differ */
} etk_numerics_row_t;

/* True for the element types compared as exact matches (a mismatch count)
 * rather than by MSE/SNR: bool and the 32- and 64-bit integers (indices,
 * counts, flags).  The 8- and 16-bit integers are quantized activations:
 * upstream's comparators read them as numbers (float64) and so does
 * etkit.  The graph view's error overlay follows the same rule. */
int etk_numerics_is_exact_type(int scalar_type);
/* The same rule on a numpy dtype name ("int64", "bool", ...). */
int etk_numerics_is_exact_dtype(const char *dtype);

/* Exact comparison of two views of equal shape (no broadcasting; strided
 * views read through their strides): the number of elements whose values
 * differ (integers compared as integers, other types by value; NaN never
 * equals) and the element count.  Either output may be NULL.  Errors:
 * those of etk_numerics_tensor_check(), ETK_E_MISMATCH (shapes differ). */
int etk_numerics_count_mismatches(const etk_numerics_tensor_t *a,
                                  const etk_numerics_tensor_t *b,
                                  uint64_t *mismatches, uint64_t *numel,
                                  etk_error_t *err);

typedef struct etk_numerics_ab_options {
  int skip_outputs; /* leave program outputs out */
} etk_numerics_ab_options_t;

typedef struct etk_numerics_ab etk_numerics_ab_t;

/* Pairs the blocks of `a` and `b` by name and occurrence (the k-th block
 * named "Execute" in A with the k-th in B), then, in the FIRST run of each
 * pair, every logged value by key (program output or not, instruction id,
 * delegate debug id, output index) and TensorList item, and computes MSE,
 * SNR, max abs error and cosine (etk_numerics_compare, float64, A as the
 * reference) for each matched pair of equal shape.  Rows are sorted by
 * block pair, then instruction id, delegate id, output index, item, with
 * program outputs last.  The inspectors and buffers are borrowed until
 * etk_numerics_ab_free().  Errors: ETK_E_INVALID_ARGUMENT, ETK_E_NO_MEMORY,
 * and the inflation errors of a value (err->where "A" or "B", the message
 * naming the ETDump event). */
int etk_numerics_ab_build(const etk_inspector_t *a, const uint8_t *a_buffer,
                          size_t a_len, const etk_inspector_t *b,
                          const uint8_t *b_buffer, size_t b_len,
                          const etk_numerics_ab_options_t *options,
                          etk_numerics_ab_t **out, etk_error_t *err);
void etk_numerics_ab_free(etk_numerics_ab_t *ab);
size_t etk_numerics_ab_row_count(const etk_numerics_ab_t *ab);
/* ETK_E_INVALID_ARGUMENT out of range.  Strings live until the next
 * set_op_types on that row or free. */
int etk_numerics_ab_row_get(const etk_numerics_ab_t *ab, size_t index,
                            etk_numerics_row_t *out);
/* Blocks of A (B) without a partner of the same name and occurrence. */
size_t etk_numerics_ab_unpaired_blocks(const etk_numerics_ab_t *ab, int of_b);
/* Attaches the op types text of a row (copied; e.g. "aten.relu.default"
 * from an ETRecord link).  NULL clears it. */
int etk_numerics_ab_set_op_types(etk_numerics_ab_t *ab, size_t index,
                                 const char *op_types);

/* How many of the values an instruction logged are its outputs: > 0 for a
 * delegate call (the runtime logs every argument of the call, inputs and
 * constant weights first, outputs last), 0 when it is not a delegate call,
 * -1 when the callback does not know.  `block` is the row's block name. */
typedef int64_t (*etk_numerics_outputs_fn)(void *ctx, const char *block,
                                           int32_t instruction_id);

/* Marks the rows of delegate-call arguments ETK_NUMERICS_ARGUMENT: per
 * (block pair, instruction) without a delegate debug id, the values logged
 * before the last `outputs` ones (as upstream's Inspector keeps the last
 * num_outs values of an instruction).  `outputs` may be NULL; where it is
 * NULL or answers -1, an instruction whose event is named DELEGATE_CALL
 * has 1 output (upstream's default when the ETRecord has no
 * instruction_id_to_num_outs map).  Returns the number of rows marked. */
size_t etk_numerics_ab_mark_arguments(etk_numerics_ab_t *ab,
                                      etk_numerics_outputs_fn outputs,
                                      void *ctx);

typedef struct etk_numerics_render_options {
  etk_inspect_format_t format;   /* table, tsv, csv, json */
  int json_indent;               /* default 2 */
  const char *label_a, *label_b; /* JSON "a"/"b" (NULL = "A", "B") */
  int wide; /* table: every column; 0: block, iid, out, event (cut to 20
               characters), shape, snr, max abs, cosine, status ("K/N
               differ" for exact rows), to fit 120 columns (TSV, CSV and
               JSON keep every column) */
} etk_numerics_render_options_t;

void etk_numerics_render_options_init(etk_numerics_render_options_t *o);

/* Columns: event_block_name, instruction, delegate_debug_id, output,
 * event_name, op_types, dtype, shape, mse, snr (dB), max_abs_error,
 * cosine, status (an exact row: "exact: K of N differ", mse/snr/cosine
 * empty).  dtype and shape show "A | B" when the sides differ;
 * instruction is "output" for program outputs; output is "k" or "k[i]"
 * (item i of a TensorList).  json: {"a", "b", "unpaired_blocks_a",
 * "unpaired_blocks_b", "rows": [...]} with typed values (NaN/inf as
 * null) and, per row, "exact" and "mismatches" (null unless exact). */
int etk_numerics_ab_render(const etk_numerics_ab_t *ab,
                           const etk_numerics_render_options_t *o,
                           etk_render_sink_t *sink, etk_error_t *err);

/* ------------------------------------------------ numeric gap (AOT) */

/* Upstream's Inspector.calculate_numeric_gap in C (src/numerics/gap.c):
 * the ETRecord's graph run by etkit's interpreter (etkit/interp.h) is the
 * AOT side; the runtime side is every linked event of `insp` (an
 * inspector whose events carry op types and debug handles, i.e. linked to
 * the ETRecord) with its logged debug values; the pairing follows
 * upstream's rules (events named OPERATOR_CALL or without op types
 * skipped, the largest instruction id kept per handle tuple, overlapping
 * runtime handles merged, connected components of overlapping AOT and
 * runtime handles, the AOT node of the runtime handle's last element
 * compared, multi-output runtime values picked by shape and dtype).  One
 * row per pair, in upstream's order. */
typedef struct etk_gap_options {
  etk_numerics_metric_t metric; /* L1, MSE or SNR */
  /* A row diverges when its gap is worse than this: above it for L1 and
   * MSE, below it for SNR.  NaN = the defaults (MSE 1e-6, L1 1e-3,
   * SNR 40 dB). */
  double threshold;
  uint64_t max_memory; /* the interpreter's bound (0 = its default) */
} etk_gap_options_t;

void etk_gap_options_init(etk_gap_options_t *o);

typedef struct etk_gap_row {
  size_t order;           /* position in upstream's row order */
  const int64_t *handles; /* the row's debug handles (AOT = runtime) */
  size_t handle_count;
  const char *aot_ops;     /* AOT node names, ", "-separated */
  const char *runtime_ops; /* runtime event names */
  char shape[96];          /* the AOT output's shape "[1, 4, 8, 8]" */
  double gap;              /* NaN when the outputs cannot be compared */
  const char *note;        /* why gap is NaN ("" otherwise) */
  bool over;               /* worse than the threshold */
  bool first_diverging;    /* the first row (in order) that is over */
  /* the runtime value is a STATS vector (a dump recorded at debug level
   * "stats"): aot_stats are the STATS of the AOT output, rt_stats the
   * logged ones (etk_tensor_stat_t order), gap the relative p99_abs shift
   * |rt - aot| / |aot| (etk_stats_p99_shift) */
  bool stats;
  double aot_stats[13], rt_stats[13];
} etk_gap_row_t;

typedef struct etk_gap etk_gap_t;

/* Builds the rows.  `insp` (linked), `buf`/`len` (its debug buffer, may be
 * NULL/0) and `g` (the reference graph) are borrowed for the call only.
 * Errors: the interpreter's run-level errors (missing representative
 * inputs, memory bound, ...), ETK_E_INVALID_ARGUMENT (a component with
 * two runtime entries, upstream's "Expected only one runtime debug
 * handle"), ETK_E_NOT_FOUND (the dump logged no intermediate outputs
 * at all, checked before anything runs; no AOT output or no runtime value
 * to pair: "no rows", naming the interpreter's first failure when it
 * could not run a node), ETK_E_NO_MEMORY. */
int etk_gap_build(const etk_inspector_t *insp, const uint8_t *buf, size_t len,
                  etk_graph_t *g, const etk_gap_options_t *opts,
                  etk_gap_t **out, etk_error_t *err);
void etk_gap_free(etk_gap_t *gap);

/* Rows sorted worst first (NaN gaps first, then by gap: largest first for
 * L1/MSE, smallest first for SNR). */
size_t etk_gap_row_count(const etk_gap_t *gap);
const etk_gap_row_t *etk_gap_rows(const etk_gap_t *gap);
/* Graph nodes the interpreter could not run (unsupported op, or no
 * reference downstream of one): they have no row. */
size_t etk_gap_unreferenced(const etk_gap_t *gap);
/* The threshold used (after defaults). */
double etk_gap_threshold(const etk_gap_t *gap);

/* What the first pair (in graph order, an operator near the program's
 * inputs) says about the run's inputs.  The ETDump holds no value of the
 * program input, so when that pair diverges it is compared again with the
 * graph run on inputs of ones (`etkit run`'s default input): a match
 * there means the run was not made on the ETRecord's representative
 * inputs, and every later row diverges for that reason alone. */
typedef enum etk_gap_inputs {
  ETK_GAP_INPUTS_AGREE = 0,      /* the first pair is within the threshold */
  ETK_GAP_INPUTS_FIRST_DIVERGES, /* it diverges, also against ones */
  ETK_GAP_INPUTS_ONES            /* it diverges, and matches ones: the run
                                    used all-ones inputs */
} etk_gap_inputs_t;
etk_gap_inputs_t etk_gap_inputs(const etk_gap_t *gap);

typedef enum etk_gap_format {
  ETK_GAP_TABLE = 0,
  ETK_GAP_CSV,
  ETK_GAP_JSON
} etk_gap_format_t;

/* Writes the rows (worst first) as an aligned table (the first diverging
 * row marked with "<- first divergence"), CSV or JSON. */
int etk_gap_render(const etk_gap_t *gap, etk_gap_format_t format,
                   etk_render_sink_t *sink, etk_error_t *err);

/* ------------------------------------------------ STATS comparisons
 * (src/numerics/stats_cmp.c): a run recorded at debug level "stats"
 * (etkit/recorder.h ETK_DEBUG_LEVEL_STATS) against the ETRecord's graph run
 * by the interpreter (from etk_gap_build's rows) or against another run
 * (STATS or full tensors, from etk_numerics_ab_build's pairing).  Per
 * value: both STATS vectors (upstream's compare_aot_runtime_dataframe
 * aot_<field> and rt_<field> columns, the reference as "aot"), the
 * relative p99_abs shift and whether NaN or Inf appears. */

/* |rt - ref| / |ref| of p99_abs (0 when equal, +inf when ref is 0 and rt
 * is not, NaN when either is NaN). */
double etk_stats_p99_shift(const double ref[13], const double rt[13]);

typedef struct etk_stats_row {
  const char *block;        /* block name ("" for graph rows) */
  int32_t instruction_id;   /* -1 for program outputs and graph rows */
  int is_output;            /* a program output */
  const char *debug_handle; /* graph rows: "5" or "[5, 6]", else NULL */
  uint32_t output_index;    /* n-th value of the instruction / output */
  int32_t list_item;        /* TensorList item, -1 for a single value */
  const char *node_name;    /* graph: AOT node names; runs: event name */
  const char *op_target;    /* graph: runtime op names; runs: op types */
  int has_aot, has_rt;      /* which sides have a STATS vector */
  double aot[13], rt[13];   /* the reference's and the run's */
  const char *note;         /* why a side has none ("" otherwise) */
  double p99_shift;         /* etk_stats_p99_shift (NaN: a side missing) */
  int nan_inf_appears;      /* rt counts NaN or Inf, the reference none */
  int drift;                /* nan_inf_appears or p99_shift > threshold */
} etk_stats_row_t;

typedef struct etk_stats_cmp etk_stats_cmp_t;

/* The STATS rows of a gap built on a stats dump (rows with `stats`; the
 * others are not comparable and get a note).  `threshold` is the p99_abs
 * shift above which a row drifts (NaN = 0.1).  Errors: ETK_E_NO_MEMORY. */
int etk_stats_cmp_from_gap(const etk_gap_t *gap, double threshold,
                           etk_stats_cmp_t **out, etk_error_t *err);

/* The STATS rows of an A/B pairing: each side's value as a STATS vector
 * (read from a stats dump, or computed from a full tensor).  A is the
 * reference.  Errors: ETK_E_NO_MEMORY. */
int etk_stats_cmp_from_runs(const etk_numerics_ab_t *ab,
                            const etk_inspector_t *a, const uint8_t *a_buf,
                            size_t a_len, const etk_inspector_t *b,
                            const uint8_t *b_buf, size_t b_len,
                            double threshold, etk_stats_cmp_t **out,
                            etk_error_t *err);
void etk_stats_cmp_free(etk_stats_cmp_t *c);
size_t etk_stats_cmp_row_count(const etk_stats_cmp_t *c);
const etk_stats_row_t *etk_stats_cmp_rows(const etk_stats_cmp_t *c);
/* Rows with both sides (compared) and rows that drift. */
size_t etk_stats_cmp_compared(const etk_stats_cmp_t *c);
size_t etk_stats_cmp_drifting(const etk_stats_cmp_t *c);
double etk_stats_cmp_threshold(const etk_stats_cmp_t *c);

/* Table (compact: instruction or handle, node, the run's min, max, mean,
 * std, both p99_abs, the shift, NaN/Inf, status), TSV/CSV (every column:
 * event_block_name, instruction, debug_handle, output_index, node_name,
 * op_target, reducer_name, aot_<f> and rt_<f> per field, p99_shift,
 * nan_inf_appears, drift, note) or JSON ({"threshold", "rows": [...]},
 * "aot" and "rt" objects of the 13 fields, NaN/inf as null). */
int etk_stats_cmp_render(const etk_stats_cmp_t *c, etk_inspect_format_t format,
                         int json_indent, etk_render_sink_t *sink,
                         etk_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_NUMERICS_H */
