/*
 * test_etdump_reader.c - the ETDump reader on upstream's files (read in
 * place from ../shared/conformance), on files written with the builder,
 * and on crafted bad inputs (each must fail with its own status and a byte
 * offset inside the file, never crash).
 *
 * Expected values come from the conformance files' flatc decoding
 * (etdump_tutorial.json) and from the writer calls in etdump-recorder.md
 * 4.6 for the golden files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bad_inputs.h"
#include "etdump_writer.h"
#include "etk_test.h"
#include "etkit/etdump.h"
#include "etkit/schema.h"

static etk_etdump_t *open_conf(const char *name) {
  const char *path = etk_test_conformance_path(name);
  if (!path) return NULL;
  etk_etdump_t *d = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_etdump_open_path(path, NULL, &d, &err) != ETK_OK) {
    printf("# %s: %s\n", name, err.message);
    return NULL;
  }
  return d;
}

/* Finishes the writer and opens its bytes (borrowed: the writer must
 * outlive the dump).  NULL when either fails. */
static etk_etdump_t *open_written(etw_t *w) {
  size_t len;
  const uint8_t *bytes = etw_finish(w, &len);
  etk_etdump_t *dump = NULL;
  if (bytes == NULL ||
      etk_etdump_open_memory(bytes, len, NULL, &dump, NULL) != ETK_OK)
    return NULL;
  return dump;
}

ETK_TEST(tutorial_matches_flatc_decoding) {
  if (!etk_test_conformance_path("etdump_tutorial.etdp"))
    ETK_SKIP("no conformance files");
  etk_etdump_t *d = open_conf("etdump_tutorial.etdp");
  REQUIRE(d != NULL);
  CHECK_EQ_INT(etk_etdump_run_count(d), 2);
  CHECK_EQ_INT(etk_etdump_event_count(d), 31);
  CHECK_EQ_INT(etk_etdump_version(d), 0);
  etk_etdump_run_t r;
  REQUIRE(etk_etdump_run_get(d, 1, &r) == ETK_OK);
  CHECK_EQ_STR(r.name.data, "Execute");
  CHECK_EQ_INT(r.bundled_input_index, -1);
  CHECK_EQ_INT(r.event_count, 29);
  etk_etdump_event_t e;
  /* last event: Method::execute, chain -1, iid 0, 425313 -> 2324134 */
  REQUIRE(etk_etdump_event_get(d, r.first_event + 28, &e) == ETK_OK);
  CHECK_EQ_INT(e.kind, ETK_ETDUMP_EVENT_PROFILE);
  CHECK_EQ_STR(e.name.data, "Method::execute");
  CHECK_EQ_INT(e.profile_chain_index, -1);
  CHECK_EQ_INT(e.instruction_id, 0);
  CHECK_EQ_U64(e.start_time, 425313);
  CHECK_EQ_U64(e.end_time, 2324134);
  CHECK_EQ_INT(e.run, 1);
  /* first kernel: chain absent (0), iid 0 */
  REQUIRE(etk_etdump_event_get(d, r.first_event, &e) == ETK_OK);
  CHECK_EQ_STR(e.name.data, "native_call_convolution.out");
  CHECK_EQ_INT(e.profile_chain_index, 0);
  CHECK_EQ_INT(e.delegate_debug_id_int, -1);
  CHECK(e.delegate_debug_id_str.data == NULL);
  /* equal strings share one id */
  etk_etdump_columns_t c;
  etk_etdump_columns(d, &c);
  CHECK(c.name_id[r.first_event + 1] ==
        c.name_id[r.first_event + 3]); /* OPERATOR_CALL */
  CHECK(c.chain_id[r.first_event] != c.chain_id[r.first_event + 28]);
  uint64_t s, en;
  etk_etdump_event_times(d, r.first_event + 28, &s, &en);
  CHECK(s == 425313 && en == 2324134);
  etk_etdump_close(d);
}

