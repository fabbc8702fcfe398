/*
 * etkit/method.h - the executor of the reference runtime (library
 * etkit_runtime): the backend registry, method loading, memory planning,
 * execution with tracing, and bundled-program checks.
 */
#ifndef ETKIT_METHOD_H
#define ETKIT_METHOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/kernels.h"
#include "etkit/recorder.h"
#include "etkit/recorder_calibration.h"
#include "etkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================
 * EXECUTOR (reference runtime: src/runtime/, see docs/runtime.md)
 * ================================================================
 *
 * Runs a method of a loaded program (etkit/program.h) exactly as
 * ExecuTorch's Method does: values are built from the program at load,
 * planned tensors get their memory from caller-provided buffers sized from
 * the plan's non_const_buffer_sizes, every KernelCall is bound to a kernel
 * and its dtypes are checked before anything runs, delegates are handed
 * their payloads at load, and execute() walks the chains instruction by
 * instruction.  Execution never touches the heap.
 *
 * Tracing goes to an etk_recorder_t (etkit/recorder.h) with upstream's
 * event structure: a "Default" block holding "Program::load_method" and
 * "Method::init", then one "Execute" block per execute() with
 * "Method::execute", and per instruction OPERATOR_CALL around
 * native_call_<op>.<overload> (or DELEGATE_CALL, JF_CALL, MOVE_CALL,
 * FREE_CALL) with chain index and instruction id set; intermediate outputs
 * and program outputs are logged when the recorder's debug level asks.
 * Beyond upstream: the Default block also names the allocators
 * ("method_allocator", "planned_memory_<id>") and records one allocation
 * event per planned buffer and per method allocation.
 *
 *   etk_method_t *m;
 *   if (etk_method_load_alloc(prog, "forward", NULL, &m, &err) != ETK_OK) ...
 *   etk_tensor_t x = {0};               // describe the caller's data
 *   x.scalar_type = ETK_FLOAT; x.dim = 1; x.sizes[0] = 1;
 *   x.data = &one; x.nbytes = sizeof one;
 *   etk_value_t in = {ETK_VALUE_TENSOR, {.tensor = &x}};
 *   etk_method_set_input(m, 0, &in, &err);
 *   etk_method_set_input(m, 1, &in, &err);
 *   etk_method_execute(m, &err);
 *   const etk_value_t *out = etk_method_output(m, 0);
 *   etk_method_free(m);
 */

struct etk_program;
struct etk_program_plan;
struct etk_bundled_program;
struct etk_error;

/* ------------------------------------------------------------- backends */

/* A backend (delegate) runs the lowered sub-graphs of one kind: the
 * program's BackendDelegate.id names it, its `processed` bytes are the
 * payload given to init(), and each DelegateCall instruction calls
 * execute() with the instruction's arguments.  Backends register by id;
 * a program naming an unknown backend fails at load. */
typedef struct etk_backend_compile_spec {
  const char *key;
  const uint8_t *value;
  size_t value_len;
} etk_backend_compile_spec_t;

typedef struct etk_backend_init_context {
  const char *method_name;
  uint32_t delegate_index; /* in the plan's delegates */
  const etk_backend_compile_spec_t *compile_specs;
  size_t compile_spec_count;
  /* Method memory reserved for this delegate: memory_size() bytes,
   * 16-byte aligned, zeroed; valid until the method is freed. */
  void *memory;
  size_t memory_size;
  etk_recorder_t *recorder; /* NULL when not tracing */
  char message[160];        /* set on failure */
} etk_backend_init_context_t;

typedef struct etk_backend_execute_context {
  const char *method_name;
  uint32_t delegate_index;
  etk_recorder_t *recorder; /* NULL when not tracing */
  char message[160];        /* set on failure */
} etk_backend_execute_context_t;

