/*
 * make_oracle_dumps.c - writes the ETDumps (and one ETRecord) that
 * oracle.py feeds both to `etkit inspect` and, decoded independently with
 * flatc, to pandas + tabulate.
 *
 *   make_oracle_dumps OUT_DIR
 *
 * Each file aims at one family of formatting rules (see the comment above
 * each builder); durations are chosen so that the statistics land on the
 * boundaries where Python's repr() and format(x, "g") change layout, or
 * need 16-17 significant digits.  Everything is deterministic (a fixed
 * splitmix64 seed), so a failure reproduces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../etdump/etdump_writer.h"
#include "etkit/etrecord.h"

static uint64_t rng_state = 0x0123456789abcdefULL;

static uint64_t rng(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void delegated(etw_t *w, int32_t iid, int32_t dint, const char *dstr,
                      const char *meta, size_t meta_len, uint64_t start,
                      uint64_t end) {
  etw_profile_t p = {.iid = iid,
                     .dint = dstr ? ETW_NO_ID : dint,
                     .dstr = dstr,
                     .meta = (const uint8_t *)meta,
                     .meta_len = (uint32_t)meta_len,
                     .meta_present = meta != NULL,
                     .start = start,
                     .end = end};
  etw_profile(w, &p);
}

/* A debug event holding an Int (no debug buffer needed). */
static void debug_int(etw_t *w, int32_t iid, int32_t dint, const char *name,
                      int64_t v) {
  etw_debug_t d = {.iid = iid,
                   .dint = dint,
                   .name = name,
                   .kind = ETW_VALUE_INT,
                   .int_value = v,
                   .output = -1};
  etw_debug(w, &d);
}

static int save(etw_t *w, const char *dir, const char *name) {
  size_t n = 0;
  const uint8_t *b = etw_finish(w, &n);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int rc = b ? etw_write_file(path, b, n) : 1;
  etw_free(w);
  if (rc) fprintf(stderr, "make_oracle_dumps: cannot write %s\n", path);
  return rc;
}

/* A new writer of `cap` bytes with its first run (block `name`) begun;
 * NULL when out of memory. */
static etw_t *writer_with_run(size_t cap, const char *name,
                              int bundled_input_index) {
  etw_t *w = etw_new(cap);
  if (w) etw_run_begin(w, name, bundled_input_index);
  return w;
}

/* Ends the writer's open run, then save(). */
static int end_run_and_save(etw_t *w, const char *dir, const char *name) {
  etw_run_end(w);
  return save(w, dir, name);
}

/* Four identical Execute runs (merged into one block of 4 samples) plus a
 * Default block: percentiles and means of random durations need 16-17
 * digits; a fifth run of another shape makes a second Execute block. */
static int digits(const char *dir) {
  etw_t *w = writer_with_run(1 << 20, "Default", -1);
  if (!w) return 1;
  etw_profile_simple(w, "Method::init", -1, 0, 5, 22489);
  etw_profile_simple(w, "Program::load_method", -1, 0, 1, 24858);
  etw_run_end(w);
  for (int run = 0; run < 4; run++) {
    etw_run_begin(w, "Execute", -1);
    uint64_t t = 1000;
    for (int32_t i = 0; i < 40; i++) {
      char name[64];
      snprintf(name, sizeof name, "native_call_op%d.out", i % 7);
      uint64_t scale = (uint64_t)1 << (rng() % 34);
      uint64_t d = 1 + rng() % scale;
      etw_profile_simple(w, name, 0, i, t, t + d);
      etw_profile_simple(w, "OPERATOR_CALL", 0, i, t, t + d + rng() % 100);
      t += d + 200;
    }
    etw_profile_simple(w, "Method::execute", -1, 0, 500, t + 77);
    etw_run_end(w);
  }
  etw_run_begin(w, "Execute", -1);
  etw_profile_simple(w, "native_call_other.out", 0, 0, 3, 3 + 1234567);
  etw_profile_simple(w, "Method::execute", -1, 0, 1, 2000000);
  return end_run_and_save(w, dir, "digits.etdp");
}

/* One event per duration: the durations sit on the repr/"g" boundaries
 * for the unit conversions the cases use (ns -> ms/us/s/ns, s -> ns). */
