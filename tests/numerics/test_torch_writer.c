/*
 * test_torch_writer.c - etkit's torch.save writer: values written and read
 * back are the same; the archive has torch's layout (data.pkl first,
 * 64-byte aligned data, descriptors, ZIP64 end records); bad trees are
 * refused; the ETRecord writer stores reference outputs and representative
 * inputs that the reader decodes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/etrecord.h"
#include "sample_values.h"

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}

static const uint8_t *find4(const uint8_t *p, size_t n, const char *sig) {
  for (size_t i = 0; i + 4 <= n; i++)
    if (memcmp(p + i, sig, 4) == 0) return p + i;
  return NULL;
}

static etk_torch_archive_t *write_and_read(const etk_pickle_value_t *root,
                                           uint8_t **bytes, size_t *len) {
  etk_error_t err;
  etk_error_clear(&err);
  if (etk_torch_save_memory(root, bytes, len, &err) != ETK_OK) {
    char line[512];
    printf("# %s\n", etk_error_format(&err, line, sizeof line));
    return NULL;
  }
  etk_torch_archive_t *a = NULL;
  if (etk_torch_archive_open(*bytes, *len, NULL, "w", &a, &err) != ETK_OK) {
    char line[512];
    printf("# %s\n", etk_error_format(&err, line, sizeof line));
  }
  return a;
}

static bool same_tensor_values(const etk_torch_tensor_t *a,
                               const etk_torch_tensor_t *b) {
  if (a->dtype != b->dtype || a->dim != b->dim || a->numel != b->numel)
    return false;
  for (uint32_t k = 0; k < a->dim; k++)
    if (a->sizes[k] != b->sizes[k]) return false;
  size_t n = (size_t)a->numel * a->element_size;
  uint8_t *x = malloc(n ? n : 1), *y = malloc(n ? n : 1);
  bool same = x && y && etk_torch_tensor_copy(a, x, n) == ETK_OK &&
              etk_torch_tensor_copy(b, y, n) == ETK_OK && memcmp(x, y, n) == 0;
  free(x);
  free(y);
  return same;
}

/* Deep equality of two trees (tensors by value, floats bit for bit). */
static bool same_value(const etk_pickle_value_t *a,
                       const etk_pickle_value_t *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
    case ETK_PICKLE_NONE:
      return true;
    case ETK_PICKLE_BOOL:
      return a->b == b->b;
    case ETK_PICKLE_INT:
      return a->i == b->i;
    case ETK_PICKLE_FLOAT:
      return memcmp(&a->f, &b->f, sizeof a->f) == 0;
    case ETK_PICKLE_STR:
    case ETK_PICKLE_BYTES:
      return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    case ETK_PICKLE_TUPLE:
    case ETK_PICKLE_LIST:
    case ETK_PICKLE_DICT:
      if (a->count != b->count || a->ordered != b->ordered) return false;
      for (size_t i = 0; i < a->count; i++) {
        if (!same_value(a->items[i], b->items[i])) return false;
        if (a->kind == ETK_PICKLE_DICT &&
            !same_value(a->values[i], b->values[i]))
          return false;
      }
      return true;
    case ETK_PICKLE_TENSOR:
      return same_tensor_values(a->tensor, b->tensor);
    default:
      return false;
  }
}

ETK_TEST(round_trip_of_every_kind) {
  const etk_pickle_value_t *root = sample_values();
  uint8_t *bytes = NULL;
  size_t len = 0;
  etk_torch_archive_t *a = write_and_read(root, &bytes, &len);
  REQUIRE(a);
  const etk_pickle_value_t *back = etk_torch_archive_root(a);
  CHECK(same_value(root, back));
  /* the strided view comes back contiguous, with the same values */
  const etk_torch_tensor_t *st = etk_pickle_dict_get(back, "strided")->tensor;
  CHECK(st->contiguous);
  CHECK(st->strides[0] == 3 && st->strides[1] == 1);
  CHECK_EQ_INT(st->storage_offset, 0);
  /* shared nodes are written once and come back as one node */
  const etk_pickle_value_t *pair = etk_pickle_dict_get(back, "pair");
  CHECK(pair->items[0] == pair->items[1]);
  CHECK(back->ordered);
  /* writing the same tree again gives the same bytes */
  uint8_t *again = NULL;
  size_t again_len = 0;
  CHECK_EQ_INT(etk_torch_save_memory(root, &again, &again_len, NULL), ETK_OK);
  CHECK(again_len == len && memcmp(again, bytes, len) == 0);
  free(again);
  etk_torch_archive_close(a);
  free(bytes);
}

