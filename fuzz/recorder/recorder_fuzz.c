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

/* Logs a scalar value: as a program value (`program`) or a delegate's. */
static void fuzz_scalar(etk_recorder_t *rec, input_t *in, int program,
                        char *namebuf) {
  etk_recorder_value_t v;
  uint8_t k = take8(in) % 3u;
  v = k == 0   ? etk_value_int((int64_t)take32(in) << 20)
      : k == 1 ? etk_value_double((double)take32(in) / 7.0)
               : etk_value_bool(take8(in) & 1u);
  if (program)
    etk_recorder_log_value(rec, &v, (etk_logged_type_t)(take8(in) % 3u));
  else {
    const char *n = take_name(in, namebuf);
    etk_recorder_log_delegate_value(
        rec, n, (take8(in) & 1u) ? (int32_t)take8(in) : -1, &v);
  }
}

static int64_t dims[2][ETK_RECORDER_MAX_DIMS];
static uint8_t tensor_bytes[256];

/* Logs one to three tensors (a single tensor when `single` and the count
 * is one, else a list), as a program value or a delegate's. */
static void fuzz_tensors(etk_recorder_t *rec, input_t *in, int single,
                         char *namebuf) {
  etk_recorder_tensor_t t[3];
  etk_recorder_value_t v;
  size_t count = 1u + take8(in) % 3u;
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
  v = (single && count == 1) ? etk_value_tensor(t)
                             : etk_value_tensor_list(t, count);
  if (take8(in) & 1u)
    etk_recorder_log_value(rec, &v, (etk_logged_type_t)(take8(in) & 1u));
  else
    etk_recorder_log_delegate_value(rec, take_name(in, namebuf),
                                    (take8(in) & 1u) ? 5 : -1, &v);
}

static uint8_t debug_mem[1024];
static etk_buffer_sink_t sink;

/* Sets the debug buffer, a buffer sink over it, or no sink. */
static void fuzz_sink(etk_recorder_t *rec, input_t *in) {
  uint8_t k = take8(in) % 3u;
  if (k == 0) {
    etk_recorder_set_debug_buffer(rec, debug_mem,
                                  take8(in) * 4u % sizeof debug_mem);
  } else if (k == 1) {
    etk_data_sink_t ds;
    etk_buffer_sink_init(&sink, debug_mem, take8(in) * 4u,
                         (size_t)1 << (take8(in) % 8u));
    ds = etk_buffer_sink_as_data_sink(&sink);
    etk_recorder_set_data_sink(rec, &ds);
  } else {
    etk_recorder_set_data_sink(rec, NULL);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static uint64_t arena[16384 / 8];
  static uint8_t output[8192];
  static uint8_t metadata[64];
  input_t in;
  etk_recorder_config_t cfg;
  etk_recorder_t *rec;
  etk_recorder_scope_t stack[8];
  int depth = 0;
  etk_filter_t filter;
  char namebuf[16];
  size_t arena_size;
  in.p = data;
  in.n = size;
  fuzz_now = 0;
  arena_size = 256u + (size_t)(take8(&in) | (take8(&in) << 8)) % 16000u;
  etk_recorder_config_init(&cfg);
  cfg.clock = fuzz_clock;
  cfg.max_strings = take8(&in) % 40u;
  if (take8(&in) & 1u) {
    cfg.output = output;
    cfg.output_capacity = 64u + take32(&in) % (sizeof output - 64u);
  }
  memset(arena, 0xEE, sizeof arena);
  if (etk_recorder_init(&rec, arena, arena_size, &cfg) != ETK_OK) return 0;
  etk_filter_init(&filter);
  for (size_t i = 0; i < sizeof tensor_bytes; i++) tensor_bytes[i] = (uint8_t)i;

  while (in.n > 0) {
    uint8_t op = take8(&in);
    switch (op % 24u) {
      case 0: {
        const char *n = take_name(&in, namebuf);
        etk_recorder_begin_block(rec, n);
        break;
      }
      case 1:
        etk_recorder_track_allocator(rec, take_name(&in, namebuf), NULL);
        break;
      case 2:
        etk_recorder_track_allocation(rec, take8(&in), take32(&in));
        break;
      case 3:
      case 4:
        if (depth < 8) {
          etk_recorder_name_t id = take8(&in) % 12u;
          stack[depth++] = op % 24u == 3
                               ? etk_recorder_begin(rec, id)
                               : etk_recorder_begin_at(
                                     rec, id, (int8_t)take8(&in), take8(&in));
        }
        break;
      case 5:
        if (depth < 8)
          stack[depth++] = etk_recorder_begin_named(
              rec, take_name(&in, namebuf), (int8_t)take8(&in), take8(&in));
        break;
      case 6:
      case 7:
        if (depth > 0) {
          depth--;
          if (take8(&in) & 1u)
            etk_recorder_end(rec, &stack[depth]);
          else
            etk_recorder_end_delegate(rec, &stack[depth], metadata,
                                      take8(&in) % sizeof metadata);
        }
        break;
      case 8:
        if (depth < 8) {
          const char *n = take_name(&in, namebuf);
          stack[depth++] = etk_recorder_begin_delegate(
              rec, n, (take8(&in) & 1u) ? (int32_t)take8(&in) : -1);
        }
        break;
      case 9: {
        const char *n = take_name(&in, namebuf);
        int32_t idx = (take8(&in) & 1u) ? (int32_t)take32(&in) : -1;
        etk_recorder_log_delegate(rec, n, idx, take32(&in), take32(&in),
                                  metadata, take8(&in) % sizeof metadata);
        break;
      }
      case 10:
      case 11:
        fuzz_scalar(rec, &in, op % 24u == 10, namebuf);
        break;
      case 12:
      case 13:
        fuzz_tensors(rec, &in, op % 24u == 12, namebuf);
        break;
      case 14:
        etk_recorder_set_chain_debug_handle(rec, (int8_t)take8(&in),
                                            take8(&in));
        break;
      case 15:
        etk_recorder_set_bundled_input_index(rec, (int8_t)take8(&in));
        break;
      case 16:
        check_dump(rec);
        break;
      case 17:
        etk_recorder_set_debug_level(rec, (etk_debug_level_t)(take8(&in) % 3u));
        etk_recorder_set_profiling_level(
            rec, (etk_profiling_level_t)(take8(&in) % 2u));
        break;
      case 18:
        etk_recorder_intern(rec, take_name(&in, namebuf));
        break;
      case 19:
        if (take8(&in) & 1u) {
          etk_filter_add_pattern(&filter, take_name(&in, namebuf));
          etk_filter_set_range(&filter, take8(&in), take8(&in));
          etk_recorder_set_filter(rec, &filter);
        } else {
          etk_recorder_set_filter(rec, NULL);
        }
        break;
      case 20:
        if (depth < 8)
          stack[depth++] = etk_recorder_begin_op(rec, take8(&in) % 4u);
        break;
      case 21:
        if (depth > 0) {
          depth--;
          etk_recorder_end_op(rec, &stack[depth]);
        }
        break;
      case 22:
        fuzz_sink(rec, &in);
        break;
      default: {
        etk_recorder_stats_t st;
        etk_recorder_stats(rec, &st);
        if (st.output_reserved != etk_recorder_output_bound(rec)) abort();
        break;
      }
    }
  }
  check_dump(rec);
  /* a second finish rebuilds the same dump */
  check_dump(rec);
  return 0;
}