ETK_TEST(golden_files_from_the_upstream_writer) {
  if (!etk_test_conformance_path("golden_debug_events.etdp"))
    ETK_SKIP("no conformance files");
  etk_etdump_t *d = open_conf("golden_empty_block.etdp");
  REQUIRE(d != NULL);
  etk_etdump_run_t r;
  etk_etdump_run_get(d, 0, &r);
  CHECK_EQ_STR(r.name.data, "test_block");
  CHECK(!r.has_events && r.event_count == 0);
  etk_etdump_close(d);

  d = open_conf("golden_allocators.etdp");
  REQUIRE(d != NULL);
  CHECK_EQ_INT(etk_etdump_event_count(d), 3);
  etk_etdump_event_t e;
  etk_etdump_event_get(d, 0, &e);
  CHECK_EQ_INT(e.kind, ETK_ETDUMP_EVENT_ALLOCATION);
  etk_etdump_close(d);

  d = open_conf("golden_delegate_events.etdp");
  REQUIRE(d != NULL);
  etk_etdump_event_get(d, 1, &e);
  CHECK_EQ_INT(e.delegate_debug_id_int, 278);
  CHECK(e.metadata_len == 14 && memcmp(e.metadata, "test_metadata", 13) == 0);
  etk_etdump_event_get(d, 2, &e);
  CHECK_EQ_STR(e.delegate_debug_id_str.data, "test_event");
  etk_etdump_close(d);

  d = open_conf("golden_debug_events.etdp");
  REQUIRE(d != NULL);
  etk_etdump_value_t v;
  REQUIRE(etk_etdump_event_value(d, 0, &v) == ETK_OK);
  CHECK(v.present);
  etk_etdump_event_get(d, 2, &e);
  CHECK_EQ_U64(e.debug_chain_index, UINT64_MAX);
  CHECK(e.flags & ETK_ETDUMP_FLAG_OUTPUT);
  REQUIRE(etk_etdump_event_value(d, 2, &v) == ETK_OK);
  CHECK(v.output_present && v.output);
  CHECK_EQ_INT(etk_etdump_event_value(d, 99, &v), ETK_E_INVALID_ARGUMENT);
  etk_etdump_close(d);
}

/* A debug event of instruction 3 logging an int32 [2, 3] tensor (24 bytes)
 * at `offset` of the debug buffer. */
static etw_debug_t int_tensor_event(int64_t offset) {
  static const int64_t sizes[] = {2, 3};
  return etw_tensor_debug(3, ETK_SCALAR_TYPE_INT, sizes, 2, offset);
}

ETK_TEST(values_and_tensor_bytes) {
  etw_t *w = etw_new(1 << 14);
  etw_run_begin(w, "Execute", 0);
  etw_debug_t d = int_tensor_event(8);
  etw_debug(w, &d);
  d.kind = ETW_VALUE_DOUBLE;
  d.real_value = 2.5;
  etw_debug(w, &d);
  etw_run_end(w);
  etk_etdump_t *dump = open_written(w);
  REQUIRE(dump != NULL);
  etk_etdump_value_t v;
  REQUIRE(etk_etdump_event_value(dump, 0, &v) == ETK_OK);
  CHECK_EQ_INT(v.type, ETK_ETDUMP_VALUE_TYPE_TENSOR);
  CHECK_EQ_INT(v.tensor.scalar_type, ETK_SCALAR_TYPE_INT);
  CHECK(v.tensor.dim == 2 && etk_etdump_tensor_dim(&v.tensor, 1) == 3);
  CHECK_EQ_INT(etk_etdump_tensor_stride(&v.tensor, 0), 3);
  uint8_t buf[40] = {0};
  const uint8_t *data;
  uint64_t nbytes;
  CHECK_EQ_INT(etk_etdump_tensor_data(&v.tensor, buf, 32, &data, &nbytes, NULL),
               ETK_OK);
  CHECK(data == buf + 8 && nbytes == 24);
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etdump_tensor_data(&v.tensor, buf, 31, &data, &nbytes, &err),
               ETK_E_BAD_OFFSET);
  CHECK_EQ_U64(err.offset, 8);
  REQUIRE(etk_etdump_event_value(dump, 1, &v) == ETK_OK);
  CHECK(v.type == ETK_ETDUMP_VALUE_TYPE_DOUBLE && v.real_value == 2.5);
  CHECK_EQ_STR(etk_etdump_tensor_dtype_name(ETK_SCALAR_TYPE_LONG), "int64");
  CHECK(etk_etdump_tensor_element_size(ETK_SCALAR_TYPE_BFLOAT16) == 0);
  etk_etdump_close(dump);
  etw_free(w);
}

/* Every logged tensor must fit a given debug buffer: past the end,
 * straddling it, at offset -1 with elements, or of an uninflatable dtype. */