ETK_TEST(archive_layout_is_torchs) {
  uint8_t *bytes = NULL;
  size_t len = 0;
  etk_torch_archive_t *a = write_and_read(sample_values(), &bytes, &len);
  REQUIRE(a);
  etk_torch_archive_close(a);
  /* local headers in order, each with flags 0x0808, zero sizes, an "FB"
   * extra field and 64-byte aligned data */
  static const char *const names[] = {"archive/data.pkl",
                                      "archive/byteorder",
                                      "archive/data/0",
                                      "archive/data/1",
                                      "archive/data/2",
                                      "archive/data/3",
                                      "archive/data/4",
                                      "archive/data/5",
                                      "archive/data/6",
                                      "archive/version",
                                      "archive/.data/serialization_id"};
  size_t at = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    REQUIRE(at + 30 <= len && memcmp(bytes + at, "PK\x03\x04", 4) == 0);
    CHECK_EQ_INT(le16(bytes + at + 6), 0x0808);
    CHECK_EQ_INT(le32(bytes + at + 18), 0);
    size_t nl = le16(bytes + at + 26), xl = le16(bytes + at + 28);
    REQUIRE(at + 30 + nl + xl <= len);
    CHECK(nl == strlen(names[i]) && memcmp(bytes + at + 30, names[i], nl) == 0);
    CHECK(memcmp(bytes + at + 30 + nl, "FB", 2) == 0);
    size_t data = at + 30 + nl + xl;
    CHECK_EQ_INT(data % 64, 0);
    /* the size is in the data descriptor that follows the data */
    const uint8_t *p = bytes + data;
    const uint8_t *dd = find4(p, len - data, "PK\x07\x08");
    REQUIRE(dd);
    at = (size_t)(dd - bytes) + 16;
    CHECK_EQ_INT(le32(dd + 8), dd - p);
  }
  CHECK(memcmp(bytes + at, "PK\x01\x02", 4) == 0);
  /* ZIP64 end record + locator + end record close the file */
  REQUIRE(len > 22 + 20 + 56);
  CHECK(memcmp(bytes + len - 22, "PK\x05\x06", 4) == 0);
  CHECK(memcmp(bytes + len - 42, "PK\x06\x07", 4) == 0);
  CHECK(memcmp(bytes + len - 98, "PK\x06\x06", 4) == 0);
  CHECK_EQ_INT(le16(bytes + len - 22 + 10), 11);
  free(bytes);
}

/* The writer refuses `v` with `code` and, when `message` is not NULL,
 * exactly that error line; nothing is returned. */
static void check_refused(const etk_pickle_value_t *v, int code,
                          const char *message) {
  uint8_t *out = NULL;
  size_t len = 0;
  etk_error_t err;
  char line[512];
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_torch_save_memory(v, &out, &len, &err), code);
  if (message) CHECK_EQ_STR(etk_error_format(&err, line, sizeof line), message);
  CHECK(out == NULL);
}

ETK_TEST(bad_trees_are_refused) {
  etk_pickle_value_t bytes = {.kind = ETK_PICKLE_BYTES, .str = "ab", .len = 2};
  check_refused(&bytes, ETK_E_UNSUPPORTED,
                "torch.save writer: a bytes value cannot be written in a "
                "protocol-2 torch.save archive");
  /* a list, then a tuple, that contains itself */
  static const struct {
    etk_pickle_kind_t kind;
    const char *message;
  } loops[] = {{ETK_PICKLE_LIST,
                "torch.save writer: a list contains itself (cycles cannot be "
                "pickled for etkit's reader)"},
               {ETK_PICKLE_TUPLE, NULL}};
  for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++) {
    etk_pickle_value_t loop = {.kind = loops[i].kind};
    const etk_pickle_value_t *items[1] = {&loop};
    loop.items = items;
    loop.count = 1;
    check_refused(&loop, ETK_E_INVALID_ARGUMENT, loops[i].message);
  }
  /* a tensor whose elements leave its storage */
  static const float data[2] = {1, 2};
  static const int64_t sizes[1] = {3};
  etk_torch_tensor_t t = {.dtype = 6,
                          .element_size = 4,
                          .dim = 1,
                          .sizes = sizes,
                          .storage = (const uint8_t *)data,
                          .storage_nbytes = sizeof data};
  etk_pickle_value_t tv = {.kind = ETK_PICKLE_TENSOR, .tensor = &t};
  check_refused(&tv, ETK_E_INVALID_ARGUMENT,
                "torch.save writer: tensor elements leave its storage (8 "
                "bytes)");
  t.dtype = 9; /* complex64 */
  check_refused(&tv, ETK_E_UNSUPPORTED, NULL);
  check_refused(NULL, ETK_E_INVALID_ARGUMENT, NULL);
}

