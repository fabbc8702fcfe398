/*
 * recorder_fuzz.c - libFuzzer target: random bytes become a sequence of
 * recorder calls on small buffers; every finished dump must pass etkit's
 * verifier and fit its reservation.
 *
 * The first bytes choose the arena size (a few hundred bytes to 16 KiB),
 * whether the output goes to a separate small buffer, and the number of
 * string slots; every following byte is an opcode with operands taken from
 * the next bytes.  Nothing here may crash, trip a sanitizer, abort or
 * produce a dump the verifier rejects; a finish failing with anything but
 * the documented errors is a bug (abort()).
 *
 * Built as a libFuzzer target under ETKIT_BUILD_FUZZ, and replayed over
 * fuzz/recorder/corpus/ by the ctest test recorder_fuzz_replay.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/recorder.h"
#include "etkit/schema.h"

typedef struct input {
  const uint8_t *p;
  size_t n;
} input_t;

static uint8_t take8(input_t *in) {
  uint8_t v = 0;
  if (in->n) {
    v = *in->p++;
    in->n--;
  }
  return v;
}

static uint32_t take32(input_t *in) {
  uint32_t v = take8(in);
  v |= (uint32_t)take8(in) << 8;
  v |= (uint32_t)take8(in) << 16;
  v |= (uint32_t)take8(in) << 24;
  return v;
}

static uint64_t fuzz_now;
static uint64_t fuzz_clock(void *ctx) {
  (void)ctx;
  return fuzz_now += 3;
}

static const char *const names[] = {
    "OPERATOR_CALL",
    "native_call_add.out",
    "Method::execute",
    "Default",
    "Execute",
    "DELEGATE_CALL",
    "conv #1",
    "filtered_x",
    "",
    "a",
};

/* A name: one of the table, or up to 12 raw bytes (maybe not UTF-8). */
static const char *take_name(input_t *in, char *buf) {
  uint8_t c = take8(in);
  if (c < 200) return names[c % (sizeof names / sizeof names[0])];
  if (c < 220) return NULL;
  {
    size_t n = take8(in) % 12;
    for (size_t i = 0; i < n; i++) {
      buf[i] = (char)take8(in);
      if (buf[i] == 0) buf[i] = 'z';
    }
    buf[n] = 0;
    return buf;
  }
}

static void check_dump(etk_recorder_t *rec) {
  const uint8_t *out;
  size_t len;
  int status = etk_recorder_finish(rec, &out, &len);
  if (status == ETK_OK) {
    etk_fb_verify_options_t opt;
    uint32_t root;
    memset(&opt, 0, sizeof opt);
    opt.ident = ETK_ETDUMP_FILE_IDENTIFIER;
    opt.size_prefixed = 1;
    if (etk_fb_verify(out, len, &etk_etdump_schema, &opt, &root, NULL) !=
        ETK_OK)
      abort();
    if (len > etk_recorder_output_bound(rec)) abort();
  } else if (status != ETK_E_INVALID_STATE) {
    abort(); /* ETK_E_INTERNAL: a reservation bug */
  }
}

/* What one input drives: the recorder, its open scopes, the filter and
 * the buffer sink it may use, and room for a raw name. */
typedef struct fuzz_state {
  etk_recorder_t *rec;
  etk_recorder_scope_t stack[8];
  int depth;
  etk_filter_t filter;
  etk_buffer_sink_t sink;
  char namebuf[16];
} fuzz_state_t;

static uint8_t debug_mem[1024];
static uint8_t metadata[64];

/* The first bytes: arena size, string slots, maybe a separate output
 * buffer.  NULL when the recorder refuses the configuration. */
static etk_recorder_t *start_recorder(input_t *in) {
  static uint64_t arena[16384 / 8];
  static uint8_t output[8192];
  etk_recorder_config_t cfg;
  etk_recorder_t *rec;
  size_t arena_size;
  fuzz_now = 0;
  arena_size = 256u + (size_t)(take8(in) | (take8(in) << 8)) % 16000u;
  etk_recorder_config_init(&cfg);
  cfg.clock = fuzz_clock;
  cfg.max_strings = take8(in) % 40u;
  if (take8(in) & 1u) {
    cfg.output = output;
    cfg.output_capacity = 64u + take32(in) % (sizeof output - 64u);
  }
  memset(arena, 0xEE, sizeof arena);
  if (etk_recorder_init(&rec, arena, arena_size, &cfg) != ETK_OK) return NULL;
  return rec;
}

