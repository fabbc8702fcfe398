/*
 * schema_json_check.c - see schema_json_check.h.
 *
 * Numbers are compared as text (our value printed in decimal against flatc's
 * token) for integers, so 64-bit values are exact; reals go through strtod.
 * Enums are compared by name, which is how flatc prints them.
 */
#include "schema_json_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etk_test.h"
#include "etkit/schema.h"

static int mismatch(const char *path, const char *field, const char *what) {
  printf("# %s.%s: %s\n", path, field, what);
  return 1;
}

static const char *enum_name(const etk_fb_field_desc_t *f, int v) {
  if (f->enum_mask == ETK_SCALAR_TYPE_ENUM_MASK) return etk_scalar_type_name(v);
  if (f->enum_mask == ETK_ETDUMP_VALUE_TYPE_ENUM_MASK)
    return etk_etdump_value_type_name(v);
  return NULL;
}

/* Decimal text of a raw little-endian integer of `size` bytes. */
static void integer_text(const uint8_t *p, unsigned size, int is_signed,
                         char *out, size_t n) {
  uint64_t u = 0;
  for (unsigned i = 0; i < size; i++) u |= (uint64_t)p[i] << (8 * i);
  if (is_signed) {
    int64_t s;
    if (size < 8 && (u >> (8 * size - 1)) & 1) u |= ~(uint64_t)0 << (8 * size);
    memcpy(&s, &u, sizeof s);
    snprintf(out, n, "%" PRId64, s);
  } else {
    snprintf(out, n, "%" PRIu64, u);
  }
}