typedef struct etk_backend {
  const char *id; /* matched with BackendDelegate.id (strcmp) */
  /* Bytes of method memory one delegate with this payload needs (counted
   * into etk_method_memory_size); NULL = 0.  Must accept any bytes: return
   * 0 for payloads init() will reject. */
  size_t (*memory_size)(const uint8_t *payload, size_t len);
  /* Checks and prepares the payload (borrowed from the program, valid for
   * the method's life); sets *handle.  ETK_OK or an error + ctx->message. */
  int (*init)(etk_backend_init_context_t *ctx, const uint8_t *payload,
              size_t len, void **handle);
  /* Runs one DelegateCall: args are the instruction's values (inputs then
   * outputs, as the program lists them).  Must not allocate. */
  int (*execute)(etk_backend_execute_context_t *ctx, void *handle,
                 etk_value_t **args, size_t nargs);
  /* Releases what init acquired besides its method memory; may be NULL. */
  void (*destroy)(void *handle);
} etk_backend_t;

#define ETK_BACKEND_MAX 16

/* Registers `backend` (borrowed: must stay valid while registered).
 * ETK_E_INVALID_ARGUMENT (NULL, no id, no init/execute), ETK_E_INVALID_STATE
 * (the id is taken), ETK_E_FULL (ETK_BACKEND_MAX reached).  Not
 * thread-safe: register at start-up.  Built-in backends (a backend
 * library that is linked in, e.g. "EtkitMicroBackend") are available
 * without registering. */
int etk_backend_register(const etk_backend_t *backend);
/* Adds `backend` to the built-in table, searched after the registered
 * backends (a backend library calls this at start-up; registering the same
 * pointer twice is a no-op).  ETK_E_INVALID_ARGUMENT, ETK_E_FULL. */
int etk_backend_register_builtin(const etk_backend_t *backend);
/* Removes a registered backend (not the built-ins); ETK_E_NOT_FOUND. */
int etk_backend_unregister(const char *id);
/* The backend named `id` (registered ones first, then built-ins); NULL. */
const etk_backend_t *etk_backend_find(const char *id);

/* Tracing for backends.  A backend traces with the recorder API on
 * ctx->recorder, which is NULL when the method is not traced (every
 * recorder call accepts NULL and then records nothing):
 *   etk_recorder_begin_delegate() / etk_recorder_end_delegate() around an
 *   op, etk_recorder_log_delegate() for times the backend measured itself,
 *   etk_recorder_should_log(ctx->recorder, ETK_LOGGED_INTERMEDIATE_OUTPUT)
 *   before logging outputs (upstream leaves this check to each backend).
 * Delegate events take the DelegateCall's chain and instruction id from the
 * recorder's current state, which the executor sets around every
 * instruction.  The two helpers below add what the recorder cannot know. */

/* The recorder's clock (ticks for etk_recorder_log_delegate); 0 when not
 * tracing. */
uint64_t etk_backend_ticks(etk_backend_execute_context_t *ctx);
/* Logs a delegate intermediate output given as a runtime value (Tensor,
 * Int, Bool, Double, or a TensorList of at most 8 tensors resolved through
 * `values`) with string id `name`, or integer id `id` when name is NULL.
 * ETK_OK (also when not tracing), ETK_RECORDER_FILTERED, the recorder's
 * errors, ETK_E_INVALID_ARGUMENT (NULL value or tensor, bad list item),
 * ETK_E_LIMIT (longer list, or a list without `values`), ETK_E_UNSUPPORTED
 * (other value kinds). */
int etk_backend_log_output(etk_backend_execute_context_t *ctx, const char *name,
                           int32_t id, const etk_value_t *v,
                           const etk_value_t *values, size_t value_count);

/* --------------------------------------------------------------- methods */

typedef struct etk_method etk_method_t;

/* Where a method's memory comes from.  The arena holds every runtime
 * struct (values, tensors, argument lists, delegate state); planned
 * buffer k (memory_id k + 1) must hold the plan's non_const_buffer_sizes
 * [k + 1] bytes and be 16-byte aligned.  All memory is borrowed and must
 * outlive the method. */
