/*
 * sample_values.c - see sample_values.h.
 */
#include "sample_values.h"

#include <stdint.h>
#include <string.h>

static etk_pickle_value_t v_none = {.kind = ETK_PICKLE_NONE};
static etk_pickle_value_t v_true = {.kind = ETK_PICKLE_BOOL, .b = true};
static etk_pickle_value_t v_ints[SAMPLE_PICKLE_INT_COUNT];
static const etk_pickle_value_t *ints_items[SAMPLE_PICKLE_INT_COUNT];
static etk_pickle_value_t v_int_list = {.kind = ETK_PICKLE_LIST};
static etk_pickle_value_t v_floats[3];
static const etk_pickle_value_t *float_items[3];
static etk_pickle_value_t v_float_tuple = {.kind = ETK_PICKLE_TUPLE};
static etk_pickle_value_t v_text = {
    .kind = ETK_PICKLE_STR, .str = "h\xc3\xa9llo \xe2\x9c\x93", .len = 10};
static etk_pickle_value_t v_empty_tuple = {.kind = ETK_PICKLE_TUPLE};
static etk_pickle_value_t v_one[1];
static const etk_pickle_value_t *one_items[1];
static etk_pickle_value_t v_tuple1 = {.kind = ETK_PICKLE_TUPLE};
static etk_pickle_value_t v_shared = {.kind = ETK_PICKLE_LIST};
static const etk_pickle_value_t *pair_items[2];
static etk_pickle_value_t v_pair = {.kind = ETK_PICKLE_LIST};
static etk_pickle_value_t v_many[1500];
static const etk_pickle_value_t *many_items[1500];
static etk_pickle_value_t v_many_list = {.kind = ETK_PICKLE_LIST};
static etk_pickle_value_t v_inner_key = {.kind = ETK_PICKLE_INT, .i = 7};
static const etk_pickle_value_t *inner_keys[1], *inner_values[1];
static etk_pickle_value_t v_inner = {.kind = ETK_PICKLE_DICT};

/* tensors */
static const float f32_data[6] = {0.25f, -1.5f, 3.0f, 4.0f, 5.0f, 6.0f};
static const int64_t f32_sizes[2] = {2, 3};
static const int64_t i64_data[6] = {1, 2, 3, 4, 5, -6};
static const int64_t tr_sizes[2] = {2, 3}, tr_strides[2] = {1, 2};
static const double f64_data[4] = {9.0, 8.5, -7.25, 6.0};
static const int64_t off_sizes[1] = {2}, off_strides[1] = {1};
static const uint8_t bool_data[3] = {1, 0, 1};
static const int64_t three[1] = {3};
static const uint16_t f16_data[3] = {0x3c00, 0xc100, 0x7bff};
static const uint16_t bf16_data[3] = {0x3f80, 0xc040, 0x3f00};
static etk_torch_tensor_t t_f32, t_tr, t_off, t_scalar, t_bool, t_f16, t_bf16;
static etk_pickle_value_t v_t[7];

static const char *const keys[] = {
    "f32",   "strided", "offset", "scalar", "bool",   "f16",
    "bf16",  "none",    "flag",   "ints",   "floats", "text",
    "empty", "tuple1",  "pair",   "many",   "nested"};
#define NKEYS (sizeof keys / sizeof keys[0])
static etk_pickle_value_t v_keys[NKEYS];
static const etk_pickle_value_t *root_keys[NKEYS], *root_values[NKEYS];
static etk_pickle_value_t v_root = {.kind = ETK_PICKLE_DICT, .ordered = true};

static void tensor(etk_torch_tensor_t *t, int32_t dtype, size_t es,
                   uint32_t dim, const int64_t *sizes, const int64_t *strides,
                   int64_t offset, const void *data, uint64_t nbytes) {
  uint64_t numel = 1;
  for (uint32_t k = 0; k < dim; k++) numel *= (uint64_t)sizes[k];
  /* contiguous: the offset view is contiguous too, but says so through its
   * strides */
  *t = (etk_torch_tensor_t){.dtype = dtype,
                            .element_size = es,
                            .dim = dim,
                            .sizes = sizes,
                            .strides = strides,
                            .storage_offset = offset,
                            .storage = data,
                            .storage_nbytes = nbytes,
                            .numel = numel,
                            .contiguous = strides == NULL};
}

const int64_t sample_pickle_ints[SAMPLE_PICKLE_INT_COUNT] = {0,
                                                             255,
                                                             256,
                                                             65535,
                                                             65536,
                                                             -1,
                                                             2147483647,
                                                             -2147483647 - 1,
                                                             2147483648LL,
                                                             INT64_MAX,
                                                             INT64_MIN};