/* Opcodes 3, 4, 5, 8 and 20: open a scope (up to eight stay open). */
static void open_scope(fuzz_state_t *s, uint8_t op, input_t *in) {
  etk_recorder_t *rec = s->rec;
  if (s->depth >= 8) return;
  if (op == 3 || op == 4) {
    etk_recorder_name_t id = take8(in) % 12u;
    s->stack[s->depth++] =
        op == 3 ? etk_recorder_begin(rec, id)
                : etk_recorder_begin_at(rec, id, (int8_t)take8(in), take8(in));
  } else if (op == 5) {
    s->stack[s->depth++] = etk_recorder_begin_named(
        rec, take_name(in, s->namebuf), (int8_t)take8(in), take8(in));
  } else if (op == 8) {
    const char *n = take_name(in, s->namebuf);
    s->stack[s->depth++] = etk_recorder_begin_delegate(
        rec, n, (take8(in) & 1u) ? (int32_t)take8(in) : -1);
  } else {
    s->stack[s->depth++] = etk_recorder_begin_op(rec, take8(in) % 4u);
  }
}

/* Opcodes 6, 7 and 21: end the innermost open scope. */
static void close_scope(fuzz_state_t *s, uint8_t op, input_t *in) {
  if (s->depth == 0) return;
  s->depth--;
  if (op == 21)
    etk_recorder_end_op(s->rec, &s->stack[s->depth]);
  else if (take8(in) & 1u)
    etk_recorder_end(s->rec, &s->stack[s->depth]);
  else
    etk_recorder_end_delegate(s->rec, &s->stack[s->depth], metadata,
                              take8(in) % sizeof metadata);
}

/* Opcodes 10 and 11: an int, double or bool, logged as a value (10) or as
 * a delegate's value (11). */
static void log_scalar(fuzz_state_t *s, uint8_t op, input_t *in) {
  etk_recorder_value_t v;
  uint8_t k = take8(in) % 3u;
  v = k == 0   ? etk_value_int((int64_t)take32(in) << 20)
      : k == 1 ? etk_value_double((double)take32(in) / 7.0)
               : etk_value_bool(take8(in) & 1u);
  if (op == 10)
    etk_recorder_log_value(s->rec, &v, (etk_logged_type_t)(take8(in) % 3u));
  else {
    const char *n = take_name(in, s->namebuf);
    etk_recorder_log_delegate_value(
        s->rec, n, (take8(in) & 1u) ? (int32_t)take8(in) : -1, &v);
  }
}

/* Opcodes 12 and 13: one to three tensors of any dtype, dims, strides and
 * byte count, logged as a tensor or a list, directly or by a delegate. */
static void log_tensors(fuzz_state_t *s, uint8_t op, input_t *in) {
  static int64_t dims[2][ETK_RECORDER_MAX_DIMS];
  static uint8_t tensor_bytes[256];
  etk_recorder_tensor_t t[3];
  etk_recorder_value_t v;
  size_t count = 1u + take8(in) % 3u;
  for (size_t i = 0; i < sizeof tensor_bytes; i++) tensor_bytes[i] = (uint8_t)i;
  for (size_t i = 0; i < count; i++) {
    uint32_t dim = take8(in) % 5u;
    memset(&t[i], 0, sizeof t[i]);
    t[i].scalar_type = take8(in) % 30u;
    t[i].dim = dim;
    for (uint32_t d = 0; d < dim; d++) {
      dims[0][d] = (int64_t)(int8_t)take8(in);
      dims[1][d] = take8(in);
    }
    t[i].sizes = dims[0];
    t[i].strides = (take8(in) & 1u) ? dims[1] : NULL;
    t[i].nbytes = take8(in) % 4u == 0 ? 0 : take8(in);
    t[i].data = t[i].nbytes ? tensor_bytes : NULL;
  }
  v = (op == 12 && count == 1) ? etk_value_tensor(t)
                               : etk_value_tensor_list(t, count);
  if (take8(in) & 1u)
    etk_recorder_log_value(s->rec, &v, (etk_logged_type_t)(take8(in) & 1u));
  else
    etk_recorder_log_delegate_value(s->rec, take_name(in, s->namebuf),
                                    (take8(in) & 1u) ? 5 : -1, &v);
}