typedef struct etk_method_config {
  void *arena;
  size_t arena_size; /* >= etk_method_memory_size() */
  void *const *planned_buffers;
  const size_t *planned_sizes;
  size_t planned_count;     /* == etk_method_planned_count() */
  etk_recorder_t *recorder; /* NULL: no tracing */
  /* Bound on instructions executed per execute() (cyclic jumps), 0 = the
   * default ETK_METHOD_DEFAULT_MAX_INSTRUCTIONS. */
  uint64_t max_instructions;
  /* 1: record no allocators or allocation events.  Upstream's runtime never
   * records them and upstream's Python Inspector stops on ETDumps that
   * contain them ("Unable to find populated event"); set this for dumps
   * meant for it.  0 (default): record them (etkit reads them). */
  int no_allocation_events;
  /* etk_method_load_alloc_with only: the most bytes it may allocate for the
   * method (arena plus planned buffers, which a program merely declares);
   * 0 = ETK_METHOD_DEFAULT_MAX_MEMORY.  A method needing more fails with
   * ETK_E_LIMIT before anything is allocated.  etk_method_load ignores it
   * (the caller's buffers are already there). */
  uint64_t max_memory;
} etk_method_config_t;

#define ETK_METHOD_DEFAULT_MAX_INSTRUCTIONS 10000000u
/* 1 GiB: the default bound on the memory etk_method_load_alloc allocates. */
#define ETK_METHOD_DEFAULT_MAX_MEMORY ((uint64_t)1 << 30)

/* Arena bytes etk_method_load() needs for `method_name` (NULL = first
 * method), including backend memory.  Fails like etk_method_load would on
 * an unknown method or backend. */
int etk_method_memory_size(const struct etk_program *program,
                           const char *method_name, size_t *arena_size,
                           struct etk_error *err);
/* Number of planned buffers and the size of buffer k (0-based). */
size_t etk_method_planned_count(const struct etk_program *program,
                                const char *method_name);
size_t etk_method_planned_size(const struct etk_program *program,
                               const char *method_name, size_t k);

/* Loads a method into caller memory (upstream Program::load_method +
 * Method::init).  Fails, naming the value, instruction, operator, dtype
 * or backend, on: an unknown method, unsupported tensors (non-zero
 * storage offset, unbound dynamic shapes, external data), buffers that are
 * missing or too small, an operator without kernel or with unsupported
 * dtypes, an unknown backend or a payload it rejects.  `program` must
 * outlive the method.  *out points into config->arena. */
int etk_method_load(const struct etk_program *program, const char *method_name,
                    const etk_method_config_t *config, etk_method_t **out,
                    struct etk_error *err);

/* Host convenience: mallocs the arena and planned buffers (freed by
 * etk_method_free) and loads.  `recorder` may be NULL.  At most
 * ETK_METHOD_DEFAULT_MAX_MEMORY bytes are allocated (else ETK_E_LIMIT). */
int etk_method_load_alloc(const struct etk_program *program,
                          const char *method_name, etk_recorder_t *recorder,
                          etk_method_t **out, struct etk_error *err);
/* The same with every etk_method_config_t setting except the memory ones
 * (arena and planned buffers are allocated here; those fields of `options`
 * are ignored; options->max_memory bounds their total).  `options` must not
 * be NULL. */
int etk_method_load_alloc_with(const struct etk_program *program,
                               const char *method_name,
                               const etk_method_config_t *options,
                               etk_method_t **out, struct etk_error *err);

/* Destroys the delegates and frees what etk_method_load_alloc allocated.
 * NULL is a no-op.  Host builds (src/runtime/host/). */
void etk_method_free(etk_method_t *method);

/* Ends a method loaded by etk_method_load into the caller's memory: its
 * delegates release what they hold; the arena and planned buffers stay
 * the caller's.  NULL is a no-op.  The no-heap core's counterpart of
 * etk_method_free. */
void etk_method_destroy(etk_method_t *method);

const char *etk_method_name(const etk_method_t *method);
size_t etk_method_input_count(const etk_method_t *method);
size_t etk_method_output_count(const etk_method_t *method);
/* The method's input/output values (NULL if out of range).  Inputs may be
 * read to learn the expected dtype and shape. */
const etk_value_t *etk_method_input(const etk_method_t *method, size_t i);
const etk_value_t *etk_method_output(const etk_method_t *method, size_t i);