ETK_TEST(debug_buffer_check) {
  etw_t *w = etw_new(1 << 14);
  etw_run_begin(w, "Execute", 0);
  etw_debug_t d = int_tensor_event(64);
  etw_debug(w, &d); /* event 0: [64, +24) */
  d.tensor.offset = 0;
  etw_debug(w, &d); /* event 1: [0, +24) */
  etw_run_end(w);
  etk_etdump_t *dump = open_written(w);
  REQUIRE(dump != NULL);
  uint8_t buf[96] = {0};
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etdump_check_debug_buffer(dump, buf, 88, &err), ETK_OK);
  CHECK_EQ_INT(etk_etdump_check_debug_buffer(dump, buf, 80, &err),
               ETK_E_BAD_OFFSET);
  CHECK_EQ_STR(err.message,
               "debug event 0: tensor bytes [64, +24) lie outside the debug "
               "buffer of 80 bytes");
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etdump_check_debug_buffer(dump, NULL, 0, &err),
               ETK_E_BAD_OFFSET);
  CHECK(strstr(err.message, "debug buffer of 0 bytes") != NULL);
  etk_etdump_close(dump);
  etw_free(w);
  /* offset -1 (the runtime's "no data") on a tensor with elements */
  w = etw_new(1 << 14);
  etw_run_begin(w, "Execute", 0);
  d.tensor.offset = -1;
  etw_debug(w, &d);
  etw_run_end(w);
  dump = open_written(w);
  REQUIRE(dump != NULL);
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etdump_check_debug_buffer(dump, buf, sizeof buf, &err),
               ETK_E_BAD_OFFSET);
  etk_etdump_close(dump);
  etw_free(w);
}

/* Dumps upstream's dataclass deserialiser rejects and etkit reads
 * (docs/compatibility.md): a run without name, an allocator without name,
 * an Int value without its table, a run without name and events. */
ETK_TEST(upstream_rejected_dumps_are_read) {
  etw_t *w = etw_new(1 << 14);
  etw_run_begin(w, NULL, -1);
  etw_allocator(w, NULL);
  etw_profile_simple(w, "op", 0, 0, 10, 20);
  etw_debug_t d = {0};
  d.iid = 1;
  d.dint = -1;
  d.kind = ETW_VALUE_INT;
  d.int_value = 42;
  d.omit_member = 1;
  d.output = -1;
  etw_debug(w, &d);
  etw_run_end(w);
  etw_run_begin(w, NULL, -1);
  etw_run_without_events(w);
  etw_run_end(w);
  etk_etdump_t *dump = open_written(w);
  REQUIRE(dump != NULL);
  CHECK_EQ_U64(etk_etdump_run_count(dump), 2);
  etk_etdump_run_t run;
  REQUIRE(etk_etdump_run_get(dump, 0, &run) == ETK_OK);
  CHECK(run.name.data == NULL && run.name.len == 0);
  CHECK(run.has_events && run.event_count == 2);
  REQUIRE(etk_etdump_run_get(dump, 1, &run) == ETK_OK);
  CHECK(run.name.data == NULL && !run.has_events);
  CHECK_EQ_U64(etk_etdump_allocator_count(dump), 1);
  CHECK(etk_etdump_allocator_name(dump, 0).len == 0);
  etk_etdump_value_t v;
  REQUIRE(etk_etdump_event_value(dump, 1, &v) == ETK_OK);
  CHECK(v.present && v.type == ETK_ETDUMP_VALUE_TYPE_INT);
  CHECK(!v.member_present && v.int_value == 0);
  etk_etdump_close(dump);
  etw_free(w);
}

/* A debug value whose type says Tensor (TensorList) without its table is
 * a damaged file: refused in one line naming the run and the event (it
 * was shown as if nothing had been logged). */
