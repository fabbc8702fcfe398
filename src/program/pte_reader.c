/*
 * pte_reader.c - the verified reader of ExecuTorch programs (.pte).
 *
 * PURPOSE
 *   Turn untrusted bytes into an etk_program_t whose every index, size and
 *   pointer has been checked, so the runtime and the CLI can walk it without
 *   bounds checks.  A malformed file yields one error (etk_error_t) naming
 *   the problem and its byte offset.
 *
 * FILE LAYOUT (see docs/runtime.md)
 *   [u32 root offset]["ET12"]["eh00" extended header, optional]
 *   [flatbuffer tables ... up to program_size]
 *   [padding][segments at segment_base_offset + DataSegment.offset]
 *
 * ORDER OF CHECKS ("nothing read before it is checked")
 *   1. length >= 8, identifier, extended header (etk_pte_header_parse);
 *   2. program_size and segment ranges against the file length;
 *   3. the FlatBuffers verifier over [0, program_size) with the program
 *      schema descriptors (src/schema/program_schema.c): after this the
 *      unchecked accessors are safe;
 *   4. semantic checks while decoding: tags, scalar types, dims, dim
 *      orders, byte sizes (overflow-checked), planned ranges, constant and
 *      segment references, value/operator/delegate indices, jump targets.
 *
 * DATA LAYOUT OF THE RESULT
 *   All structs live in the program's arena (arena.c); vectors of scalars
 *   (sizes, args, list items) point straight into the verified buffer,
 *   which is 16-byte aligned so the verifier's alignment checks carry over
 *   to real addresses.  Names are copied into the arena NUL-terminated.
 *
 * INVARIANTS GUARANTEED TO USERS
 *   - every value index (inputs, outputs, args, list items, move/free/jump
 *     operands) is in [0, value_count); list items refer to values of the
 *     right kind; op and delegate indices are in range; jump destinations
 *     are in [0, instruction_count];
 *   - a tensor's nbytes did not overflow; a planned tensor fits its planned
 *     buffer; constant and initial data have nbytes readable bytes;
 *   - dim <= ETK_PROGRAM_MAX_DIMS and dim_order is a permutation.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/checked.h"
#include "etkit/flatbuf.h"
#include "etkit/program_schema.h"
#include "etkit/schema.h"
#include "program_internal.h"

/* ------------------------------------------------------------------ names */

const char *etk_program_tag_name(int tag) {
  static const char *const names[] = {
      "None",       "Null",     "Int",        "Bool",
      "Double",     "Tensor",   "String",     "IntList",
      "DoubleList", "BoolList", "TensorList", "OptionalTensorList"};
  if (tag < 0 || tag >= (int)(sizeof names / sizeof names[0])) return "Unknown";
  return names[tag];
}

const char *etk_program_instruction_name(int kind) {
  static const char *const names[] = {"None",          "KernelCall",
                                      "DelegateCall",  "MoveCall",
                                      "JumpFalseCall", "FreeCall"};
  if (kind < 0 || kind >= (int)(sizeof names / sizeof names[0]))
    return "Unknown";
  return names[kind];
}

void etk_program_call_outputs(const int32_t *args, uint32_t n, uint32_t *first,
                              uint32_t *count) {
  for (uint32_t r = 1; r <= n / 2; r++) {
    if (memcmp(args + n - r, args + n - 2 * r, r * sizeof *args) == 0) {
      *first = n - 2 * r;
      *count = r;
      return;
    }
  }
  *first = n ? n - 1 : 0;
  *count = n ? 1 : 0;
}

uint64_t etk_program_max_file_size(const etk_program_options_t *options) {
  return options && options->max_file_size ? options->max_file_size
                                           : (uint64_t)1 << 30;
}

int etk_program_verify_buffer(const uint8_t *buf, size_t len, const char *ident,
                              const etk_fb_table_desc_t *schema,
                              const char *what, uint32_t *root,
                              etk_error_t *err) {
  etk_fb_verify_options_t vo;
  memset(&vo, 0, sizeof vo);
  vo.ident = ident;
  etk_fb_verify_error_t ve;
  int rc = etk_fb_verify(buf, len, schema, &vo, root, &ve);
  if (rc != ETK_OK)
    etk_error_set(err, rc, ve.offset, "malformed %s: %s%s%s%s%s", what,
                  etk_strerror(rc), ve.table ? " in " : "",
                  ve.table ? ve.table : "", ve.field ? "." : "",
                  ve.field ? ve.field : "");
  return rc;
}

/* ---------------------------------------------------------------- header */

static int printable4(const uint8_t *p) {
  for (int i = 0; i < 4; i++)
    if (p[i] < 0x20 || p[i] > 0x7e) return 0;
  return 1;
}

int etk_pte_header_parse(const uint8_t *data, size_t len, etk_pte_header_t *out,
                         etk_error_t *err) {
  if (!out || (!data && len))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  memset(out, 0, sizeof *out);
  if (len < 8)
    return etk_error_set(err, ETK_E_TRUNCATED, len,
                         "file is %zu bytes, too short for a program header "
                         "(8 bytes)",
                         len);
  const uint8_t *id = data + 4;
  if (memcmp(id, "ET12", 4) != 0) {
    if (id[0] == 'E' && id[1] == 'T' && printable4(id))
      return etk_error_set(err, ETK_E_UNSUPPORTED, 4,
                           "incompatible program version '%.4s' (etkit reads "
                           "'ET12' programs)",
                           (const char *)id);
    int rc = etk_file_kind_expect(NULL, data, len, ETK_FILE_PTE, err);
    if (rc != ETK_OK) return rc; /* a bundled program, an ETDump...: say so */
    if (printable4(id))
      return etk_error_set(err, ETK_E_BAD_IDENTIFIER, 4,
                           "not an ExecuTorch program: identifier '%.4s', "
                           "expected 'ET12'",
                           (const char *)id);
    return etk_error_set(err, ETK_E_BAD_IDENTIFIER, 4,
                         "not an ExecuTorch program: identifier bytes "
                         "%02x %02x %02x %02x, expected 'ET12'",
                         id[0], id[1], id[2], id[3]);
  }
  const size_t at = ETK_PTE_EXTENDED_HEADER_OFFSET;
  if (len < at + 8 || memcmp(data + at, "eh00", 4) != 0)
    return ETK_OK; /* no extended header: the program is the whole file */
  uint32_t hlen = etk_fb_load_u32(data + at + 4);
  if (hlen < ETK_PTE_EXTENDED_HEADER_MIN_LEN)
    return etk_error_set(err, ETK_E_FORMAT, at + 4,
                         "extended header length %u is below the minimum of "
                         "%d bytes",
                         hlen, ETK_PTE_EXTENDED_HEADER_MIN_LEN);
  if (hlen > len - at)
    return etk_error_set(err, ETK_E_TRUNCATED, at + 4,
                         "extended header of %u bytes runs past the end of the "
                         "%zu-byte file",
                         hlen, len);
  out->has_extended_header = true;
  out->extended_header_length = hlen;
  out->program_size = etk_fb_load_u64(data + at + 8);
  out->segment_base_offset = etk_fb_load_u64(data + at + 16);
  out->segment_data_size = hlen >= 32 ? etk_fb_load_u64(data + at + 24) : 0;
  if (out->program_size < 8)
    return etk_error_set(err, ETK_E_FORMAT, at + 8,
                         "extended header program_size %llu is too small",
                         (unsigned long long)out->program_size);
  if (out->segment_base_offset > UINT64_MAX - out->segment_data_size)
    return etk_error_set(err, ETK_E_OVERFLOW, at + 16,
                         "segment_base_offset + segment_data_size overflows");
  return ETK_OK;
}