static int boundaries(const char *dir) {
  static const uint64_t durations[] = {0,
                                       1,
                                       9,
                                       10,
                                       11,
                                       99,
                                       100,
                                       101,
                                       999,
                                       1000,
                                       1001,
                                       12345,
                                       99999,
                                       100000,
                                       999999,
                                       1000000,
                                       1000001,
                                       9999999,
                                       123456789,
                                       999999499,
                                       999999500,
                                       999999999,
                                       1000000000,
                                       1234565000,
                                       1234575000,
                                       123456789012ULL,
                                       999999499999ULL,
                                       999999500000ULL,
                                       1000000000000ULL,
                                       10000000000000ULL,
                                       99999999999999ULL,
                                       1000000000000000ULL,
                                       9999999999999999ULL,
                                       10000000000000000ULL,
                                       12345678901234567ULL,
                                       9007199254740993ULL,
                                       0x7fffffffffffffffULL,
                                       0xffffffffffffffffULL};
  etw_t *w = writer_with_run(1 << 20, "Execute", -1);
  if (!w) return 1;
  for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
    char name[64];
    snprintf(name, sizeof name, "d_%llu", (unsigned long long)durations[i]);
    uint64_t start = durations[i] > 1000 ? 0 : 7;
    etw_profile_simple(w, name, 0, (int32_t)i, start, start + durations[i]);
  }
  etw_run_end(w);
  /* Three runs of one event: p10/p90 interpolate, the mean divides by 3 */
  for (int run = 0; run < 3; run++) {
    etw_run_begin(w, "Repeat", -1);
    static const uint64_t a[3] = {1, 2, 4}, b[3] = {999999, 1000000, 1000003};
    etw_profile_simple(w, "small", 0, 0, 0, a[run]);
    etw_profile_simple(w, "near_million", 0, 1, 0, b[run]);
    etw_profile_simple(w, "third", 0, 2, 0, (uint64_t)(run == 0 ? 10 : 20));
    etw_run_end(w);
  }
  return save(w, dir, "boundaries.etdp");
}

/* Debug-only instructions between profiled ones (NaN statistics when the
 * frame has perf data), a debug-only block, and debug names. */
static int nan_mixed(const char *dir) {
  etw_t *w = writer_with_run(1 << 16, "Execute", -1);
  if (!w) return 1;
  etw_profile_simple(w, "native_call_add.out", 0, 0, 100, 150);
  debug_int(w, 0, -1, NULL, 1);
  debug_int(w, 1, -1, NULL, 2);          /* unnamed debug-only event */
  debug_int(w, 2, -1, "named_debug", 3); /* named debug-only event */
  debug_int(w, 3, 9, NULL, 4);           /* delegated debug-only: "9" */
  debug_int(w, 4, -1, NULL, 5);
  debug_int(w, 4, -1, NULL, 6);
  etw_profile_simple(w, "native_call_mul.out", 0, 5, 200, 1200);
  etw_run_end(w);
  etw_run_begin(w, "Debug only", -1);
  debug_int(w, 0, -1, "only", 7);
  return end_run_and_save(w, dir, "nan_mixed.etdp");
}

/* No profile event at all: every statistic is None (empty cells). */
static int nan_only(const char *dir) {
  etw_t *w = writer_with_run(1 << 16, "Execute", -1);
  if (!w) return 1;
  debug_int(w, 0, -1, NULL, 1);
  debug_int(w, 1, -1, "dbg", 2);
  debug_int(w, 2, -1, "x", 3);
  return end_run_and_save(w, dir, "nan_only.etdp");
}

static int names_file(const char *dir, const char *file, const char *block,
                      const char *const *names, size_t count) {
  etw_t *w = writer_with_run(1 << 20, block, -1);
  if (!w) return 1;
  for (size_t i = 0; i < count; i++)
    etw_profile_simple(w, names[i], 0, (int32_t)i, 1000 * i,
                       1000 * i + 7 + 13 * i);
  return end_run_and_save(w, dir, file);
}

/* Wide and combining characters, emoji, right-to-left text, long names,
 * Unicode spaces that str.strip() removes. */