ETK_TEST(tensor_value_without_its_table_is_refused) {
  for (int kind = ETW_VALUE_TENSOR; kind <= ETW_VALUE_TENSOR_LIST; kind++) {
    etw_t *w = etw_new(1 << 14);
    etw_run_begin(w, "r", -1);
    etw_profile_simple(w, "op", 0, 0, 10, 20);
    static const int64_t sizes[1] = {2};
    etw_debug_t d = etw_tensor_debug(3, 6, sizes, 1, 0);
    d.kind = kind;
    d.omit_member = 1;
    etw_debug(w, &d);
    etw_run_end(w);
    size_t len;
    const uint8_t *bytes = etw_finish(w, &len);
    REQUIRE(bytes != NULL);
    etk_etdump_t *dump = NULL;
    etk_error_t err;
    etk_error_clear(&err);
    CHECK_EQ_INT(etk_etdump_open_memory(bytes, len, NULL, &dump, &err),
                 ETK_E_FORMAT);
    CHECK(dump == NULL);
    CHECK(strstr(err.message, "debug event 1 of run 0") != NULL);
    CHECK(strstr(err.message, kind == ETW_VALUE_TENSOR
                                  ? "says Tensor but has no tensor table"
                                  : "says TensorList but has no tensor_list "
                                    "table") != NULL);
    etk_etdump_close(dump);
    etw_free(w);
  }
}

ETK_TEST(memory_is_borrowed_or_copied) {
  etw_t *w = etw_new(1 << 14);
  etw_run_begin(w, "r", -1);
  etw_profile(w, &(etw_profile_t){.name = "x", .iid = 0, .dint = -1, .end = 1});
  etw_run_end(w);
  size_t len;
  const uint8_t *bytes = etw_finish(w, &len);
  etk_etdump_t *d;
  REQUIRE(etk_etdump_open_memory(bytes, len, NULL, &d, NULL) == ETK_OK);
  size_t n;
  CHECK(etk_etdump_bytes(d, &n) == bytes && n == len); /* borrowed */
  etk_etdump_close(d);
  /* a misaligned pointer is copied, not rejected */
  uint8_t *odd = malloc(len + 1);
  memcpy(odd + 1, bytes, len);
  REQUIRE(etk_etdump_open_memory(odd + 1, len, NULL, &d, NULL) == ETK_OK);
  CHECK(etk_etdump_bytes(d, &n) != odd + 1);
  etk_etdump_close(d);
  free(odd);
  etw_free(w);
}

ETK_TEST(limits) {
  etw_t *w = etw_new(1 << 14);
  etw_run_begin(w, "r", -1);
  for (int i = 0; i < 10; i++)
    etw_profile(w,
                &(etw_profile_t){.name = "x", .iid = i, .dint = -1, .end = 1});
  etw_run_end(w);
  size_t len;
  const uint8_t *bytes = etw_finish(w, &len);
  etk_etdump_options_t o = {0};
  o.max_events = 5;
  etk_etdump_t *d;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etdump_open_memory(bytes, len, &o, &d, &err), ETK_E_LIMIT);
  CHECK(d == NULL);
  o.max_events = 0;
  o.max_file_bytes = 16;
  CHECK_EQ_INT(etk_etdump_open_memory(bytes, len, &o, &d, NULL), ETK_E_LIMIT);
  etw_free(w);
}

ETK_TEST(files_beyond_the_flatbuffers_limit_are_refused_in_one_line) {
  /* a sparse file one byte over 2 GiB - 1 with a valid ETDump start: the
   * size alone refuses it, before anything is mapped or read */
  const char *path = etk_test_temp_path("huge.etdp");
  FILE *f = fopen(path, "wb");
  REQUIRE(f != NULL);
  static const uint8_t head[8] = {0xF8, 0xFF, 0xFF, 0x7F, 8, 0, 0, 0};
  fwrite(head, 1, sizeof head, f);
  fwrite("ED00", 1, 4, f);
  int sized = fseek(f, (long)ETK_ETDUMP_MAX_FILE_BYTES, SEEK_SET) == 0 &&
              fwrite("\0", 1, 1, f) == 1;
  fclose(f);
  if (!sized) {
    remove(path);
    ETK_SKIP("cannot make a sparse 2 GiB file here");
  }
  etk_etdump_t *d = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etdump_open_path(path, NULL, &d, &err), ETK_E_LIMIT);
  CHECK(d == NULL);
  CHECK_CONTAINS(err.message, "2147483648 bytes",
                 "FlatBuffers' limit of 2147483647");
  CHECK(strchr(err.message, '\n') == NULL);
  /* a larger max_file_bytes does not lift FlatBuffers' limit */
  etk_etdump_options_t o = {0};
  o.max_file_bytes = 1ull << 40;
  CHECK_EQ_INT(etk_etdump_open_path(path, &o, &d, NULL), ETK_E_LIMIT);
  remove(path);
}