const etk_pickle_value_t *sample_values(void) {
  for (int i = 0; i < SAMPLE_PICKLE_INT_COUNT; i++) {
    v_ints[i] = (etk_pickle_value_t){.kind = ETK_PICKLE_INT,
                                     .i = sample_pickle_ints[i]};
    ints_items[i] = &v_ints[i];
  }
  v_int_list.items = ints_items;
  v_int_list.count = SAMPLE_PICKLE_INT_COUNT;
  static const double floats[3] = {0.5, -1e300, 1.0 / 3.0};
  for (int i = 0; i < 3; i++) {
    v_floats[i] =
        (etk_pickle_value_t){.kind = ETK_PICKLE_FLOAT, .f = floats[i]};
    float_items[i] = &v_floats[i];
  }
  v_float_tuple.items = float_items;
  v_float_tuple.count = 3;
  v_one[0] = (etk_pickle_value_t){.kind = ETK_PICKLE_INT, .i = 1};
  one_items[0] = &v_one[0];
  v_tuple1.items = one_items;
  v_tuple1.count = 1;
  v_shared.items = one_items;
  v_shared.count = 1;
  pair_items[0] = pair_items[1] = &v_shared; /* one list, twice */
  v_pair.items = pair_items;
  v_pair.count = 2;
  for (int i = 0; i < 1500; i++) {
    v_many[i] = (etk_pickle_value_t){.kind = ETK_PICKLE_INT, .i = i};
    many_items[i] = &v_many[i];
  }
  v_many_list.items = many_items;
  v_many_list.count = 1500;
  inner_keys[0] = &v_inner_key;
  inner_values[0] = &v_float_tuple;
  v_inner.items = inner_keys;
  v_inner.values = inner_values;
  v_inner.count = 1;

  tensor(&t_f32, 6, 4, 2, f32_sizes, NULL, 0, f32_data, sizeof f32_data);
  tensor(&t_tr, 4, 8, 2, tr_sizes, tr_strides, 0, i64_data, sizeof i64_data);
  tensor(&t_off, 7, 8, 1, off_sizes, off_strides, 1, f64_data, sizeof f64_data);
  tensor(&t_scalar, 7, 8, 0, NULL, NULL, 3, f64_data, sizeof f64_data);
  tensor(&t_bool, 11, 1, 1, three, NULL, 0, bool_data, sizeof bool_data);
  tensor(&t_f16, 5, 2, 1, three, NULL, 0, f16_data, sizeof f16_data);
  tensor(&t_bf16, 15, 2, 1, three, NULL, 0, bf16_data, sizeof bf16_data);
  const etk_torch_tensor_t *ts[7] = {&t_f32,  &t_tr,  &t_off, &t_scalar,
                                     &t_bool, &t_f16, &t_bf16};
  for (int i = 0; i < 7; i++)
    v_t[i] = (etk_pickle_value_t){.kind = ETK_PICKLE_TENSOR, .tensor = ts[i]};
  const etk_pickle_value_t *values[NKEYS] = {
      &v_t[0],        &v_t[1],   &v_t[2], &v_t[3],      &v_t[4],        &v_t[5],
      &v_t[6],        &v_none,   &v_true, &v_int_list,  &v_float_tuple, &v_text,
      &v_empty_tuple, &v_tuple1, &v_pair, &v_many_list, &v_inner};
  for (size_t i = 0; i < NKEYS; i++) {
    v_keys[i] = (etk_pickle_value_t){
        .kind = ETK_PICKLE_STR, .str = keys[i], .len = strlen(keys[i])};
    root_keys[i] = &v_keys[i];
    root_values[i] = values[i];
  }
  v_root.items = root_keys;
  v_root.values = root_values;
  v_root.count = NKEYS;
  return &v_root;
}

/* "MANY" stands for "0, 1, ..., 1499" (write_sample_archive expands it). */
const char sample_values_python_text[] =
    "OrderedDict{'f32': tensor(float32, [2, 3], [0.25, -1.5, 3.0, 4.0, 5.0, "
    "6.0]), 'strided': tensor(int64, [2, 3], [1, 3, 5, 2, 4, -6]), 'offset': "
    "tensor(float64, [2], [8.5, -7.25]), 'scalar': tensor(float64, [], "
    "[6.0]), 'bool': tensor(bool, [3], [True, False, True]), 'f16': "
    "tensor(float16, [3], [1.0, -2.5, 65504.0]), 'bf16': tensor(bfloat16, "
    "[3], [803f, 40c0, 003f]), 'none': None, 'flag': True, 'ints': [0, 255, "
    "256, 65535, 65536, -1, 2147483647, -2147483648, 2147483648, "
    "9223372036854775807, -9223372036854775808], 'floats': (0.5, -1e+300, "
    "0.3333333333333333), 'text': 'h\xc3\xa9llo \xe2\x9c\x93', 'empty': (), "
    "'tuple1': (1,), 'pair': [[1], [1]], 'many': [MANY], 'nested': {7: "
    "(0.5, -1e+300, 0.3333333333333333)}}\n";