static int unicode_names(const char *dir) {
  char longname[400];
  memset(longname, 'x', sizeof longname - 1);
  memcpy(longname, "very_long_", 10);
  longname[sizeof longname - 1] = 0;
  const char *const names[] = {
      "\xe5\x8d\xb7\xe7\xa7\xaf_\xe5\xb1\x82", /* CJK */
      "\xef\xbc\xa1\xef\xbc\xa2\xef\xbc\xa3",  /* fullwidth ABC */
      "e\xcc\x81"
      "e\xcc\x81"
      "e\xcc\x81",                                    /* combining */
      "\xf0\x9f\x9a\x80_rocket",                      /* emoji */
      "\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb", /* ZWJ sequence */
      "\xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a",             /* Arabic */
      "\xc2\xa0nbsp_padded\xc2\xa0",                  /* U+00A0 */
      "\xe3\x80\x80ideographic_space\xe3\x80\x80",    /* U+3000 */
      "\xe2\x80\x83"
      "em_space",              /* U+2003 */
      "zero\xe2\x80\x8bwidth", /* U+200B */
      "  two_spaces  ",
      "\xe2\x80\xa8line_sep", /* U+2028 */
      "\xc2\x85next_line",    /* U+0085 */
      longname,
      "\xce\xb1\xce\xb2\xce\xb3 \xd0\xb0\xd0\xb1\xd0\xb2", /* Greek, Cyrillic */
      "\xf0\x9d\x94\x98\xf0\x9d\x94\xab",                  /* math letters */
  };
  return names_file(dir, "unicode.etdp", "\xe5\x9d\x97 block \xf0\x9f\x93\xa6",
                    names, sizeof names / sizeof names[0]);
}

/* Characters every delimited or boxed format must handle. */
static int hostile_names(const char *dir) {
  const char *const names[] = {
      "tab\there",
      "new\nline",
      "crlf\r\nline",
      "bare\rcr",
      "quote\"d",
      "it's",
      "both'\"",
      "comma,name",
      "back\\slash",
      "\"leading quote",
      "trailing quote\"",
      "\x1b[1mbold\x1b[0m",
      "bidi\xe2\x80\xae"
      "evil",
      "del\x7f",
      "c1\xc2\x9b"
      "csi",
      "bell\x07",
      "\t5",
      "5\n",
      "'quoted'",
      "[list]",
      "{'a': 1}",
      "None",
      "nan_name",
      "b'bytes'",
  };
  return names_file(dir, "hostile.etdp", "host\tile \"block\"", names,
                    sizeof names / sizeof names[0]);
}

/* Names that Python's int()/float() accept: tabulate types the column by
 * them.  Mixed with text (a text column), then columns made only of
 * numbers (float, int) or of True/False. */
static int numeric_names(const char *dir) {
  const char *const mixed[] = {
      "12",   "-3",    "1e3",  "nan",  "inf",    "Infinity", "1_000", " 42 ",
      "True", "False", "0x10", "1.5",  ".5",     "5.",       "1e",    "+7",
      "1__0", "_1",    "NaN",  "-inf", "1.0e-7", "text"};
  const char *const floats[] = {
      "1",       "2.5",    "1e3", "-7",  "nan",  "0.000123456789", "123456789",
      "1_5.2_5", " 3.25 ", "-0",  "inf", "1e-5", "12345678.9"};
  const char *const ints[] = {"007", "-12", "1_000",
                              "+5",  " 3 ", "123456789012345678901234567890",
                              "0"};
  const char *const bools[] = {"True", "False", "True"};
  int rc = names_file(dir, "numeric_mixed.etdp", "Execute", mixed,
                      sizeof mixed / sizeof mixed[0]);
  rc |= names_file(dir, "numeric_floats.etdp", "Execute", floats,
                   sizeof floats / sizeof floats[0]);
  rc |= names_file(dir, "numeric_ints.etdp", "12", ints,
                   sizeof ints / sizeof ints[0]);
  rc |= names_file(dir, "numeric_bools.etdp", "True", bools,
                   sizeof bools / sizeof bools[0]);
  return rc;
}

/* Delegated events with int and str ids, metadata bytes of every kind,
 * three runs (lists of three), a DELEGATE_CALL, and a second block whose
 * events have no metadata (NaN in the metadata column). */
static int delegates(const char *dir) {
  etw_t *w = etw_new(1 << 20);
  if (!w) return 1;
  static const char *const metas[3] = {"m'1", "m\"2\\", "\x00\xff\t\n"};
  for (int run = 0; run < 3; run++) {
    uint64_t o = (uint64_t)run * 7;
    etw_run_begin(w, "Execute", -1);
    etw_profile_simple(w, "native_call_add.out", 0, 0, 100, 131 + o);
    etw_profile_simple(w, "OPERATOR_CALL", 0, 0, 90, 140 + o);
    delegated(w, 1, 0, NULL, metas[run], run == 2 ? 4 : strlen(metas[run]), 200,
              231 + o);
    delegated(w, 1, 10, NULL, NULL, 0, 240, 250 + o);
    delegated(w, 1, -1, "conv_fused", "", 0, 260, 263);
    delegated(w, 1, -1, "12", "both'\"", 6, 270, 290 + o);
    delegated(w, 1, -1, "linear #1", run ? "x" : "", run ? 1 : 0, 300, 333 + o);
    etw_profile_simple(w, "DELEGATE_CALL", 0, 1, 190, 400 + o);
    etw_profile_simple(w, "Method::execute", -1, 0, 80, 500 + o);
    etw_run_end(w);
  }
  etw_run_begin(w, "Second", -1);
  delegated(w, 0, 3, NULL, NULL, 0, 10, 20);
  etw_profile_simple(w, "plain", 0, 1, 30, 45);
  return end_run_and_save(w, dir, "delegates.etdp");
}