/* Sets input i (upstream Method::set_input).  A Tensor input is described
 * by value->u.tensor: dtype and rank must match, sizes must equal (static)
 * or fit (dynamic bound) the program's; dim_order must match (an all-zero
 * dim_order means "the program's").  Planned inputs are copied into
 * planned memory; unplanned ones point at the caller's data (borrowed
 * until the next set_input).  Int/Bool/Double inputs are compared with the
 * value traced into the program, as upstream does.  ETK_E_INVALID_ARGUMENT
 * with a message otherwise. */
int etk_method_set_input(etk_method_t *method, size_t i,
                         const etk_value_t *value, struct etk_error *err);

/* Runs every chain once (upstream Method::execute).  Fails if an input was
 * never set, a kernel or delegate fails (its message is kept), a jump
 * condition is not a Bool, or more than max_instructions run. */
int etk_method_execute(etk_method_t *method, struct etk_error *err);

/* etk_recorder_calibrate (same arguments and errors) for a recorder this
 * executor will trace into, marking the figures adjacent_wrappers: each
 * KernelCall's OPERATOR_CALL holds its kernel's event with nothing of the
 * executor's between, so a reader can measure every run's own recorder
 * cost from the recorded times (etkit/compensation.h). */
int etk_method_calibrate(etk_recorder_t *rec, void *scratch,
                         size_t scratch_size, uint32_t repetitions,
                         etk_recorder_calibration_t *out);

/* Instructions executed by the last execute(). */
uint64_t etk_method_executed_instructions(const etk_method_t *method);

/* ------------------------------------------------------ bundled programs */

/* Loads inputs of bundled case `case_index` of this method's suite into
 * the method (upstream load_bundled_input) and sets the recorder's bundled
 * input index.  ETK_E_NOT_FOUND (no suite), ETK_E_INVALID_ARGUMENT (index
 * out of range, wrong input count), or set_input's errors. */
int etk_bundled_load_input(etk_method_t *method,
                           const struct etk_bundled_program *bp,
                           size_t case_index, struct etk_error *err);

/* Outcome of comparing a method's outputs with a case's expectations. */
typedef struct etk_bundled_result {
  uint32_t case_index;
  int status;           /* ETK_OK, ETK_E_MISMATCH, or the run's error */
  bool has_expected;    /* false: the case only has inputs */
  bool passed;          /* has_expected && every output matched */
  double max_abs_error; /* over all elements of all outputs */
  double max_rel_error; /* |a-b| / max(|a|, |b|, 1e-8) */
  double mean_abs_error, mean_rel_error;
  uint64_t elements; /* compared */
  char message[160]; /* first mismatch, or the error */
} etk_bundled_result_t;

/* Default tolerances of upstream verify_method_outputs. */
#define ETK_BUNDLED_DEFAULT_RTOL 1e-5
#define ETK_BUNDLED_DEFAULT_ATOL 1e-8

/* Compares the method's outputs with case `case_index` using upstream's
 * rules: dtype and sizes must be equal, strides must agree (checked, not
 * an abort), zero-byte tensors match, float/double/half elements match
 * when |expected - actual| <= atol + rtol * |actual| (NaN equals NaN,
 * infinities of one sign are equal, rtol = atol = 0 means exact), every
 * other dtype (integers, bool, bfloat16...) must be bytewise equal.  Fills
 * *result (error statistics computed per dtype) and returns ETK_OK or
 * ETK_E_MISMATCH. */
int etk_bundled_verify_outputs(const etk_method_t *method,
                               const struct etk_bundled_program *bp,
                               size_t case_index, double rtol, double atol,
                               etk_bundled_result_t *result,
                               struct etk_error *err);

/* Loads, runs and verifies every case of `method`'s suite; results[i] for
 * case i (results has room for the suite's case count).  Returns ETK_OK if
 * all ran and every case with expectations passed, ETK_E_MISMATCH if one
 * did not, or the first run error. */
int etk_bundled_run_all(etk_method_t *method,
                        const struct etk_bundled_program *bp, double rtol,
                        double atol, etk_bundled_result_t *results,
                        size_t result_capacity, struct etk_error *err);