/* --------------------------------------------------------------- decoding */

typedef struct reader {
  const uint8_t *buf; /* whole file, aligned */
  size_t len;         /* file length */
  uint32_t flat_len;  /* verified flatbuffer region */
  etk_arena_t *arena;
  etk_error_t *err;
  etk_program_t *prog;
  const etk_program_options_t *opt;
  uint32_t max_values, max_instructions;
  /* constants */
  const uint8_t *const_seg_data;
  uint64_t const_seg_size;
  etk_fb_vector_t const_offsets; /* constant_segment.offsets */
  etk_fb_vector_t const_buffers; /* constant_buffer */
  /* mutable data (initial values of planned tensors) */
  int has_mutable;
  const uint8_t *mut_seg_data;
  uint64_t mut_seg_size;
  etk_fb_vector_t mut_offsets;
  etk_fb_vector_t inline_delegate_data;
  const char *plan_name; /* for messages */
} reader_t;

static int fail(reader_t *r, int code, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int fail(reader_t *r, int code, uint64_t offset, const char *fmt, ...) {
  char msg[224];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (r->plan_name)
    return etk_error_set(r->err, code, offset, "method '%.48s': %s",
                         r->plan_name, msg);
  return etk_error_set(r->err, code, offset, "%s", msg);
}

static int oom(reader_t *r) {
  return fail(r, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory");
}

static char *dup_string(reader_t *r, etk_fb_string_t s) {
  if (!s.data) return NULL;
  return etk_arena_strndup(r->arena, s.data, s.len);
}

/* Element j of a verified scalar vector: its byte offset in the file. */
static uint32_t vec_elem_offset(etk_fb_vector_t v, uint32_t j, uint32_t size) {
  return v.pos + j * size;
}

/* The alignment a tensor's data needs: its element size for the scalar
 * types (1, 2, 4, 8), at most 8 (complex types align like their parts). */
static size_t element_alignment(size_t elem) {
  size_t a = 1;
  while (a < elem && a < 8) a <<= 1;
  return a == elem || elem > 8 ? a : 1;
}

/* Fails unless the data of value `value_index` at `data` (a pointer into the
 * 16-byte aligned program buffer) suits its element type, as upstream's
 * runtime requires before it hands out typed tensor data. */
static int check_data_alignment(reader_t *r, const uint8_t *data, size_t elem,
                                uint64_t at, uint32_t value_index,
                                const char *what) {
  size_t align = element_alignment(elem);
  if (etk_pointer_aligned(data, align)) return ETK_OK;
  return fail(r, ETK_E_BAD_ALIGNMENT, at,
              "value %u: %s at file offset %llu is not %zu-byte aligned for "
              "its element type",
              value_index, what, (unsigned long long)(data - r->buf), align);
}

/* The element type, shape and flags of a tensor; *elem receives the
 * element size. */
static int decode_tensor_shape(reader_t *r, etk_fb_table_t t,
                               uint32_t value_index, etk_program_tensor_t *out,
                               size_t *elem) {
  const uint32_t at = t.pos;
  out->scalar_type = etk_fb_get_i8(t, ETK_PTE_TENSOR_SCALAR_TYPE, 0);
  *elem = etk_scalar_type_size(out->scalar_type);
  if (*elem == 0)
    return fail(r, ETK_E_FORMAT, at, "value %u: unknown tensor scalar type %d",
                value_index, out->scalar_type);
  out->storage_offset = etk_fb_get_i32(t, ETK_PTE_TENSOR_STORAGE_OFFSET, 0);
  etk_fb_vector_t sizes = etk_fb_get_vector(t, ETK_PTE_TENSOR_SIZES);
  etk_fb_vector_t order = etk_fb_get_vector(t, ETK_PTE_TENSOR_DIM_ORDER);
  if (!sizes.data)
    return fail(r, ETK_E_FORMAT, at, "value %u: tensor has no sizes",
                value_index);
  if (!order.data)
    return fail(r, ETK_E_FORMAT, at, "value %u: tensor has no dim_order",
                value_index);
  if (sizes.count > ETK_PROGRAM_MAX_DIMS)
    return fail(r, ETK_E_LIMIT, sizes.pos,
                "value %u: tensor rank %u exceeds the limit of %d", value_index,
                sizes.count, ETK_PROGRAM_MAX_DIMS);
  if (order.count != sizes.count)
    return fail(r, ETK_E_FORMAT, order.pos,
                "value %u: dim_order has %u entries for a rank-%u tensor",
                value_index, order.count, sizes.count);
  out->dim = sizes.count;
  out->sizes = sizes.count ? (const int32_t *)(const void *)sizes.data : NULL;
  out->dim_order = order.count ? order.data : NULL;
  for (uint32_t j = 0; j < out->dim; j++)
    if (out->sizes[j] < 0)
      return fail(r, ETK_E_FORMAT, vec_elem_offset(sizes, j, 4),
                  "value %u: negative size %d in dimension %u", value_index,
                  out->sizes[j], j);
  if (!etk_dim_order_valid(out->dim_order, out->dim))
    return fail(r, ETK_E_FORMAT, order.pos,
                "value %u: dim_order is not a permutation of 0..%u",
                value_index, out->dim ? out->dim - 1 : 0);
  if (etk_shape_nbytes(out->sizes, out->dim, *elem, &out->nbytes) != ETK_OK ||
      out->nbytes > (uint64_t)SIZE_MAX / 2)
    return fail(r, ETK_E_OVERFLOW, sizes.pos,
                "value %u: tensor byte size overflows", value_index);
  out->requires_grad = etk_fb_get_u8(t, ETK_PTE_TENSOR_REQUIRES_GRAD, 0) != 0;
  out->layout = etk_fb_get_i8(t, ETK_PTE_TENSOR_LAYOUT, 0);
  out->shape_dynamism = etk_fb_get_i8(t, ETK_PTE_TENSOR_SHAPE_DYNAMISM, 0);
  if (out->shape_dynamism < 0 || out->shape_dynamism > 2)
    return fail(r, ETK_E_FORMAT, at, "value %u: unknown shape dynamism %d",
                value_index, out->shape_dynamism);
  out->data_buffer_idx = etk_fb_get_u32(t, ETK_PTE_TENSOR_DATA_BUFFER_IDX, 0);
  return ETK_OK;
}

/* extra_tensor_info, when present: location, name and the
 * mutable_data_segments index (into *mut_idx). */
static int decode_tensor_extra(reader_t *r, etk_fb_table_t extra,
                               uint32_t value_index, etk_program_tensor_t *out,
                               uint64_t *mut_idx) {
  *mut_idx = 0;
  if (!etk_fb_table_present(extra)) return ETK_OK;
  int8_t loc = etk_fb_get_i8(extra, ETK_PTE_EXTRA_TENSOR_LOCATION, 0);
  if (loc != 0 && loc != 1)
    return fail(r, ETK_E_FORMAT, extra.pos,
                "value %u: unknown tensor data location %d", value_index, loc);
  out->external = loc == 1;
  out->fully_qualified_name = dup_string(
      r, etk_fb_get_string(extra, ETK_PTE_EXTRA_TENSOR_FULLY_QUALIFIED_NAME));
  *mut_idx =
      etk_fb_get_u64(extra, ETK_PTE_EXTRA_TENSOR_MUTABLE_DATA_SEGMENTS_IDX, 0);
  if (out->external && !out->fully_qualified_name)
    return fail(r, ETK_E_FORMAT, extra.pos,
                "value %u: external tensor without a fully qualified name",
                value_index);
  return ETK_OK;
}

/* allocation_info, when present: the planned buffer and offset, checked
 * against the plan's buffer sizes and the element alignment. */
static int decode_tensor_allocation(reader_t *r, etk_fb_table_t alloc,
                                    uint32_t value_index,
                                    const etk_program_plan_t *plan, size_t elem,
                                    etk_program_tensor_t *out) {
  if (!etk_fb_table_present(alloc)) return ETK_OK;
  out->planned = true;
  out->memory_id = etk_fb_get_u32(alloc, ETK_PTE_ALLOCATION_MEMORY_ID, 0);
  out->memory_offset =
      (uint64_t)etk_fb_get_u32(alloc, ETK_PTE_ALLOCATION_MEMORY_OFFSET_HIGH, 0)
          << 32 |
      etk_fb_get_u32(alloc, ETK_PTE_ALLOCATION_MEMORY_OFFSET_LOW, 0);
  if (out->memory_id == 0 || out->memory_id >= plan->buffer_size_count)
    return fail(r, ETK_E_FORMAT, alloc.pos,
                "value %u: memory_id %u names no planned buffer (the plan "
                "has %u)",
                value_index, out->memory_id,
                plan->buffer_size_count ? plan->buffer_size_count - 1 : 0);
  uint64_t cap = (uint64_t)plan->buffer_sizes[out->memory_id];
  if (out->memory_offset > cap || out->nbytes > cap - out->memory_offset)
    return fail(r, ETK_E_FORMAT, alloc.pos,
                "value %u: planned range [%llu, +%llu) exceeds buffer %u of "
                "%llu bytes",
                value_index, (unsigned long long)out->memory_offset,
                (unsigned long long)out->nbytes, out->memory_id,
                (unsigned long long)cap);
  if (!etk_offset_aligned(out->memory_offset, element_alignment(elem)))
    return fail(r, ETK_E_BAD_ALIGNMENT, alloc.pos,
                "value %u: planned memory_offset %llu is not %zu-byte "
                "aligned for its element type",
                value_index, (unsigned long long)out->memory_offset,
                element_alignment(elem));
  return ETK_OK;
}

/* Points out->data at seg_data + off, the segment data that entry idx of
 * `offsets` names, and checks that it suits the element type. */
static int point_into_segment(reader_t *r, const uint8_t *seg_data,
                              etk_fb_vector_t offsets, uint32_t idx,
                              uint64_t off, size_t elem, uint32_t value_index,
                              const char *what, etk_program_tensor_t *out) {
  out->data = seg_data + off;
  if (!out->nbytes) return ETK_OK;
  return check_data_alignment(
      r, out->data, elem, vec_elem_offset(offsets, idx, 8), value_index, what);
}

/* The data of a constant tensor (not planned, data_buffer_idx > 0): in the
 * constant segment or in an inline constant buffer. */
static int bind_constant_data(reader_t *r, uint32_t at, uint32_t value_index,
                              size_t elem, etk_program_tensor_t *out) {
  uint32_t idx = out->data_buffer_idx;
  int rc;
  if (r->prog->constant_storage == ETK_CONSTANTS_SEGMENT) {
    if (idx >= r->const_offsets.count)
      return fail(r, ETK_E_FORMAT, at,
                  "value %u: constant %u out of range (%u constants)",
                  value_index, idx, r->const_offsets.count);
    uint64_t off = etk_fb_load_u64(r->const_offsets.data + 8u * idx);
    if (off > r->const_seg_size || out->nbytes > r->const_seg_size - off)
      return fail(r, ETK_E_FORMAT, vec_elem_offset(r->const_offsets, idx, 8),
                  "value %u: constant %u ([%llu, +%llu)) lies outside the "
                  "%llu-byte constant segment",
                  value_index, idx, (unsigned long long)off,
                  (unsigned long long)out->nbytes,
                  (unsigned long long)r->const_seg_size);
    return point_into_segment(r, r->const_seg_data, r->const_offsets, idx, off,
                              elem, value_index, "constant data", out);
  } else if (r->prog->constant_storage == ETK_CONSTANTS_INLINE) {
    if (idx >= r->const_buffers.count)
      return fail(r, ETK_E_FORMAT, at,
                  "value %u: constant buffer %u out of range (%u buffers)",
                  value_index, idx, r->const_buffers.count);
    etk_fb_table_t b = etk_fb_vector_table(r->buf, r->const_buffers, idx);
    etk_fb_vector_t st = etk_fb_get_vector(b, ETK_PTE_BUFFER_STORAGE);
    if (st.count < out->nbytes)
      return fail(r, ETK_E_FORMAT, b.pos,
                  "value %u: constant buffer %u holds %u bytes, the tensor "
                  "needs %llu",
                  value_index, idx, st.count, (unsigned long long)out->nbytes);
    out->data = st.data;
    if (out->nbytes &&
        (rc = check_data_alignment(r, out->data, elem, b.pos, value_index,
                                   "constant buffer data")) != ETK_OK)
      return rc;
  } else {
    return fail(r, ETK_E_FORMAT, at,
                "value %u: refers to constant %u but the program has no "
                "constant data",
                value_index, idx);
  }
  return ETK_OK;
}

/* The initial value of a planned tensor, in mutable_data_segments;
 * extra_at locates extra_tensor_info (mut_idx's table) for errors. */
static int bind_mutable_data(reader_t *r, uint32_t at, uint32_t extra_at,
                             uint64_t mut_idx, uint32_t value_index,
                             size_t elem, etk_program_tensor_t *out) {
  if (!r->has_mutable)
    return fail(r, ETK_E_FORMAT, at,
                "value %u: initial data %u requested but the program has no "
                "mutable_data_segments",
                value_index, out->data_buffer_idx);
  if (mut_idx != 0)
    return fail(r, ETK_E_UNSUPPORTED, extra_at,
                "value %u: mutable_data_segments index %llu (only 0 is "
                "supported)",
                value_index, (unsigned long long)mut_idx);
  uint32_t idx = out->data_buffer_idx;
  if (idx >= r->mut_offsets.count)
    return fail(r, ETK_E_FORMAT, at,
                "value %u: initial data %u out of range (%u entries)",
                value_index, idx, r->mut_offsets.count);
  uint64_t off = etk_fb_load_u64(r->mut_offsets.data + 8u * idx);
  if (off > r->mut_seg_size || out->nbytes > r->mut_seg_size - off)
    return fail(r, ETK_E_FORMAT, vec_elem_offset(r->mut_offsets, idx, 8),
                "value %u: initial data lies outside its segment", value_index);
  return point_into_segment(r, r->mut_seg_data, r->mut_offsets, idx, off, elem,
                            value_index, "initial data", out);
}

static int decode_tensor(reader_t *r, etk_fb_table_t t, uint32_t value_index,
                         const etk_program_plan_t *plan,
                         etk_program_tensor_t *out) {
  etk_fb_table_t extra = etk_fb_get_table(t, ETK_PTE_TENSOR_EXTRA_TENSOR_INFO);
  etk_fb_table_t alloc = etk_fb_get_table(t, ETK_PTE_TENSOR_ALLOCATION_INFO);
  uint64_t mut_idx;
  size_t elem;
  int rc;
  if ((rc = decode_tensor_shape(r, t, value_index, out, &elem)) != ETK_OK ||
      (rc = decode_tensor_extra(r, extra, value_index, out, &mut_idx)) !=
          ETK_OK ||
      (rc = decode_tensor_allocation(r, alloc, value_index, plan, elem, out)) !=
          ETK_OK)
    return rc;
  if (out->external || out->data_buffer_idx == 0) return ETK_OK;
  if (!out->planned)
    return bind_constant_data(r, t.pos, value_index, elem, out);
  return bind_mutable_data(r, t.pos, extra.pos, mut_idx, value_index, elem,
                           out);
}

/* Checks a value index read from the file at `at`. */
static int check_value_index(reader_t *r, int64_t v, uint32_t count,
                             uint64_t at, const char *what) {
  if (v < 0 || v >= (int64_t)count)
    return fail(r, ETK_E_FORMAT, at, "%s refers to value %lld, outside 0..%u",
                what, (long long)v, count ? count - 1 : 0);
  return ETK_OK;
}

/* Checks the items of list value i (`tag` IntList, TensorList or
 * OptionalTensorList): each is the index of an Int (IntList, 8-byte items)
 * or of a Tensor (4-byte items; -1, None, in optional lists). */
static int check_list_items(reader_t *r, const etk_program_value_t *values,
                            uint32_t n, uint32_t i, int32_t tag,
                            etk_fb_vector_t items) {
  bool ints = tag == ETK_PTE_KT_INT_LIST;
  bool optional = tag == ETK_PTE_KT_OPTIONAL_TENSOR_LIST;
  uint32_t width = ints ? 8 : 4;
  for (uint32_t j = 0; j < items.count; j++) {
    const void *item = items.data + width * j;
    int64_t x = ints ? *(const int64_t *)item : *(const int32_t *)item;
    uint32_t at = vec_elem_offset(items, j, width);
    if (optional && x == -1) continue;
    int rc = check_value_index(r, x, n, at,
                               ints ? "an IntList item" : "a TensorList item");
    if (rc != ETK_OK) return rc;
    if (values[x].tag != (ints ? ETK_PTE_KT_INT : ETK_PTE_KT_TENSOR))
      return fail(r, ETK_E_FORMAT, at,
                  "value %u: %s item %u refers to value %lld, a %s, not %s", i,
                  ints ? "IntList" : "tensor list", j, (long long)x,
                  etk_program_tag_name(values[x].tag),
                  ints ? "an Int" : "a Tensor");
  }
  return ETK_OK;
}

static int decode_values(reader_t *r, etk_fb_table_t plan_t,
                         etk_program_plan_t *plan) {
  etk_fb_vector_t vals = etk_fb_get_vector(plan_t, ETK_PTE_PLAN_VALUES);
  uint32_t n = vals.data ? vals.count : 0;
  if (n > r->max_values)
    return fail(r, ETK_E_LIMIT, vals.pos, "%u values exceed the limit of %u", n,
                r->max_values);
  etk_program_value_t *values = etk_arena_array(r->arena, n, sizeof *values);
  if (!values) return oom(r);
  /* Pass 1: tags, so list items can be checked against their targets. */
  uint32_t tensor_count = 0;
  for (uint32_t i = 0; i < n; i++) {
    etk_fb_table_t ev = etk_fb_vector_table(r->buf, vals, i);
    values[i].offset = ev.pos;
    values[i].tag = etk_fb_get_u8(ev, ETK_PTE_EVALUE_VAL_TYPE, 0);
    if (values[i].tag == ETK_PTE_KT_NONE)
      return fail(r, ETK_E_FORMAT, ev.pos, "value %u has no type", i);
    if (values[i].tag == ETK_PTE_KT_TENSOR) tensor_count++;
  }
  etk_program_tensor_t *tensors =
      etk_arena_array(r->arena, tensor_count, sizeof *tensors);
  if (!tensors) return oom(r);
  plan->values = values;
  plan->value_count = n;
  uint32_t next_tensor = 0;
  for (uint32_t i = 0; i < n; i++) {
    etk_fb_table_t ev = etk_fb_vector_table(r->buf, vals, i);
    etk_fb_table_t v = etk_fb_get_table(ev, ETK_PTE_EVALUE_VAL);
    etk_program_value_t *pv = &values[i];
    int rc;
    switch (pv->tag) {
      case ETK_PTE_KT_NULL:
        break;
      case ETK_PTE_KT_INT:
        pv->u.i = etk_fb_get_i64(v, ETK_PTE_SCALAR_VALUE, 0);
        break;
      case ETK_PTE_KT_BOOL:
        pv->u.b = etk_fb_get_u8(v, ETK_PTE_SCALAR_VALUE, 0) != 0;
        break;
      case ETK_PTE_KT_DOUBLE:
        pv->u.d = etk_fb_get_f64(v, ETK_PTE_SCALAR_VALUE, 0.0);
        break;
      case ETK_PTE_KT_TENSOR: {
        etk_program_tensor_t *t = &tensors[next_tensor++];
        if ((rc = decode_tensor(r, v, i, plan, t)) != ETK_OK) return rc;
        pv->u.tensor = t;
      } break;
      case ETK_PTE_KT_STRING: {
        etk_fb_string_t s = etk_fb_get_string(v, ETK_PTE_SCALAR_VALUE);
        if (!s.data)
          return fail(r, ETK_E_FORMAT, v.pos, "value %u: string is missing", i);
        pv->u.string.data = s.data;
        pv->u.string.len = s.len;
      } break;
      case ETK_PTE_KT_INT_LIST:
      case ETK_PTE_KT_DOUBLE_LIST:
      case ETK_PTE_KT_BOOL_LIST:
      case ETK_PTE_KT_TENSOR_LIST:
      case ETK_PTE_KT_OPTIONAL_TENSOR_LIST: {
        etk_fb_vector_t items = etk_fb_get_vector(v, ETK_PTE_LIST_ITEMS);
        if (!items.data)
          return fail(r, ETK_E_FORMAT, v.pos, "value %u: %s has no items", i,
                      etk_program_tag_name(pv->tag));
        if (pv->tag == ETK_PTE_KT_INT_LIST) {
          pv->u.int_list.items = (const int64_t *)(const void *)items.data;
          pv->u.int_list.count = items.count;
          if ((rc = check_list_items(r, values, n, i, pv->tag, items)) != 0)
            return rc;
        } else if (pv->tag == ETK_PTE_KT_DOUBLE_LIST) {
          pv->u.double_list.items = (const double *)(const void *)items.data;
          pv->u.double_list.count = items.count;
        } else if (pv->tag == ETK_PTE_KT_BOOL_LIST) {
          pv->u.bool_list.items = items.data;
          pv->u.bool_list.count = items.count;
        } else {
          pv->u.tensor_list.items = (const int32_t *)(const void *)items.data;
          pv->u.tensor_list.count = items.count;
          if ((rc = check_list_items(r, values, n, i, pv->tag, items)) != 0)
            return rc;
        }
      } break;
      default:
        return fail(r, ETK_E_FORMAT, ev.pos, "value %u: unknown type code %d",
                    i, pv->tag);
    }
  }
  return ETK_OK;
}

/* Vector field `field` of t into *v, its item count (0 when absent) into
 * *n, and an arena array of *n items of `size` bytes (NULL when the arena
 * is exhausted). */
static void *table_vector_array(reader_t *r, etk_fb_table_t t, unsigned field,
                                size_t size, etk_fb_vector_t *v, uint32_t *n) {
  *v = etk_fb_get_vector(t, field);
  *n = v->data ? v->count : 0;
  return etk_arena_array(r->arena, *n, size);
}

/* Decodes item i of a vector of tables (its table `t`) into `item`. */
typedef int (*table_decoder_t)(reader_t *r, etk_fb_table_t t, uint32_t i,
                               void *item);

/* The vector of tables `field` of t, decoded into an arena array of
 * `size`-byte items by one decode() call per table: *items and *count on
 * success (an empty array when the vector is absent). */
static int decode_tables(reader_t *r, etk_fb_table_t t, unsigned field,
                         size_t size, table_decoder_t decode, void **items,
                         uint32_t *count) {
  etk_fb_vector_t v;
  uint32_t n;
  unsigned char *out = table_vector_array(r, t, field, size, &v, &n);
  if (!out) return oom(r);
  for (uint32_t i = 0; i < n; i++) {
    int rc = decode(r, etk_fb_vector_table(r->buf, v, i), i, out + i * size);
    if (rc != ETK_OK) return rc;
  }
  *items = out;
  *count = n;
  return ETK_OK;
}

static int decode_index_vector(reader_t *r, etk_fb_vector_t v, uint32_t nvals,
                               const char *what, const int32_t **items,
                               uint32_t *count) {
  *items = NULL;
  *count = 0;
  if (!v.data) return ETK_OK;
  const int32_t *p = (const int32_t *)(const void *)v.data;
  for (uint32_t j = 0; j < v.count; j++) {
    int rc = check_value_index(r, p[j], nvals, vec_elem_offset(v, j, 4), what);
    if (rc != ETK_OK) return rc;
  }
  *items = v.count ? p : NULL;
  *count = v.count;
  return ETK_OK;
}

static int decode_operator(reader_t *r, etk_fb_table_t op, uint32_t i,
                           void *item) {
  etk_program_operator_t *out = item;
  etk_fb_string_t name = etk_fb_get_string(op, ETK_PTE_OPERATOR_NAME);
  etk_fb_string_t overload = etk_fb_get_string(op, ETK_PTE_OPERATOR_OVERLOAD);
  if (!name.data || name.len == 0)
    return fail(r, ETK_E_FORMAT, op.pos, "operator %u has no name", i);
  size_t olen = overload.data ? overload.len : 0;
  const char *ostr = overload.data ? overload.data : "";
  out->name = dup_string(r, name);
  out->overload = etk_arena_strndup(r->arena, ostr, olen);
  /* "ns::op.overload" and upstream's kernel event "native_call_op.ovl" */
  size_t full = (size_t)name.len + 1 + olen;
  char *fn = etk_arena_alloc(r->arena, full + 1);
  char *ev = etk_arena_alloc(r->arena, full + 16);
  if (!out->name || !out->overload || !fn || !ev) return oom(r);
  if (olen)
    snprintf(fn, full + 1, "%s.%s", out->name, out->overload);
  else
    snprintf(fn, full + 1, "%s", out->name);
  const char *base = out->name, *p;
  while ((p = strstr(base, "::")) != NULL) base = p + 2;
  if (olen)
    snprintf(ev, full + 16, "native_call_%s.%s", base, out->overload);
  else
    snprintf(ev, full + 16, "native_call_%s", base);
  out->full_name = fn;
  out->event_name = ev;
  return ETK_OK;
}

/* A compile spec's key ("" when absent) and value bytes. */
static int decode_compile_spec(reader_t *r, etk_fb_table_t s, uint32_t j,
                               void *item) {
  etk_program_compile_spec_t *cs = item;
  (void)j;
  etk_fb_string_t key = etk_fb_get_string(s, ETK_PTE_COMPILE_SPEC_KEY);
  etk_fb_vector_t val = etk_fb_get_vector(s, ETK_PTE_COMPILE_SPEC_VALUE);
  cs->key = key.data ? dup_string(r, key) : etk_arena_strndup(r->arena, "", 0);
  if (!cs->key) return oom(r);
  cs->value = val.data;
  cs->value_len = val.data ? val.count : 0;
  return ETK_OK;
}

static int decode_delegate(reader_t *r, etk_fb_table_t d, uint32_t i,
                           void *item) {
  etk_program_delegate_t *out = item;
  etk_fb_string_t id = etk_fb_get_string(d, ETK_PTE_DELEGATE_ID);
  if (!id.data || id.len == 0)
    return fail(r, ETK_E_FORMAT, d.pos, "delegate %u has no backend id", i);
  out->id = dup_string(r, id);
  if (!out->id) return oom(r);
  etk_fb_table_t ref = etk_fb_get_table(d, ETK_PTE_DELEGATE_PROCESSED);
  if (!etk_fb_table_present(ref))
    return fail(r, ETK_E_FORMAT, d.pos,
                "delegate %u ('%s') has no processed data reference", i,
                out->id);
  out->location = etk_fb_get_i8(ref, ETK_PTE_DATA_REF_LOCATION, 0);
  out->index = etk_fb_get_u32(ref, ETK_PTE_DATA_REF_INDEX, 0);
  if (out->location == ETK_PTE_DATA_LOCATION_INLINE) {
    uint32_t cnt =
        r->inline_delegate_data.data ? r->inline_delegate_data.count : 0;
    if (out->index >= cnt)
      return fail(r, ETK_E_FORMAT, ref.pos,
                  "delegate %u: inline data %u out of range (%u entries)", i,
                  out->index, cnt);
    etk_fb_table_t bd =
        etk_fb_vector_table(r->buf, r->inline_delegate_data, out->index);
    etk_fb_vector_t bytes = etk_fb_get_vector(bd, ETK_PTE_INLINE_DATA_DATA);
    out->data = bytes.data;
    out->size = bytes.data ? bytes.count : 0;
  } else if (out->location == ETK_PTE_DATA_LOCATION_SEGMENT) {
    if (out->index >= r->prog->segment_count)
      return fail(r, ETK_E_FORMAT, ref.pos,
                  "delegate %u: segment %u out of range (%u segments)", i,
                  out->index, r->prog->segment_count);
    out->data = r->prog->segments[out->index].data;
    out->size = r->prog->segments[out->index].size;
  } else {
    return fail(r, ETK_E_FORMAT, ref.pos,
                "delegate %u: unknown data location %d", i, out->location);
  }
  void *specs = NULL;
  int rc = decode_tables(r, d, ETK_PTE_DELEGATE_COMPILE_SPECS,
                         sizeof *out->compile_specs, decode_compile_spec,
                         &specs, &out->compile_spec_count);
  out->compile_specs = specs;
  return rc;
}

static int decode_chain(reader_t *r, etk_fb_table_t c, uint32_t ci,
                        etk_program_plan_t *plan, etk_program_chain_t *out) {
  int rc;
  uint32_t nv = plan->value_count;
  if ((rc = decode_index_vector(r, etk_fb_get_vector(c, ETK_PTE_CHAIN_INPUTS),
                                nv, "a chain input", &out->inputs,
                                &out->input_count)) != ETK_OK)
    return rc;
  if ((rc = decode_index_vector(r, etk_fb_get_vector(c, ETK_PTE_CHAIN_OUTPUTS),
                                nv, "a chain output", &out->outputs,
                                &out->output_count)) != ETK_OK)
    return rc;
  etk_fb_vector_t ins = etk_fb_get_vector(c, ETK_PTE_CHAIN_INSTRUCTIONS);
  if (!ins.data)
    return fail(r, ETK_E_FORMAT, c.pos, "chain %u has no instructions field",
                ci);
  uint32_t n = ins.count;
  if (n > r->max_instructions)
    return fail(r, ETK_E_LIMIT, ins.pos,
                "chain %u: %u instructions exceed the limit of %u", ci, n,
                r->max_instructions);
  etk_program_instruction_t *out_i =
      etk_arena_array(r->arena, n, sizeof *out_i);
  if (!out_i) return oom(r);
  for (uint32_t i = 0; i < n; i++) {
    etk_fb_table_t it = etk_fb_vector_table(r->buf, ins, i);
    etk_program_instruction_t *x = &out_i[i];
    x->offset = it.pos;
    x->kind = etk_fb_get_u8(it, ETK_PTE_INSTRUCTION_ARGS_TYPE, 0);
    etk_fb_table_t a = etk_fb_get_table(it, ETK_PTE_INSTRUCTION_ARGS);
    if (x->kind == ETK_PTE_INSTR_NONE || !etk_fb_table_present(a))
      return fail(r, ETK_E_FORMAT, it.pos,
                  "chain %u instruction %u has no arguments", ci, i);
    char what[64];
    switch (x->kind) {
      case ETK_INSTR_KERNEL_CALL:
      case ETK_INSTR_DELEGATE_CALL: {
        bool kernel = x->kind == ETK_INSTR_KERNEL_CALL;
        x->index = etk_fb_get_i32(a, ETK_PTE_CALL_INDEX, 0);
        uint32_t limit = kernel ? plan->operator_count : plan->delegate_count;
        if (x->index < 0 || (uint32_t)x->index >= limit)
          return fail(r, ETK_E_FORMAT, a.pos,
                      "instruction %u: %s index %d out of range (%u %s)", i,
                      kernel ? "operator" : "delegate", x->index, limit,
                      kernel ? "operators" : "delegates");
        etk_fb_vector_t args = etk_fb_get_vector(a, ETK_PTE_CALL_ARGS);
        if (!args.data)
          return fail(r, ETK_E_FORMAT, a.pos, "instruction %u: %s has no args",
                      i, kernel ? "KernelCall" : "DelegateCall");
        snprintf(what, sizeof what, "instruction %u argument", i);
        if ((rc = decode_index_vector(r, args, nv, what, &x->args,
                                      &x->arg_count)) != ETK_OK)
          return rc;
      } break;
      case ETK_INSTR_MOVE_CALL:
        x->index = etk_fb_get_i32(a, ETK_PTE_MOVE_FROM, 0);
        x->index2 = etk_fb_get_i32(a, ETK_PTE_MOVE_TO, 0);
        snprintf(what, sizeof what, "instruction %u (MoveCall)", i);
        if ((rc = check_value_index(r, x->index, nv, a.pos, what)) != ETK_OK ||
            (rc = check_value_index(r, x->index2, nv, a.pos, what)) != ETK_OK)
          return rc;
        break;
      case ETK_INSTR_JUMP_FALSE_CALL:
        x->index = etk_fb_get_i32(a, ETK_PTE_JUMP_FALSE_COND, 0);
        x->index2 = etk_fb_get_i32(a, ETK_PTE_JUMP_FALSE_DESTINATION, 0);
        snprintf(what, sizeof what, "instruction %u (JumpFalseCall)", i);
        if ((rc = check_value_index(r, x->index, nv, a.pos, what)) != ETK_OK)
          return rc;
        if (x->index2 < 0 || (uint32_t)x->index2 > n)
          return fail(r, ETK_E_FORMAT, a.pos,
                      "instruction %u: jump destination %d outside the chain "
                      "(0..%u)",
                      i, x->index2, n);
        break;
      case ETK_INSTR_FREE_CALL:
        x->index = etk_fb_get_i32(a, ETK_PTE_FREE_VALUE_INDEX, 0);
        snprintf(what, sizeof what, "instruction %u (FreeCall)", i);
        if ((rc = check_value_index(r, x->index, nv, a.pos, what)) != ETK_OK)
          return rc;
        break;
      default:
        return fail(r, ETK_E_FORMAT, it.pos,
                    "instruction %u: unknown instruction type %d", i, x->kind);
    }
  }
  out->instructions = out_i;
  out->instruction_count = n;

  etk_fb_vector_t st = etk_fb_get_vector(c, ETK_PTE_CHAIN_STACKTRACE);
  if (st.data) {
    etk_program_frame_list_t *lists =
        etk_arena_array(r->arena, st.count, sizeof *lists);
    if (!lists) return oom(r);
    for (uint32_t i = 0; i < st.count; i++) {
      etk_fb_table_t fl = etk_fb_vector_table(r->buf, st, i);
      etk_fb_vector_t fr = etk_fb_get_vector(fl, ETK_PTE_FRAME_LIST_ITEMS);
      uint32_t nf = fr.data ? fr.count : 0;
      etk_program_frame_t *frames =
          etk_arena_array(r->arena, nf, sizeof *frames);
      if (!frames) return oom(r);
      for (uint32_t j = 0; j < nf; j++) {
        etk_fb_table_t f = etk_fb_vector_table(r->buf, fr, j);
        frames[j].filename =
            dup_string(r, etk_fb_get_string(f, ETK_PTE_FRAME_FILENAME));
        frames[j].name =
            dup_string(r, etk_fb_get_string(f, ETK_PTE_FRAME_NAME));
        frames[j].context =
            dup_string(r, etk_fb_get_string(f, ETK_PTE_FRAME_CONTEXT));
        frames[j].lineno = etk_fb_get_i32(f, ETK_PTE_FRAME_LINENO, 0);
      }
      lists[i].frames = frames;
      lists[i].count = nf;
    }
    out->stacktrace = lists;
    out->stacktrace_count = st.count;
  }
  return ETK_OK;
}

static int decode_plan(reader_t *r, etk_fb_table_t pt, uint32_t index,
                       etk_program_plan_t *plan) {
  int rc;
  plan->offset = pt.pos;
  etk_fb_string_t name = etk_fb_get_string(pt, ETK_PTE_PLAN_NAME);
  if (!name.data)
    return fail(r, ETK_E_FORMAT, pt.pos, "execution plan %u has no name",
                index);
  plan->name = dup_string(r, name);
  if (!plan->name) return oom(r);
  r->plan_name = plan->name;
  etk_fb_table_t meta = etk_fb_get_table(pt, ETK_PTE_PLAN_CONTAINER_META_TYPE);
  if (etk_fb_table_present(meta)) {
    plan->encoded_inp_str = dup_string(
        r, etk_fb_get_string(meta, ETK_PTE_CONTAINER_META_ENCODED_INP_STR));
    plan->encoded_out_str = dup_string(
        r, etk_fb_get_string(meta, ETK_PTE_CONTAINER_META_ENCODED_OUT_STR));
  }
  etk_fb_vector_t bs =
      etk_fb_get_vector(pt, ETK_PTE_PLAN_NON_CONST_BUFFER_SIZES);
  if (bs.data && bs.count) {
    plan->buffer_sizes = (const int64_t *)(const void *)bs.data;
    plan->buffer_size_count = bs.count;
    for (uint32_t j = 0; j < bs.count; j++)
      if (plan->buffer_sizes[j] < 0)
        return fail(r, ETK_E_FORMAT, vec_elem_offset(bs, j, 8),
                    "planned buffer %u has negative size %lld", j,
                    (long long)plan->buffer_sizes[j]);
  }
  if ((rc = decode_values(r, pt, plan)) != ETK_OK) return rc;
  if ((rc = decode_index_vector(r, etk_fb_get_vector(pt, ETK_PTE_PLAN_INPUTS),
                                plan->value_count, "a method input",
                                &plan->inputs, &plan->input_count)) != ETK_OK)
    return rc;
  if ((rc = decode_index_vector(r, etk_fb_get_vector(pt, ETK_PTE_PLAN_OUTPUTS),
                                plan->value_count, "a method output",
                                &plan->outputs, &plan->output_count)) != ETK_OK)
    return rc;
  void *items = NULL;
  if ((rc = decode_tables(r, pt, ETK_PTE_PLAN_OPERATORS,
                          sizeof *plan->operators, decode_operator, &items,
                          &plan->operator_count)) != ETK_OK)
    return rc;
  plan->operators = items;
  if ((rc = decode_tables(r, pt, ETK_PTE_PLAN_DELEGATES,
                          sizeof *plan->delegates, decode_delegate, &items,
                          &plan->delegate_count)) != ETK_OK)
    return rc;
  plan->delegates = items;
  etk_fb_vector_t chains;
  uint32_t nc;
  etk_program_chain_t *cs =
      table_vector_array(r, pt, ETK_PTE_PLAN_CHAINS, sizeof *cs, &chains, &nc);
  if (!cs) return oom(r);
  for (uint32_t c = 0; c < nc; c++)
    if ((rc = decode_chain(r, etk_fb_vector_table(r->buf, chains, c), c, plan,
                           &cs[c])) != ETK_OK)
      return rc;
  plan->chains = cs;
  plan->chain_count = nc;
  r->plan_name = NULL;
  return ETK_OK;
}

/* Resolves SubsegmentOffsets to (segment data, size, offsets vector). */
static int decode_subsegment(reader_t *r, etk_fb_table_t ss, const char *what,
                             const uint8_t **data, uint64_t *size,
                             etk_fb_vector_t *offsets) {
  uint32_t seg = etk_fb_get_u32(ss, ETK_PTE_SUBSEGMENT_SEGMENT_INDEX, 0);
  *offsets = etk_fb_get_vector(ss, ETK_PTE_SUBSEGMENT_OFFSETS);
  if (!offsets->data) offsets->count = 0;
  if (offsets->count <= 1) {
    *data = NULL;
    *size = 0;
    return ETK_OK; /* nothing but the placeholder: no segment needed */
  }
  if (seg >= r->prog->segment_count)
    return fail(r, ETK_E_FORMAT, ss.pos,
                "%s refers to segment %u, but the program has %u segments",
                what, seg, r->prog->segment_count);
  *data = r->prog->segments[seg].data;
  *size = r->prog->segments[seg].size;
  return ETK_OK;
}

static int decode_program(reader_t *r, uint32_t root) {
  etk_program_t *p = r->prog;
  etk_fb_table_t pt = etk_fb_root(r->buf, root);
  int rc;
  p->version = etk_fb_get_u32(pt, ETK_PTE_PROGRAM_VERSION, 0);

  /* Segments, relative to segment_base_offset. */
  etk_fb_vector_t segs;
  uint32_t ns;
  etk_program_segment_t *sv = table_vector_array(
      r, pt, ETK_PTE_PROGRAM_SEGMENTS, sizeof *sv, &segs, &ns);
  if (!sv) return oom(r);
  uint64_t base = p->header.segment_base_offset;
  for (uint32_t i = 0; i < ns; i++) {
    etk_fb_table_t s = etk_fb_vector_table(r->buf, segs, i);
    sv[i].offset = etk_fb_get_u64(s, ETK_PTE_SEGMENT_OFFSET, 0);
    sv[i].size = etk_fb_get_u64(s, ETK_PTE_SEGMENT_SIZE, 0);
    if (sv[i].size == 0) {
      sv[i].data = r->buf; /* empty: any valid pointer */
      continue;
    }
    if (!p->header.has_extended_header || base == 0)
      return fail(r, ETK_E_FORMAT, s.pos,
                  "segment %u holds %llu bytes but %s (no segments: upstream "
                  "refuses to load them)",
                  i, (unsigned long long)sv[i].size,
                  p->header.has_extended_header
                      ? "the extended header's segment_base_offset is 0"
                      : "the file has no extended header giving the segment "
                        "base offset");
    if (sv[i].offset > UINT64_MAX - base || base + sv[i].offset > r->len ||
        sv[i].size > r->len - (base + sv[i].offset))
      return fail(r, ETK_E_TRUNCATED, s.pos,
                  "segment %u ([%llu, +%llu) after base %llu) lies outside the "
                  "%zu-byte file",
                  i, (unsigned long long)sv[i].offset,
                  (unsigned long long)sv[i].size, (unsigned long long)base,
                  r->len);
    sv[i].data = r->buf + base + sv[i].offset;
  }
  p->segments = sv;
  p->segment_count = ns;

  /* Constants: constant_segment (current) or constant_buffer (deprecated),
   * never both. */
  etk_fb_table_t cseg = etk_fb_get_table(pt, ETK_PTE_PROGRAM_CONSTANT_SEGMENT);
  r->const_buffers = etk_fb_get_vector(pt, ETK_PTE_PROGRAM_CONSTANT_BUFFER);
  if (!r->const_buffers.data) r->const_buffers.count = 0;
  if (etk_fb_table_present(cseg)) {
    if ((rc = decode_subsegment(r, cseg, "constant_segment", &r->const_seg_data,
                                &r->const_seg_size, &r->const_offsets)) != 0)
      return rc;
  }
  if (r->const_offsets.count > 1) {
    if (r->const_buffers.count > 0)
      return fail(r, ETK_E_FORMAT, cseg.pos,
                  "both constant_buffer (%u entries) and constant_segment (%u "
                  "offsets) are used; only one may be",
                  r->const_buffers.count, r->const_offsets.count);
    p->constant_storage = ETK_CONSTANTS_SEGMENT;
    p->constant_count = r->const_offsets.count;
  } else if (r->const_buffers.count > 0) {
    p->constant_storage = ETK_CONSTANTS_INLINE;
    p->constant_count = r->const_buffers.count;
  } else {
    p->constant_storage = ETK_CONSTANTS_NONE;
    p->constant_count = r->const_offsets.count;
  }

  etk_fb_vector_t muts =
      etk_fb_get_vector(pt, ETK_PTE_PROGRAM_MUTABLE_DATA_SEGMENTS);
  if (muts.data && muts.count > 0) {
    r->has_mutable = 1;
    if ((rc = decode_subsegment(r, etk_fb_vector_table(r->buf, muts, 0),
                                "mutable_data_segments[0]", &r->mut_seg_data,
                                &r->mut_seg_size, &r->mut_offsets)) != 0)
      return rc;
  }

  r->inline_delegate_data =
      etk_fb_get_vector(pt, ETK_PTE_PROGRAM_BACKEND_DELEGATE_DATA);

  etk_fb_vector_t nd;
  uint32_t nn;
  etk_program_named_data_t *ndv = table_vector_array(
      r, pt, ETK_PTE_PROGRAM_NAMED_DATA, sizeof *ndv, &nd, &nn);
  if (!ndv) return oom(r);
  for (uint32_t i = 0; i < nn; i++) {
    etk_fb_table_t t = etk_fb_vector_table(r->buf, nd, i);
    etk_fb_string_t key = etk_fb_get_string(t, ETK_PTE_NAMED_DATA_KEY);
    if (!key.data)
      return fail(r, ETK_E_FORMAT, t.pos, "named data %u has no key", i);
    ndv[i].key = dup_string(r, key);
    ndv[i].segment_index =
        etk_fb_get_u32(t, ETK_PTE_NAMED_DATA_SEGMENT_INDEX, 0);
    if (!ndv[i].key) return oom(r);
    if (ndv[i].segment_index >= ns)
      return fail(r, ETK_E_FORMAT, t.pos,
                  "named data '%s' refers to segment %u of %u", ndv[i].key,
                  ndv[i].segment_index, ns);
  }
  p->named_data = ndv;
  p->named_data_count = nn;

  etk_fb_vector_t plans;
  uint32_t np;
  etk_program_plan_t *pv = table_vector_array(
      r, pt, ETK_PTE_PROGRAM_EXECUTION_PLAN, sizeof *pv, &plans, &np);
  if (!pv) return oom(r);
  for (uint32_t i = 0; i < np; i++)
    if ((rc = decode_plan(r, etk_fb_vector_table(r->buf, plans, i), i,
                          &pv[i])) != ETK_OK)
      return rc;
  p->plans = pv;
  p->plan_count = np;
  return ETK_OK;
}

/* ------------------------------------------------------------ public API */

int etk_program_load(const uint8_t *data, size_t len,
                     const etk_program_options_t *options, etk_program_t **out,
                     etk_error_t *err) {
  if (!out || (!data && len))
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "NULL argument");
  *out = NULL;
  etk_program_options_t opt = {0};
  if (options) opt = *options;
  opt.max_file_size = etk_program_max_file_size(options);
  if (opt.max_values == 0) opt.max_values = 1000000;
  if (opt.max_instructions == 0) opt.max_instructions = 1000000;
  if (len > opt.max_file_size)
    return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "program of %zu bytes exceeds the limit of %llu", len,
                         (unsigned long long)opt.max_file_size);
  etk_pte_header_t hdr;
  int rc = etk_pte_header_parse(data, len, &hdr, err);
  if (rc != ETK_OK) return rc;

  /* Sizes from the extended header, checked against the real length
   * before the flatbuffer is looked at. */
  uint64_t program_size = len;
  if (hdr.has_extended_header) {
    program_size = hdr.program_size;
    if (program_size > len)
      return etk_error_set(err, ETK_E_TRUNCATED, 16,
                           "extended header program_size %llu exceeds the "
                           "%zu-byte file",
                           (unsigned long long)program_size, len);
    if (hdr.segment_base_offset == 0 && hdr.segment_data_size != 0)
      return etk_error_set(err, ETK_E_FORMAT, 24,
                           "extended header claims %llu bytes of segments "
                           "with a zero segment_base_offset",
                           (unsigned long long)hdr.segment_data_size);
    if (hdr.segment_base_offset != 0) {
      if (hdr.segment_base_offset < program_size)
        return etk_error_set(err, ETK_E_FORMAT, 24,
                             "segment_base_offset %llu lies inside the program "
                             "(program_size %llu)",
                             (unsigned long long)hdr.segment_base_offset,
                             (unsigned long long)program_size);
      uint64_t need = hdr.segment_base_offset + hdr.segment_data_size;
      if (need > len)
        return etk_error_set(err, ETK_E_TRUNCATED, len,
                             "file is %zu bytes, the extended header says "
                             "segments end at byte %llu",
                             len, (unsigned long long)need);
    }
  }
  if (program_size > 0xFFFFFFF0u)
    return etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET,
                         "program region of %llu bytes is too large",
                         (unsigned long long)program_size);

  etk_program_owner_t *owner = etk_program_owner_new(&opt, err);
  if (!owner) return err ? err->code : ETK_E_NO_MEMORY;
  const uint8_t *buf = data;
  if (opt.borrow) {
    if (((uintptr_t)data & 15u) != 0) {
      etk_program_owner_free(owner);
      return etk_error_set(err, ETK_E_BAD_ALIGNMENT, ETK_NO_OFFSET,
                           "borrowed program bytes must be 16-byte aligned");
    }
  } else {
    buf = etk_program_owner_copy(owner, data, len, err);
    if (!buf) {
      etk_program_owner_free(owner);
      return err ? err->code : ETK_E_NO_MEMORY;
    }
  }

  uint32_t root = 0;
  rc = etk_program_verify_buffer(buf, (size_t)program_size, ETK_PTE_IDENTIFIER,
                                 &etk_pte_schema, "program", &root, err);
  if (rc != ETK_OK) {
    etk_program_owner_free(owner);
    return rc;
  }

  etk_program_t *p = etk_arena_alloc(&owner->arena, sizeof *p);
  if (!p) {
    rc = etk_program_owner_status(
        owner,
        etk_error_set(err, ETK_E_NO_MEMORY, ETK_NO_OFFSET, "out of memory"),
        "program", err);
    etk_program_owner_free(owner);
    return rc;
  }
  p->data = buf;
  p->size = len;
  p->header = hdr;
  if (!hdr.has_extended_header) p->header.program_size = len;
  p->internal_ = owner;

  reader_t r;
  memset(&r, 0, sizeof r);
  r.buf = buf;
  r.len = len;
  r.flat_len = (uint32_t)program_size;
  r.arena = &owner->arena;
  r.err = err;
  r.prog = p;
  r.opt = &opt;
  r.max_values = opt.max_values;
  r.max_instructions = opt.max_instructions;
  rc = decode_program(&r, root);
  if (rc != ETK_OK) {
    rc = etk_program_owner_status(owner, rc, "program", err);
    etk_program_free(p);
    return rc;
  }
  *out = p;
  return ETK_OK;
}

void etk_program_free(etk_program_t *program) {
  if (!program) return;
  /* `program` itself lives in the owner's arena */
  etk_program_owner_free(program->internal_);
}

const etk_program_plan_t *etk_program_find_plan(const etk_program_t *program,
                                                const char *name) {
  if (!program) return NULL;
  if (!name) return program->plan_count ? &program->plans[0] : NULL;
  for (uint32_t i = 0; i < program->plan_count; i++)
    if (strcmp(program->plans[i].name, name) == 0) return &program->plans[i];
  return NULL;
}