static double real_value(const uint8_t *p, unsigned size) {
  if (size == 4) {
    float f;
    uint32_t bits = etk_fb_load_u32(p);
    memcpy(&f, &bits, sizeof f);
    return f;
  }
  double d;
  uint64_t bits = etk_fb_load_u64(p);
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* Compares one scalar at p (NULL = absent, use the default) to JSON j. */
static int check_scalar(const etk_fb_field_desc_t *f, const uint8_t *p,
                        const json_node_t *j, const char *path) {
  char ours[32], msg[160];
  uint8_t def_bytes[8];
  if (!p) { /* absent: the schema default */
    uint64_t d = (uint64_t)f->default_int;
    if (f->is_real) {
      if (f->size == 4) {
        float v = (float)f->default_real;
        memcpy(def_bytes, &v, 4);
      } else {
        memcpy(def_bytes, &f->default_real, 8);
      }
    } else {
      for (int i = 0; i < 8; i++) def_bytes[i] = (uint8_t)(d >> (8 * i));
    }
    p = def_bytes;
  }
  if (!j) return 0; /* JSON without --defaults-json omits defaults */
  if (f->enum_mask) {
    int v = (int8_t)p[0];
    const char *name = enum_name(f, v);
    if (j->type == JSON_STRING) {
      if (name && strcmp(name, j->text) == 0) return 0;
      snprintf(msg, sizeof msg, "enum %d (%s) != \"%s\"", v, name ? name : "?",
               j->text);
      return mismatch(path, f->name, msg);
    }
  }
  if (f->is_real) {
    double v = real_value(p, f->size);
    double e = j->type == JSON_NUMBER ? strtod(j->text, NULL) : 0.0;
    if (f->size == 4 ? (float)v == (float)e : v == e) return 0;
    snprintf(msg, sizeof msg, "%.17g != %s", v,
             j->type == JSON_NUMBER ? j->text : "(not a number)");
    return mismatch(path, f->name, msg);
  }
  if (j->type == JSON_TRUE || j->type == JSON_FALSE) {
    int v = p[0] != 0;
    if (f->size == 1 && v == (j->type == JSON_TRUE)) return 0;
    return mismatch(path, f->name, "bool differs");
  }
  if (j->type != JSON_NUMBER)
    return mismatch(path, f->name, "expected a number");
  integer_text(p, f->size, f->is_signed, ours, sizeof ours);
  if (strcmp(ours, j->text) == 0) return 0;
  snprintf(msg, sizeof msg, "%s != %s", ours, j->text);
  return mismatch(path, f->name, msg);
}

static int check_string(etk_fb_string_t s, const json_node_t *j,
                        const char *path, const char *field) {
  if (!j || j->type == JSON_NULL)
    return s.data ? mismatch(path, field, "present, JSON has none") : 0;
  if (j->type != JSON_STRING)
    return mismatch(path, field, "JSON is not a string");
  if (!s.data) return mismatch(path, field, "absent, JSON has a string");
  if (s.len != j->len || memcmp(s.data, j->text, s.len) != 0 ||
      s.data[s.len] != 0) {
    char msg[200];
    snprintf(msg, sizeof msg, "\"%.*s\" != \"%s\"", (int)s.len, s.data,
             j->text);
    return mismatch(path, field, msg);
  }
  return 0;
}

static int field_known(const etk_fb_table_desc_t *desc, const char *key) {
  for (uint16_t i = 0; i < desc->field_count; i++)
    if (strcmp(desc->fields[i].name, key) == 0) return 1;
  return 0;
}

int schema_json_check(etk_fb_table_t t, const etk_fb_table_desc_t *desc,
                      const json_node_t *obj, const char *path) {
  int bad = 0;
  char sub[512];
  if (!obj || obj->type != JSON_OBJECT)
    return mismatch(path, "", "JSON is not an object");
  for (const json_node_t *c = obj->first_child; c; c = c->next)
    if (!field_known(desc, c->key))
      bad += mismatch(path, c->key, "not in the descriptor");
  for (uint16_t i = 0; i < desc->field_count; i++) {
    const etk_fb_field_desc_t *f = &desc->fields[i];
    const json_node_t *j = json_get(obj, f->name);
    if (j && j->type == JSON_NULL) j = NULL;
    switch (f->kind) {
      case ETK_FB_SCALAR: {
        const uint8_t *p =
            etk_fb_has(t, f->id) ? etk_fb_get_struct(t, f->id) : NULL;
        bad += check_scalar(f, p, j, path);
        break;
      }
      case ETK_FB_STRING:
        bad += check_string(etk_fb_get_string(t, f->id), j, path, f->name);
        break;
      case ETK_FB_TABLE: {
        etk_fb_table_t s = etk_fb_get_table(t, f->id);
        snprintf(sub, sizeof sub, "%s.%s", path, f->name);
        if (!j)
          bad += etk_fb_table_present(s)
                     ? mismatch(path, f->name, "present, JSON has none")
                     : 0;
        else if (!etk_fb_table_present(s))
          bad += mismatch(path, f->name, "absent, JSON has it");
        else
          bad += schema_json_check(s, f->table, j, sub);
        break;
      }
      case ETK_FB_VEC_SCALAR:
      case ETK_FB_VEC_TABLE:
      case ETK_FB_VEC_STRING: {
        etk_fb_vector_t v = etk_fb_get_vector(t, f->id);
        if (!j) {
          if (v.data) bad += mismatch(path, f->name, "present, JSON has none");
          break;
        }
        if (!v.data) {
          bad += mismatch(path, f->name, "absent, JSON has it");
          break;
        }
        if (j->type != JSON_ARRAY || json_count(j) != v.count) {
          bad += mismatch(path, f->name, "element count differs");
          break;
        }
        for (uint32_t k = 0; k < v.count; k++) {
          const json_node_t *e = json_at(j, k);
          snprintf(sub, sizeof sub, "%s.%s[%u]", path, f->name, (unsigned)k);
          if (f->kind == ETK_FB_VEC_TABLE)
            bad += schema_json_check(etk_fb_vector_table(t.buf, v, k), f->table,
                                     e, sub);
          else if (f->kind == ETK_FB_VEC_STRING)
            bad += check_string(etk_fb_vector_string(t.buf, v, k), e, sub, "");
          else
            bad += check_scalar(f, v.data + (size_t)k * f->size, e, sub);
        }
        break;
      }
      default:
        bad += mismatch(path, f->name, "kind not supported by this checker");
    }
  }
  return bad;
}

json_node_t *schema_json_load(const char *path) {
  size_t len = 0;
  unsigned char *text = etk_test_read_file(path, &len);
  if (!text) return NULL;
  size_t at = 0;
  json_node_t *root = json_parse((const char *)text, len, &at);
  if (!root) printf("# %s: JSON syntax error at byte %zu\n", path, at);
  free(text);
  return root;
}