/* ------------------------------------------------ ETRecord references */

static const char *const kGraphIn[] = {"x"};
static const char *const kOut[] = {"aten_relu_default"};
static const etk_etrecord_input_desc_t kIn[] = {{"self", "x"}};

static etk_etrecord_method_desc_t one_method(etk_etrecord_node_desc_t *node) {
  memset(node, 0, sizeof *node);
  node->name = "aten_relu_default";
  node->target = "executorch.exir.dialects.edge.ops.aten.relu.default";
  node->debug_handle = 1;
  node->inputs = kIn;
  node->input_count = 1;
  node->outputs = kOut;
  node->output_count = 1;
  etk_etrecord_method_desc_t m;
  memset(&m, 0, sizeof m);
  m.name = "forward";
  m.nodes = node;
  m.node_count = 1;
  m.graph_inputs = kGraphIn;
  m.graph_input_count = 1;
  m.graph_outputs = kOut;
  m.graph_output_count = 1;
  return m;
}

/* A record of one_method() alone in *desc (*m and *node hold it); the
 * tests add members to it. */
static void one_method_record(etk_etrecord_desc_t *desc,
                              etk_etrecord_method_desc_t *m,
                              etk_etrecord_node_desc_t *node) {
  *m = one_method(node);
  memset(desc, 0, sizeof *desc);
  desc->methods = m;
  desc->method_count = 1;
}

/* Writes the ETRecord `desc` describes and opens it again; NULL when
 * either step fails. */
static etk_etrecord_t *write_and_open(const etk_etrecord_desc_t *desc) {
  uint8_t *zip = NULL;
  size_t len = 0;
  etk_etrecord_t *rec = NULL;
  if (etk_etrecord_write_memory(desc, &zip, &len, NULL) != ETK_OK) return NULL;
  if (etk_etrecord_open_memory(zip, len, NULL, &rec, NULL) != ETK_OK)
    rec = NULL;
  free(zip);
  return rec;
}

/* The writer refuses `desc` as an invalid argument with exactly `message`. */
static void check_write_refused(const etk_etrecord_desc_t *desc,
                                const char *message) {
  uint8_t *zip = NULL;
  size_t len = 0;
  etk_error_t err;
  char line[512];
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etrecord_write_memory(desc, &zip, &len, &err),
               ETK_E_INVALID_ARGUMENT);
  CHECK_EQ_STR(etk_error_format(&err, line, sizeof line), message);
  CHECK(zip == NULL);
}