ETK_TEST(bad_inputs_fail_cleanly_with_offsets) {
  for (size_t i = 0; i < bad_input_count; i++) {
    size_t len = 0;
    uint8_t *b = bad_inputs[i].build(&len);
    REQUIRE(b != NULL);
    etk_etdump_t *d = NULL;
    etk_error_t err;
    etk_error_clear(&err);
    int rc = etk_etdump_open_memory(b, len, NULL, &d, &err);
    if (rc != bad_inputs[i].code)
      printf("# %s: got %s (%s), want %s\n", bad_inputs[i].name,
             etk_status_name(rc), err.message,
             etk_status_name(bad_inputs[i].code));
    CHECK_EQ_INT(rc, bad_inputs[i].code);
    if (rc != ETK_OK) {
      CHECK(d == NULL);
      CHECK(err.message[0] != 0);
      CHECK(err.offset != ETK_NO_OFFSET);
      CHECK(err.offset <= len);
    }
    etk_etdump_close(d);
    free(b);
  }
}

ETK_TEST(truncations_of_a_valid_dump_never_crash) {
  etw_profile_t p = {.name = "op_a", .iid = 0, .dint = -1, .end = 5};
  etw_t *w = etw_one_profile_run(&p);
  REQUIRE(w != NULL);
  size_t len;
  const uint8_t *bytes = etw_finish(w, &len);
  for (size_t n = 0; n < len; n++) {
    uint8_t *copy = malloc(n ? n : 1);
    memcpy(copy, bytes, n);
    etk_etdump_t *d = NULL;
    CHECK(etk_etdump_open_memory(copy, n, NULL, &d, NULL) != ETK_OK);
    etk_etdump_close(d);
    free(copy);
  }
  /* every single-byte corruption either fails cleanly or reads */
  uint8_t *copy = malloc(len);
  for (size_t i = 0; i < len; i++) {
    memcpy(copy, bytes, len);
    copy[i] ^= 0xA5;
    etk_etdump_t *d = NULL;
    if (etk_etdump_open_memory(copy, len, NULL, &d, NULL) == ETK_OK) {
      for (size_t k = 0; k < etk_etdump_event_count(d); k++) {
        etk_etdump_event_t e;
        CHECK(etk_etdump_event_get(d, k, &e) == ETK_OK);
      }
    }
    etk_etdump_close(d);
  }
  free(copy);
  etw_free(w);
}

/* Every event's run and times, with runs of uneven sizes, empty runs and a
 * run without an events vector between them (the run of an event is found
 * from its index: equal runs by their share, others by a search). */
ETK_TEST(event_runs_of_uneven_runs) {
  static const int sizes[] = {3, 0, 1, 7, -1, 2, 0, 5, 1};
  const int nruns = (int)(sizeof sizes / sizeof *sizes);
  etw_t *w = etw_new(1 << 16);
  REQUIRE(w != NULL);
  for (int r = 0; r < nruns; r++) {
    etw_run_begin(w, "Execute", -1);
    if (sizes[r] < 0) etw_run_without_events(w);
    for (int i = 0; i < sizes[r]; i++)
      etw_profile_simple(w, "op", 0, i, 100 * (uint64_t)r + (uint64_t)i,
                         100 * (uint64_t)r + (uint64_t)i + 1);
    etw_run_end(w);
  }
  size_t len;
  const uint8_t *bytes = etw_finish(w, &len);
  REQUIRE(bytes != NULL);
  etk_etdump_t *d = NULL;
  REQUIRE(etk_etdump_open_memory(bytes, len, NULL, &d, NULL) == ETK_OK);
  size_t index = 0;
  for (int r = 0; r < nruns; r++)
    for (int i = 0; i < sizes[r]; i++, index++) {
      etk_etdump_event_t e;
      REQUIRE(etk_etdump_event_get(d, index, &e) == ETK_OK);
      CHECK_EQ_INT(e.run, r);
      uint64_t start, end;
      etk_etdump_event_times(d, index, &start, &end);
      CHECK(start == 100 * (uint64_t)r + (uint64_t)i && end == start + 1);
    }
  CHECK_EQ_INT(etk_etdump_event_count(d), index);
  etk_etdump_close(d);
  etw_free(w);
}

ETK_TEST_MAIN()