/* Only delegated int ids: the event_name column is an int column. */
static int delegated_ids_only(const char *dir) {
  etw_t *w = writer_with_run(1 << 16, "Execute", -1);
  if (!w) return 1;
  delegated(w, 1, 0, NULL, NULL, 0, 100, 110);
  delegated(w, 1, 10, NULL, NULL, 0, 110, 125);
  delegated(w, 1, 123456, NULL, NULL, 0, 125, 126);
  delegated(w, 2, 7, NULL, NULL, 0, 200, 260);
  return end_run_and_save(w, dir, "delegated_ids.etdp");
}

/* Block names: absent, empty, numeric, repeated with another shape, and
 * bundled input indices that split identical runs. */
static int block_names(const char *dir) {
  etw_t *w = writer_with_run(1 << 16, NULL, -1);
  if (!w) return 1;
  etw_profile_simple(w, "in_unnamed", 0, 0, 0, 5);
  etw_run_end(w);
  etw_run_begin(w, "", -1);
  etw_profile_simple(w, "in_empty", 0, 0, 0, 6);
  etw_run_end(w);
  for (int k = 0; k < 3; k++) {
    etw_run_begin(w, "7", k == 2 ? 1 : 0);
    etw_profile_simple(w, "op", 0, 0, 0, 10 + (uint64_t)k);
    etw_run_end(w);
  }
  etw_run_begin(w, "   spaced block   ", -1);
  etw_profile_simple(w, "x", 0, 0, 0, 1);
  return end_run_and_save(w, dir, "block_names.etdp");
}

/* Many rows over several blocks: width computation over thousands of
 * cells, names of every length, durations of every magnitude. */
static int many_rows(const char *dir) {
  etw_t *w = etw_new(1 << 22);
  if (!w) return 1;
  for (int block = 0; block < 3; block++) {
    char bname[32];
    snprintf(bname, sizeof bname, "block_%d", block);
    for (int run = 0; run < 2; run++) {
      etw_run_begin(w, bname, block == 2 ? run : -1);
      uint64_t t = 0;
      for (int32_t i = 0; i < 700; i++) {
        char name[96];
        int len = 1 + (int)((unsigned)(i * 37 + block) % 60);
        int n = snprintf(name, sizeof name, "op%d_", i);
        for (; n < len && n < (int)sizeof name - 1; n++)
          name[n] = (char)('a' + (i + n) % 26);
        name[n] = 0;
        uint64_t d = rng() % ((uint64_t)1 << (1 + (unsigned)i % 40));
        etw_profile_simple(w, name, 0, i, t, t + d);
        t += d;
      }
      etw_run_end(w);
    }
  }
  return save(w, dir, "many_rows.etdp");
}

/* Wrap-around timestamps (32-bit counters). */
static int wrap(const char *dir) {
  etw_t *w = writer_with_run(1 << 16, "Execute", -1);
  if (!w) return 1;
  etw_profile_simple(w, "wrapped", 0, 0, 4294967290u, 5);
  etw_profile_simple(w, "normal", 0, 1, 100, 200);
  return end_run_and_save(w, dir, "wrap.etdp");
}

/* ETRecord linking: a DELEGATE_CALL covering six nodes (op_types printed
 * as the truncated string), instructions with one to four op types, an op
 * name with a quote (repr picks double quotes), and a delegated event. */
#define EDGE "executorch.exir.dialects.edge.ops.aten."
static const char *const kOut[] = {"out"};
#define NODE(nm, tgt, handle)                                           \
  {                                                                     \
    .name = nm, .target = tgt, .debug_handle = handle, .outputs = kOut, \
    .output_count = 1                                                   \
  }
