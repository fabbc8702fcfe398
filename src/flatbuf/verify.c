/*
 * verify.c - the schema-driven FlatBuffers verifier (see etkit/flatbuf.h).
 *
 * PURPOSE
 *   Decide whether untrusted bytes are a well-formed buffer of a given
 *   schema, so that the unchecked accessors (access.c) can then read them
 *   without any bounds checks.  One pass, no heap, bounded time.
 *
 * DATA LAYOUT CHECKED
 *   [u32 size prefix]? [u32 root uoffset] [4-byte identifier]? ...
 *   table   at t:  i32 soffset; its vtable is at t - soffset
 *   vtable  at vt: u16 vtable_size, u16 table_size, u16 field_pos[...]
 *   field   at t + field_pos, inside the buffer and aligned to its size
 *   uoffset at p:  target = p + u32 value (never 0, always forward)
 *   string  at s:  u32 n, n bytes, NUL
 *   vector  at v:  u32 count, count * element_size bytes
 *
 * INVARIANTS (what ETK_OK guarantees to the accessors)
 *   - Every object reachable through a described field lies entirely inside
 *     the verified region [0, end): for a size-prefixed buffer end is
 *     4 + prefix, otherwise the given length.
 *   - Range checks are always written `off <= end && n <= end - off` (in
 *     64-bit arithmetic where a sum could wrap), never `off + n <= end`.
 *   - Alignment is checked relative to the start of the buffer given, which
 *     is where the builder's header padding makes objects aligned.
 *   - Recursion depth is at most options->max_depth tables, and the number
 *     of objects visited (counting every visit of a shared object, and every
 *     element of an enum-checked vector) is at most options->max_objects, so
 *     a DAG that reaches one object many times cannot make the work grow
 *     faster than the budget.
 *   - The rules are the official FlatBuffers verifier's: a vtable must be
 *     2-aligned, of even size and inside the buffer; a field must lie inside
 *     the buffer and be aligned.  The vtable's table-size entry bounds
 *     nothing: writers share one vtable among tables of different shapes
 *     (upstream's programs do, with the vtable after the table), so a field
 *     may reach past the size that the shared vtable records.  Bounding
 *     fields by it rejected real programs that flatc and upstream load.
 *   - The first error stops the walk; `err` describes it: code, the byte
 *     offset (of the offending pointer for out-of-range targets, of the
 *     offending object or field otherwise) and the schema names.
 */
#include <stdint.h>
#include <string.h>

#include "etkit/flatbuf.h"

/* What the field loop of verify_table found for one (schema table, vtable)
 * pair and a table address t: every present inline field lies in
 * [t, t + extent) and is aligned, no required field is missing, and the
 * fields in `deep` (bit i: desc->fields[i]) still need verify_field.  These
 * facts depend only on the vtable's bytes, the descriptor and t % align,
 * `align` being the largest alignment of a present field (a power of two,
 * at most 16 when memoized), except the range, which is checked again for
 * each table. */
typedef struct vtable_memo {
  const etk_fb_table_desc_t *desc; /* NULL: empty slot */
  uint32_t vt;
  uint32_t extent;
  uint32_t align;
  uint32_t t_mod; /* t % align */
  uint64_t deep;
} vtable_memo_t;

#define VTABLE_MEMO_SLOTS 64 /* direct-mapped */

typedef struct verifier {
  const uint8_t *buf;
  uint32_t end; /* verified region is buf[0..end) */
  unsigned max_depth;
  uint64_t budget; /* objects still allowed */
  etk_fb_verify_error_t *err;
  vtable_memo_t memo[VTABLE_MEMO_SLOTS];
} verifier_t;

/* Byte-wise little-endian loads, inline: the verifier spends most of its
 * time here, and compilers turn the pattern into one load on little-endian
 * hosts (etk_fb_load_* live in another file and would cost a call each). */