/* Opcode 22: a debug buffer, a buffer sink, or no sink. */
static void set_sink(fuzz_state_t *s, input_t *in) {
  uint8_t k = take8(in) % 3u;
  if (k == 0) {
    etk_recorder_set_debug_buffer(s->rec, debug_mem,
                                  take8(in) * 4u % sizeof debug_mem);
  } else if (k == 1) {
    etk_data_sink_t ds;
    etk_buffer_sink_init(&s->sink, debug_mem, take8(in) * 4u,
                         (size_t)1 << (take8(in) % 8u));
    ds = etk_buffer_sink_as_data_sink(&s->sink);
    etk_recorder_set_data_sink(s->rec, &ds);
  } else {
    etk_recorder_set_data_sink(s->rec, NULL);
  }
}

/* Opcode 19: a filter of one more pattern and a range, or none. */
static void set_filter(fuzz_state_t *s, input_t *in) {
  if (take8(in) & 1u) {
    etk_filter_add_pattern(&s->filter, take_name(in, s->namebuf));
    etk_filter_set_range(&s->filter, take8(in), take8(in));
    etk_recorder_set_filter(s->rec, &s->filter);
  } else {
    etk_recorder_set_filter(s->rec, NULL);
  }
}

/* Opcode 25: a scope by mark (name id, chain and handle from the input),
 * ended once or twice (the second end must be refused). */
static void mark_scope(fuzz_state_t *s, input_t *in) {
  etk_recorder_mark_t m = etk_recorder_begin_mark(s->rec);
  etk_recorder_name_t name = take8(in) % 24u;
  int32_t chain = (int8_t)take8(in);
  uint32_t handle = take8(in);
  int twice = take8(in) & 1u;
  int status = etk_recorder_end_mark(s->rec, name, chain, handle, m);
  if (twice && status == ETK_OK && m.serial != 0 &&
      etk_recorder_end_mark(s->rec, name, chain, handle, m) == ETK_OK)
    abort(); /* a second end recorded a second event */
}

/* One opcode (0..25) with its operands. */
static void run_op(fuzz_state_t *s, uint8_t op, input_t *in) {
  etk_recorder_t *rec = s->rec;
  switch (op) {
    case 0: {
      const char *n = take_name(in, s->namebuf);
      etk_recorder_begin_block(rec, n);
      break;
    }
    case 1:
      etk_recorder_track_allocator(rec, take_name(in, s->namebuf), NULL);
      break;
    case 2:
      etk_recorder_track_allocation(rec, take8(in), take32(in));
      break;
    case 3:
    case 4:
    case 5:
    case 8:
    case 20:
      open_scope(s, op, in);
      break;
    case 6:
    case 7:
    case 21:
      close_scope(s, op, in);
      break;
    case 9: {
      const char *n = take_name(in, s->namebuf);
      int32_t idx = (take8(in) & 1u) ? (int32_t)take32(in) : -1;
      etk_recorder_log_delegate(rec, n, idx, take32(in), take32(in), metadata,
                                take8(in) % sizeof metadata);
      break;
    }
    case 10:
    case 11:
      log_scalar(s, op, in);
      break;
    case 12:
    case 13:
      log_tensors(s, op, in);
      break;
    case 14:
      etk_recorder_set_chain_debug_handle(rec, (int8_t)take8(in), take8(in));
      break;
    case 15:
      etk_recorder_set_bundled_input_index(rec, (int8_t)take8(in));
      break;
    case 16:
      check_dump(rec);
      break;
    case 17:
      etk_recorder_set_debug_level(rec, (etk_debug_level_t)(take8(in) % 3u));
      etk_recorder_set_profiling_level(rec,
                                       (etk_profiling_level_t)(take8(in) % 2u));
      break;
    case 18:
      etk_recorder_intern(rec, take_name(in, s->namebuf));
      break;
    case 19:
      set_filter(s, in);
      break;
    case 22:
      set_sink(s, in);
      break;
    case 24: /* a ring's step: discard the oldest events when full */
      etk_recorder_discard_oldest(rec, take8(in), take8(in) & 1u);
      break;
    case 25:
      mark_scope(s, in);
      break;
    default: {
      etk_recorder_stats_t st;
      etk_recorder_stats(rec, &st);
      if (st.output_reserved != etk_recorder_output_bound(rec)) abort();
      break;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fuzz_state_t s;
  input_t in;
  in.p = data;
  in.n = size;
  memset(&s, 0, sizeof s);
  s.rec = start_recorder(&in);
  if (s.rec == NULL) return 0;
  etk_filter_init(&s.filter);
  while (in.n > 0) run_op(&s, take8(&in) % 26u, &in);
  check_dump(s.rec);
  /* a second finish rebuilds the same dump */
  check_dump(s.rec);
  return 0;
}