ETK_TEST(etrecord_writer_stores_references) {
  static const float case0[4] = {1, -2, 3, -4}, case1[4] = {0.5f, 0, 0, 8};
  static const int64_t idx0[1] = {3};
  static const int64_t s22[2] = {2, 2}, s1[1] = {1};
  static const float input[4] = {1, 2, 3, 4};
  etk_torch_tensor_desc_t outs0[2] = {{6, 2, s22, case0, sizeof case0},
                                      {4, 1, s1, idx0, sizeof idx0}};
  etk_torch_tensor_desc_t outs1[2] = {{6, 2, s22, case1, sizeof case1},
                                      {4, 1, s1, idx0, sizeof idx0}};
  etk_etrecord_case_desc_t cases[2] = {{outs0, 2}, {outs1, 2}};
  etk_etrecord_reference_desc_t ref = {"forward", cases, 2};
  etk_torch_tensor_desc_t in[1] = {{6, 2, s22, input, sizeof input}};
  etk_etrecord_references_desc_t refs = {&ref, 1, in, 1};
  etk_etrecord_node_desc_t node;
  etk_etrecord_method_desc_t m;
  etk_etrecord_desc_t desc;
  one_method_record(&desc, &m, &node);
  desc.references = &refs;
  etk_etrecord_t *rec = write_and_open(&desc);
  REQUIRE(rec != NULL);
  etk_error_t err;
  etk_error_clear(&err);
  etk_etrecord_info_t info;
  etk_etrecord_info_get(rec, &info);
  CHECK(info.features & ETK_ETRECORD_HAS_REFERENCE_OUTPUTS);
  CHECK(info.features & ETK_ETRECORD_HAS_REPRESENTATIVE_INPUTS);
  etk_torch_archive_t *a = NULL;
  REQUIRE(etk_etrecord_reference_outputs_open(rec, NULL, &a, &err) == ETK_OK);
  const etk_pickle_value_t *c = NULL;
  REQUIRE(etk_etrecord_reference_select(etk_torch_archive_root(a), "forward",
                                        -1, &c, &err) == ETK_OK);
  REQUIRE(c->kind == ETK_PICKLE_LIST && c->count == 2);
  float got[4];
  CHECK_EQ_INT(etk_torch_tensor_copy(c->items[0]->tensor, got, sizeof got),
               ETK_OK);
  CHECK_EQ_MEM(got, case1, sizeof got);
  CHECK_EQ_INT(c->items[1]->tensor->dtype, 4);
  etk_torch_archive_close(a);
  REQUIRE(etk_etrecord_representative_inputs_open(rec, NULL, &a, &err) ==
          ETK_OK);
  const etk_pickle_value_t *root = etk_torch_archive_root(a);
  REQUIRE(root->kind == ETK_PICKLE_LIST && root->count == 1);
  CHECK_EQ_INT(etk_torch_tensor_copy(root->items[0]->tensor, got, sizeof got),
               ETK_OK);
  CHECK_EQ_MEM(got, input, sizeof got);
  etk_torch_archive_close(a);
  etk_etrecord_close(rec);

  /* refusals: a clashing extra member, a tensor with the wrong byte count */
  etk_etrecord_blob_desc_t extra = {"reference_outputs", "x", 1};
  desc.extra_members = &extra;
  desc.extra_member_count = 1;
  check_write_refused(&desc,
                      "ETRecord writer: extra member 'reference_outputs' "
                      "would clash with the references the writer writes");
  desc.extra_members = NULL;
  desc.extra_member_count = 0;
  outs1[0].nbytes = 12;
  check_write_refused(&desc,
                      "ETRecord writer: references: tensor of dtype 6, 2 "
                      "dims: unsupported dtype, bad sizes, or nbytes 12 is "
                      "not numel x element size");
}

ETK_TEST(legacy_pickled_reference_outputs_are_reported) {
  /* before 2026-03 reference_outputs was pickle.dumps output */
  static const uint8_t legacy[] = {0x80, 0x04, '}', '.'};
  etk_etrecord_blob_desc_t extra = {"reference_outputs", legacy, sizeof legacy};
  etk_etrecord_node_desc_t node;
  etk_etrecord_method_desc_t m;
  etk_etrecord_desc_t desc;
  one_method_record(&desc, &m, &node);
  desc.extra_members = &extra;
  desc.extra_member_count = 1;
  etk_etrecord_t *rec = write_and_open(&desc);
  REQUIRE(rec != NULL);
  etk_torch_archive_t *a = NULL;
  etk_error_t err;
  etk_error_clear(&err);
  CHECK_EQ_INT(etk_etrecord_reference_outputs_open(rec, NULL, &a, &err),
               ETK_E_UNSUPPORTED);
  char line[512];
  CHECK_EQ_STR(etk_error_format(&err, line, sizeof line),
               "reference_outputs: legacy pickle, not decoded (records "
               "written before 2026-03 stored reference_outputs with "
               "pickle.dumps)");
  CHECK(a == NULL);
  etk_etrecord_close(rec);
}

ETK_TEST_MAIN()