static inline uint16_t load16(const verifier_t *v, uint32_t at) {
  const uint8_t *p = v->buf + at;
  return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t load32(const verifier_t *v, uint32_t at) {
  const uint8_t *p = v->buf + at;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* Errors are rare: fail() stays out of line so that the checks calling it
 * can be inlined into the walk. */
#if defined(__GNUC__)
#define VERIFY_COLD __attribute__((cold, noinline))
#else
#define VERIFY_COLD
#endif

VERIFY_COLD static int fail(verifier_t *v, int code, uint32_t offset,
                            const etk_fb_table_desc_t *table,
                            const etk_fb_field_desc_t *field) {
  if (v->err != NULL && v->err->code == ETK_OK) {
    v->err->code = code;
    v->err->offset = offset;
    v->err->table = table != NULL ? table->name : NULL;
    v->err->field = field != NULL ? field->name : NULL;
  }
  return code;
}

/* Whether n bytes starting at `at` lie inside the region. */
static inline int in_range(const verifier_t *v, uint64_t at, uint64_t n) {
  return at <= v->end && n <= v->end - at;
}

static inline int charge(verifier_t *v, uint64_t n, uint32_t at,
                         const etk_fb_table_desc_t *table,
                         const etk_fb_field_desc_t *field) {
  if (n > v->budget) return fail(v, ETK_E_LIMIT, at, table, field);
  v->budget -= n;
  return ETK_OK;
}

/* Follows the uoffset stored at `at` (4 in-range bytes, 4-aligned) to a
 * target that must leave room for a 4-byte header. */
static inline int follow(verifier_t *v, uint32_t at, uint32_t *target,
                         const etk_fb_table_desc_t *table,
                         const etk_fb_field_desc_t *field) {
  uint32_t value = load32(v, at);
  uint64_t t = (uint64_t)at + value;
  *target = (uint32_t)t; /* set either way: callers read it only on success */
  if (value == 0 || !in_range(v, t, 4))
    return fail(v, ETK_E_BAD_OFFSET, at, table, field);
  return ETK_OK;
}

static int enum_valid(uint64_t mask, uint8_t value) {
  return mask == 0 || (value < 64 && ((mask >> value) & 1u));
}

static inline int verify_string(verifier_t *v, uint32_t at,
                                const etk_fb_table_desc_t *table,
                                const etk_fb_field_desc_t *field) {
  uint32_t s, n;
  int rc = follow(v, at, &s, table, field);
  if (rc != ETK_OK) return rc;
  if ((rc = charge(v, 1, s, table, field)) != ETK_OK) return rc;
  if (s & 3u) return fail(v, ETK_E_BAD_ALIGNMENT, s, table, field);
  n = load32(v, s);
  /* n bytes plus the NUL must fit after the length */
  if (!in_range(v, (uint64_t)s + 4, (uint64_t)n + 1))
    return fail(v, ETK_E_BAD_STRING, s, table, field);
  if (v->buf[s + 4 + n] != 0)
    return fail(v, ETK_E_BAD_STRING, s + 4 + n, table, field);
  return ETK_OK;
}

/* Follows the vector offset at `at` and checks its header, alignment and
 * length; on success *pos and *count give the vector and its element count. */
static int verify_vector(verifier_t *v, uint32_t at, uint32_t elem_size,
                         uint32_t elem_align, uint32_t *pos, uint32_t *count,
                         const etk_fb_table_desc_t *table,
                         const etk_fb_field_desc_t *field) {
  uint32_t p, n;
  int rc = follow(v, at, &p, table, field);
  if (rc != ETK_OK) return rc;
  if ((rc = charge(v, 1, p, table, field)) != ETK_OK) return rc;
  if (p & 3u) return fail(v, ETK_E_BAD_ALIGNMENT, p, table, field);
  n = load32(v, p);
  /* Element alignment matters only if there are elements: flatc's C++
   * builder writes empty int64 vectors with the count merely 4-aligned. */
  if (n != 0 && ((p + 4u) & (elem_align - 1u)))
    return fail(v, ETK_E_BAD_ALIGNMENT, p, table, field);
  /* n * elem_size <= end - p - 4, without multiplying */
  if ((uint64_t)n > (uint64_t)(v->end - p - 4u) / elem_size)
    return fail(v, ETK_E_BAD_VECTOR, p, table, field);
  *pos = p;
  *count = n;
  return ETK_OK;
}

static int verify_table(verifier_t *v, uint32_t t,
                        const etk_fb_table_desc_t *desc, unsigned depth);

/* Field geometry: bytes the field occupies inline and their alignment. */
static int field_geometry(const etk_fb_field_desc_t *f, uint32_t *size,
                          uint32_t *align) {
  switch (f->kind) {
    case ETK_FB_SCALAR:
      if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
        return 0;
      *size = *align = f->size;
      return 1;
    case ETK_FB_UNION_TYPE:
      *size = *align = 1;
      return 1;
    case ETK_FB_STRUCT:
      *size = f->size;
      *align = f->align ? f->align : f->size;
      return f->size != 0 && (*align & (*align - 1u)) == 0;
    case ETK_FB_STRING:
    case ETK_FB_TABLE:
    case ETK_FB_VEC_SCALAR:
    case ETK_FB_VEC_STRUCT:
    case ETK_FB_VEC_STRING:
    case ETK_FB_VEC_TABLE:
    case ETK_FB_UNION:
      *size = *align = 4;
      return 1;
    default:
      return 0;
  }
}

/* Position of field `id` of the table at t whose vtable (of vtable_size
 * bytes, header checked by the caller) is at vt, or 0 if absent. */
static inline uint32_t field_at(const verifier_t *v, uint32_t t, uint32_t vt,
                                uint32_t vtable_size, unsigned id) {
  uint32_t entry = 4u + 2u * id;
  if (id >= 0x7FFEu || entry + 2u > vtable_size) return 0;
  {
    uint32_t off = load16(v, vt + entry);
    return off ? t + off : 0;
  }
}

static uint32_t field_lookup(const verifier_t *v, uint32_t t, uint32_t vt,
                             unsigned id) {
  return field_at(v, t, vt, load16(v, vt), id);
}

static int verify_union(verifier_t *v, uint32_t t, uint32_t vt,
                        uint32_t value_pos, const etk_fb_table_desc_t *desc,
                        const etk_fb_field_desc_t *f, unsigned depth) {
  uint32_t type_pos = f->id > 0 ? field_lookup(v, t, vt, f->id - 1u) : 0;
  uint8_t type = 0;
  uint32_t target;
  int rc;
  if (type_pos != 0) {
    /* the type field's own descriptor may be missing: check it here */
    if (!in_range(v, type_pos, 1))
      return fail(v, ETK_E_BAD_VTABLE, vt + 4u + 2u * (f->id - 1u), desc, f);
    type = v->buf[type_pos];
  }
  if (type == 0) {
    if (value_pos != 0) return fail(v, ETK_E_BAD_UNION, value_pos, desc, f);
    return ETK_OK;
  }
  if (value_pos == 0) return fail(v, ETK_E_BAD_UNION, type_pos, desc, f);
  if (type >= f->union_count || f->union_tables == NULL ||
      f->union_tables[type] == NULL)
    return fail(v, ETK_E_BAD_UNION, type_pos, desc, f);
  if ((rc = follow(v, value_pos, &target, desc, f)) != ETK_OK) return rc;
  return verify_table(v, target, f->union_tables[type], depth + 1);
}

static int verify_field(verifier_t *v, uint32_t t, uint32_t vt, uint32_t pos,
                        const etk_fb_table_desc_t *desc,
                        const etk_fb_field_desc_t *f, unsigned depth) {
  uint32_t target, vpos, count, i;
  int rc;
  if (f->kind == ETK_FB_UNION)
    return verify_union(v, t, vt, pos, desc, f, depth);
  if (pos == 0) return ETK_OK;
  switch (f->kind) {
    case ETK_FB_SCALAR:
    case ETK_FB_UNION_TYPE:
      if (f->size == 1 && !enum_valid(f->enum_mask, v->buf[pos]))
        return fail(v, ETK_E_BAD_ENUM, pos, desc, f);
      return ETK_OK;
    case ETK_FB_STRUCT:
      return ETK_OK;
    case ETK_FB_STRING:
      return verify_string(v, pos, desc, f);
    case ETK_FB_TABLE:
      if (f->table == NULL)
        return fail(v, ETK_E_INVALID_ARGUMENT, pos, desc, f);
      if ((rc = follow(v, pos, &target, desc, f)) != ETK_OK) return rc;
      return verify_table(v, target, f->table, depth + 1);
    case ETK_FB_VEC_SCALAR:
    case ETK_FB_VEC_STRUCT: {
      uint32_t size = f->size, align = f->size;
      if (f->kind == ETK_FB_VEC_STRUCT && f->align) align = f->align;
      if (size == 0 || (align & (align - 1u)) != 0)
        return fail(v, ETK_E_INVALID_ARGUMENT, pos, desc, f);
      rc = verify_vector(v, pos, size, align, &vpos, &count, desc, f);
      if (rc != ETK_OK) return rc;
      if (f->kind == ETK_FB_VEC_SCALAR && size == 1 && f->enum_mask != 0) {
        if ((rc = charge(v, count, vpos, desc, f)) != ETK_OK) return rc;
        for (i = 0; i < count; i++)
          if (!enum_valid(f->enum_mask, v->buf[vpos + 4u + i]))
            return fail(v, ETK_E_BAD_ENUM, vpos + 4u + i, desc, f);
      }
      return ETK_OK;
    }
    case ETK_FB_VEC_STRING:
    case ETK_FB_VEC_TABLE:
      if (f->kind == ETK_FB_VEC_TABLE && f->table == NULL)
        return fail(v, ETK_E_INVALID_ARGUMENT, pos, desc, f);
      rc = verify_vector(v, pos, 4, 4, &vpos, &count, desc, f);
      if (rc != ETK_OK) return rc;
      for (i = 0; i < count; i++) {
        uint32_t element = vpos + 4u + 4u * i;
        if (f->kind == ETK_FB_VEC_STRING) {
          rc = verify_string(v, element, desc, f);
        } else {
          rc = follow(v, element, &target, desc, f);
          if (rc == ETK_OK) rc = verify_table(v, target, f->table, depth + 1);
        }
        if (rc != ETK_OK) return rc;
      }
      return ETK_OK;
    default:
      return fail(v, ETK_E_INVALID_ARGUMENT, pos, desc, f);
  }
}

static vtable_memo_t *memo_slot(verifier_t *v, const etk_fb_table_desc_t *desc,
                                uint32_t vt) {
  uint32_t h = (vt >> 1) ^ (uint32_t)((uintptr_t)desc >> 4);
  return &v->memo[(h ^ (h >> 6)) & (VTABLE_MEMO_SLOTS - 1u)];
}

/* The field loop of verify_table for the table at t (vtable at vt, header
 * checked): every check, in field order; on success records the memo. */
static int verify_fields(verifier_t *v, uint32_t t, uint32_t vt,
                         uint32_t vtable_size, const etk_fb_table_desc_t *desc,
                         unsigned depth) {
  uint64_t deep = 0;
  uint32_t extent = 0, max_align = 1;
  int memoizable = desc->field_count <= 64;
  int rc;
  for (uint16_t i = 0; i < desc->field_count; i++) {
    const etk_fb_field_desc_t *f = &desc->fields[i];
    uint32_t size, align, pos = field_at(v, t, vt, vtable_size, f->id);
    if (!field_geometry(f, &size, &align))
      return fail(v, ETK_E_INVALID_ARGUMENT, t, desc, f);
    if (pos != 0) {
      if (!in_range(v, pos, size))
        return fail(v, ETK_E_BAD_VTABLE, vt + 4u + 2u * f->id, desc, f);
      if (pos & (align - 1u)) return fail(v, ETK_E_BAD_ALIGNMENT, pos, desc, f);
      if (align > 16 || pos < t) memoizable = 0;
      if (align > max_align) max_align = align;
      if (pos - t + size > extent) extent = pos - t + size;
      /* inline scalars and structs need nothing more, except 1-byte enums */
      if ((f->kind == ETK_FB_SCALAR && (f->size != 1 || f->enum_mask == 0)) ||
          f->kind == ETK_FB_STRUCT)
        continue;
    } else if (f->required) {
      return fail(v, ETK_E_MISSING_FIELD, t, desc, f);
    } else if (f->kind != ETK_FB_UNION) {
      continue; /* absent, optional: nothing to check (unions check the pair) */
    }
    if (i < 64) deep |= (uint64_t)1 << i;
    rc = verify_field(v, t, vt, pos, desc, f, depth);
    if (rc != ETK_OK) return rc;
  }
  if (memoizable) {
    vtable_memo_t *m = memo_slot(v, desc, vt);
    m->desc = desc;
    m->vt = vt;
    m->extent = extent;
    m->align = max_align;
    m->t_mod = t & (max_align - 1u);
    m->deep = deep;
  }
  return ETK_OK;
}

/* Verifies the table at t (the caller's follow() checked its 4 bytes).
 * A table whose vtable, schema table and alignment were seen before (most
 * tables of a large buffer share a few vtables) skips the per-field
 * geometry checks the memo proves, keeping the range check and the
 * verification of every string, vector, table and union it holds. */
static int verify_table(verifier_t *v, uint32_t t,
                        const etk_fb_table_desc_t *desc, unsigned depth) {
  uint32_t vt, vtable_size;
  int64_t vtable_pos;
  int rc;
  if (depth > v->max_depth) return fail(v, ETK_E_TOO_DEEP, t, desc, NULL);
  if ((rc = charge(v, 1, t, desc, NULL)) != ETK_OK) return rc;
  if (t & 3u) return fail(v, ETK_E_BAD_ALIGNMENT, t, desc, NULL);
  /* follow() guaranteed 4 bytes at t for the soffset */
  vtable_pos = (int64_t)t - (int32_t)load32(v, t);
  if (vtable_pos < 0 || !in_range(v, (uint64_t)vtable_pos, 2))
    return fail(v, ETK_E_BAD_VTABLE, t, desc, NULL);
  vt = (uint32_t)vtable_pos;
  if (vt & 1u) return fail(v, ETK_E_BAD_ALIGNMENT, vt, desc, NULL);
  vtable_size = load16(v, vt);
  /* A vtable shorter than its 4-byte header has no field entries: every
   * field reads as absent, as in the official verifier. */
  if ((vtable_size & 1u) || !in_range(v, vt, vtable_size))
    return fail(v, ETK_E_BAD_VTABLE, vt, desc, NULL);
  const vtable_memo_t *m = memo_slot(v, desc, vt);
  if (m->desc != desc || m->vt != vt || m->t_mod != (t & (m->align - 1u)) ||
      !in_range(v, t, m->extent))
    return verify_fields(v, t, vt, vtable_size, desc, depth);
  for (uint64_t deep = m->deep; deep != 0; deep &= deep - 1) {
    unsigned i = 0;
    while (!((deep >> i) & 1u)) i++;
    const etk_fb_field_desc_t *f = &desc->fields[i];
    uint32_t pos = field_at(v, t, vt, vtable_size, f->id), target;
    if (f->kind == ETK_FB_STRING) { /* verify_field's work, without its
                                       switch, for the common kinds */
      rc = verify_string(v, pos, desc, f);
    } else if (f->kind == ETK_FB_TABLE && f->table != NULL) {
      rc = follow(v, pos, &target, desc, f);
      if (rc == ETK_OK) rc = verify_table(v, target, f->table, depth + 1);
    } else {
      rc = verify_field(v, t, vt, pos, desc, f, depth);
    }
    if (rc != ETK_OK) return rc;
  }
  return ETK_OK;
}

int etk_fb_verify(const uint8_t *buf, size_t len,
                  const etk_fb_table_desc_t *root,
                  const etk_fb_verify_options_t *options, uint32_t *root_table,
                  etk_fb_verify_error_t *err) {
  verifier_t v;
  uint32_t base = 0, root_pos;
  int size_prefixed = options != NULL && options->size_prefixed;
  const char *ident = options != NULL ? options->ident : NULL;
  int rc;
  if (err != NULL) memset(err, 0, sizeof *err);
  if (root_table != NULL) *root_table = 0;
  v.buf = buf;
  v.err = err;
  v.end = 0;
  memset(v.memo, 0, sizeof v.memo);
  if (buf == NULL || root == NULL)
    return fail(&v, ETK_E_INVALID_ARGUMENT, 0, root, NULL);
  if (len > 0xFFFFFFFFu) return fail(&v, ETK_E_LIMIT, 0, root, NULL);
  v.end = (uint32_t)len;
  if (size_prefixed) {
    uint32_t size;
    if (v.end < 4) return fail(&v, ETK_E_TRUNCATED, 0, root, NULL);
    size = load32(&v, 0);
    if (size > v.end - 4) return fail(&v, ETK_E_TRUNCATED, 0, root, NULL);
    v.end = 4 + size;
    base = 4;
  }
  v.max_depth = options != NULL && options->max_depth != 0
                    ? options->max_depth
                    : ETK_FB_DEFAULT_MAX_DEPTH;
  v.budget = options != NULL && options->max_objects != 0
                 ? options->max_objects
                 : 8u * (uint64_t)v.end + 1024u;
  if (!in_range(&v, base, ident != NULL ? 8 : 4))
    return fail(&v, ETK_E_TRUNCATED, base, root, NULL);
  if (ident != NULL && memcmp(buf + base + 4, ident, 4) != 0)
    return fail(&v, ETK_E_BAD_IDENTIFIER, base + 4, root, NULL);
  if ((rc = follow(&v, base, &root_pos, root, NULL)) != ETK_OK) return rc;
  if ((rc = verify_table(&v, root_pos, root, 1)) != ETK_OK) return rc;
  if (root_table != NULL) *root_table = root_pos;
  return ETK_OK;
}