static const etk_etrecord_node_desc_t kNodes[] = {
    NODE("add", EDGE "add.Tensor", 1),
    NODE("mm", EDGE "mm.default", 2),
    NODE("relu", EDGE "relu.default", 3),
    NODE("sub", EDGE "sub.Tensor", 4),
    NODE("mul", EDGE "mul.Tensor", 5),
    NODE("div", EDGE "div.Tensor", 6),
    NODE("quote", EDGE "it's.default", 7),
    NODE("uni", EDGE "\xe5\x8d\xb7\xe7\xa7\xaf.default", 8),
    NODE("tanh", EDGE "tanh.default", 9),
};
static const int64_t kH1[] = {1}, kH12[] = {1, 2}, kH1234[] = {1, 2, 3, 4},
                     kH_all[] = {1, 2, 3, 4, 5, 6}, kH7[] = {7},
                     kH78[] = {7, 8, 9, 7, 8};
static const etk_etrecord_handle_desc_t kHandles[] = {
    {0, kH1, 1, false},   {1, kH12, 2, true}, {2, kH1234, 4, true},
    {3, kH_all, 6, true}, {4, kH7, 1, true},  {5, kH78, 5, true}};
static const int64_t kD1[] = {1, 2, 3, 4, 5}, kD2[] = {6};
static const etk_etrecord_delegate_id_desc_t kIds[] = {{"0", kD1, 5},
                                                       {"1", kD2, 1}};
static const etk_etrecord_delegate_desc_t kDelegates[] = {
    {3, "Back'end \"x\"", kIds, 2, 1}};

static int op_types(const char *dir) {
  etw_t *w = writer_with_run(1 << 16, "Execute", -1);
  if (!w) return 1;
  etw_profile_simple(w, "native_call_add.out", 0, 0, 0, 10);
  etw_profile_simple(w, "OPERATOR_CALL", 0, 0, 0, 12);
  etw_profile_simple(w, "native_call_two.out", 0, 1, 20, 30);
  etw_profile_simple(w, "native_call_four.out", 0, 2, 30, 45);
  delegated(w, 3, 0, NULL, NULL, 0, 50, 60);
  delegated(w, 3, 1, NULL, NULL, 0, 60, 65);
  etw_profile_simple(w, "DELEGATE_CALL", 0, 3, 45, 70);
  etw_profile_simple(w, "native_call_quote.out", 0, 4, 70, 80);
  etw_profile_simple(w, "native_call_five.out", 0, 5, 80, 95);
  etw_profile_simple(w, "Method::execute", -1, 0, 0, 100);
  if (end_run_and_save(w, dir, "op_types.etdp")) return 1;

  etk_etrecord_method_desc_t m = {
      .name = "forward",
      .nodes = kNodes,
      .node_count = sizeof kNodes / sizeof kNodes[0],
      .handles = kHandles,
      .handle_count = sizeof kHandles / sizeof kHandles[0],
      .delegates = kDelegates,
      .delegate_count = 1};
  etk_etrecord_desc_t desc = {.methods = &m, .method_count = 1};
  char path[4096];
  snprintf(path, sizeof path, "%s/op_types.etrecord", dir);
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_etrecord_write_file(&desc, path, &err) != ETK_OK) {
    fprintf(stderr, "make_oracle_dumps: ETRecord: %s\n", err.message);
    return 1;
  }
  return 0;
}

/* A traced run followed by the recorder's calibration marker (an
 * event-less RunData, docs/compatibility.md): upstream's rules skip it, so
 * the table is the run's alone. */
static int calibrated(const char *dir) {
  etw_t *w = writer_with_run(1 << 16, "Execute", -1);
  if (!w) return 1;
  etw_profile_simple(w, "native_call_add.out", 0, 0, 10, 20);
  etw_profile_simple(w, "OPERATOR_CALL", 0, 0, 9, 21);
  etw_profile_simple(w, "Method::execute", -1, 0, 0, 30);
  etw_run_end(w);
  etw_run_begin(w,
                "etkit:calibration=pair=2.000,inner=1.000,clock=1.000,"
                "tensor=0.000,tensor_kib=0.000,skipped=0.000,reps=31",
                -1);
  etw_run_without_events(w);
  etw_run_end(w);
  return save(w, dir, "calibrated.etdp");
}

/* Every file, in the order they are written. */
static int (*const builders[])(const char *dir) = {
    digits,        boundaries,    nan_mixed, nan_only,           unicode_names,
    hostile_names, numeric_names, delegates, delegated_ids_only, block_names,
    many_rows,     wrap,          op_types,  calibrated};

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_oracle_dumps OUT_DIR\n");
    return 2;
  }
  int rc = 0;
  for (size_t i = 0; i < sizeof builders / sizeof builders[0]; i++)
    rc |= builders[i](argv[1]);
  return rc ? 1 : 0;
}