/* ---------------------------------------------------------- trace sessions
 * A host recorder (arena and debug buffer on the heap) sized from a
 * method's plan so that `runs` executions drop nothing: what `etkit run`
 * and Python's etkit.run() trace into (src/runtime/trace_session.c). */

enum {
  ETK_TRACE_DEBUG_NONE = 0,          /* no values logged */
  ETK_TRACE_DEBUG_OUTPUTS = 1,       /* program outputs */
  ETK_TRACE_DEBUG_INTERMEDIATES = 2, /* every instruction's outputs */
  ETK_TRACE_DEBUG_STATS = 3          /* the same, tensors as STATS vectors
                                      * (ETK_DEBUG_LEVEL_STATS) */
};
enum {
  ETK_TRACE_PROFILE_METHOD = 0,
  ETK_TRACE_PROFILE_ALL = 1,
  /* every event, in the recorder's stats mode (a latency sketch per key at
   * 1% instead of every event: the arena no longer grows with `runs`) */
  ETK_TRACE_PROFILE_STATS = 2
};
/* Stats mode at another relative error: `ppm` parts per million (100 to
 * 200000; etkit/sketch.h), e.g. ETK_TRACE_PROFILE_STATS_AT(20000) for 2%. */
#define ETK_TRACE_PROFILE_STATS_AT(ppm) \
  (ETK_TRACE_PROFILE_STATS | ((int)(ppm) << 8))

typedef struct etk_trace_session {
  etk_recorder_t *rec; /* pass to etk_method_config_t.recorder */
  void *arena;
  uint8_t *debug_buffer; /* NULL without want_debug */
  size_t debug_capacity;
} etk_trace_session_t;

struct etk_program_plan;

/* Creates a recorder big enough for `runs` executions of `plan` (plus its
 * load) at `debug_level` (ETK_TRACE_DEBUG_*) and `profile_level`
 * (ETK_TRACE_PROFILE_*); with want_debug a debug buffer is attached, sized
 * for every tensor those runs log.  Errors: ETK_E_LIMIT (a trace above
 * 1 GiB or a debug buffer above 2 GiB), ETK_E_NO_MEMORY, the recorder's. */
int etk_trace_session_create(const struct etk_program_plan *plan, unsigned runs,
                             int debug_level, int profile_level, int want_debug,
                             etk_trace_session_t *out, struct etk_error *err);

/* Finishes the ETDump: *etdump and *etdump_len (owned by the session), the
 * used debug bytes (NULL/0 without a buffer) and the dropped-event count;
 * every output pointer may be NULL. */
int etk_trace_session_finish(etk_trace_session_t *s, const uint8_t **etdump,
                             size_t *etdump_len, const uint8_t **debug,
                             size_t *debug_len, uint32_t *dropped,
                             struct etk_error *err);

/* Frees the arena and debug buffer of a session made by
 * etk_trace_session_create; the session is zeroed (NULL: no-op).  Host
 * builds only (src/runtime/host/). */
void etk_trace_session_free(etk_trace_session_t *s);

/* The same session in the caller's memory (no heap: the firmware's way).
 * etk_trace_session_size gives the bytes the recorder arena and the debug
 * buffer need for `runs` executions (*debug_size is SIZE_MAX past 2 GiB);
 * etk_trace_session_start starts the recorder in arena[0..arena_size)
 * with `clock` (NULL: the host clock, host builds only) and,
 * when debug_buffer is not NULL, attaches it.  Too small a buffer fails
 * with one ETK_E_NO_MEMORY error naming both sizes, before anything runs.
 * Nothing needs freeing. */
int etk_trace_session_size(const struct etk_program_plan *plan, unsigned runs,
                           int debug_level, int profile_level,
                           size_t *arena_size, size_t *debug_size,
                           struct etk_error *err);
int etk_trace_session_start(const struct etk_program_plan *plan, unsigned runs,
                            int debug_level, int profile_level, void *arena,
                            size_t arena_size, uint8_t *debug_buffer,
                            size_t debug_size, etk_recorder_clock_fn clock,
                            void *clock_ctx, etk_trace_session_t *out,
                            struct etk_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_METHOD_H */
