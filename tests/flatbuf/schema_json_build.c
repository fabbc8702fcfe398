/*
 * schema_json_build.c - see schema_json_build.h.  Enum names are resolved
 * with the schema library's name functions (ScalarType, ValueType).
 */
#include "schema_json_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etkit/schema.h"

static int enum_code(const etk_fb_field_desc_t *f, const char *name) {
  for (int code = 0; code < 64; code++) {
    const char *n = NULL;
    if (f->enum_mask == ETK_SCALAR_TYPE_ENUM_MASK &&
        etk_scalar_type_valid(code))
      n = etk_scalar_type_name(code);
    else if (f->enum_mask == ETK_ETDUMP_VALUE_TYPE_ENUM_MASK &&
             etk_etdump_value_type_valid(code))
      n = etk_etdump_value_type_name(code);
    if (n && strcmp(n, name) == 0) return code;
  }
  return -1;
}

/* Raw little-endian bits of a JSON scalar for field f; 0 on error. */
static int scalar_bits(const etk_fb_field_desc_t *f, const json_node_t *j,
                       uint64_t *bits) {
  if (j->type == JSON_TRUE || j->type == JSON_FALSE) {
    *bits = j->type == JSON_TRUE;
    return 1;
  }
  if (j->type == JSON_STRING && f->enum_mask) {
    int code = enum_code(f, j->text);
    if (code < 0) return 0;
    *bits = (uint64_t)(int64_t)code;
    return 1;
  }
  if (j->type != JSON_NUMBER) return 0;
  if (f->is_real) {
    double d = strtod(j->text, NULL);
    if (f->size == 4) {
      float v = (float)d;
      uint32_t u;
      memcpy(&u, &v, 4);
      *bits = u;
    } else {
      memcpy(bits, &d, 8);
    }
    return 1;
  }
  if (j->text[0] == '-')
    *bits = (uint64_t)strtoll(j->text, NULL, 10);
  else
    *bits = strtoull(j->text, NULL, 10);
  return 1;
}

static uint64_t default_bits(const etk_fb_field_desc_t *f) {
  uint64_t bits = (uint64_t)f->default_int;
  if (f->is_real) {
    if (f->size == 4) {
      float v = (float)f->default_real;
      uint32_t u;
      memcpy(&u, &v, 4);
      bits = u;
    } else {
      memcpy(&bits, &f->default_real, 8);
    }
  }
  if (f->size < 8) bits &= ((uint64_t)1 << (8 * f->size)) - 1;
  return bits;
}

static etk_fb_ref_t build_child(etk_fb_builder_t *b,
                                const etk_fb_field_desc_t *f,
                                const json_node_t *j) {
  switch (f->kind) {
    case ETK_FB_STRING:
      return etk_fb_create_string(b, j->text, j->len);
    case ETK_FB_TABLE:
      return schema_json_build(b, f->table, j);
    case ETK_FB_VEC_SCALAR: {
      size_t n = json_count(j);
      uint8_t *data = calloc(n ? n : 1, f->size);
      if (!data) return 0;
      for (size_t i = 0; i < n; i++) {
        uint64_t bits;
        if (!scalar_bits(f, json_at(j, i), &bits)) {
          free(data);
          return 0;
        }
        for (unsigned k = 0; k < f->size; k++)
          data[i * f->size + k] = (uint8_t)(bits >> (8 * k));
      }
      etk_fb_ref_t r = etk_fb_create_vector(b, data, n, f->size, f->size);
      free(data);
      return r;
    }
    case ETK_FB_VEC_TABLE:
    case ETK_FB_VEC_STRING: {
      size_t n = json_count(j);
      etk_fb_ref_t *refs = calloc(n ? n : 1, sizeof *refs);
      if (!refs) return 0;
      for (size_t i = 0; i < n; i++) {
        const json_node_t *e = json_at(j, i);
        refs[i] = f->kind == ETK_FB_VEC_TABLE
                      ? schema_json_build(b, f->table, e)
                      : etk_fb_create_string(b, e->text, e->len);
      }
      etk_fb_ref_t r = etk_fb_create_offset_vector(b, refs, n);
      free(refs);
      return r;
    }
    default:
      return 0;
  }
}

etk_fb_ref_t schema_json_build(etk_fb_builder_t *b,
                               const etk_fb_table_desc_t *desc,
                               const json_node_t *object) {
  etk_fb_ref_t refs[ETK_FB_MAX_FIELDS] = {0};
  if (!object || object->type != JSON_OBJECT) return 0;
  for (const json_node_t *c = object->first_child; c; c = c->next) {
    int known = 0;
    for (uint16_t i = 0; i < desc->field_count; i++)
      known |= strcmp(desc->fields[i].name, c->key) == 0;
    if (!known) {
      printf("# build: %s has no field %s\n", desc->name, c->key);
      return 0;
    }
  }
  for (uint16_t i = 0; i < desc->field_count; i++) {
    const etk_fb_field_desc_t *f = &desc->fields[i];
    const json_node_t *j = json_get(object, f->name);
    if (!j || j->type == JSON_NULL || f->kind == ETK_FB_SCALAR) continue;
    refs[i] = build_child(b, f, j);
    if (!refs[i]) {
      printf("# build: %s.%s failed\n", desc->name, f->name);
      return 0;
    }
  }
  etk_fb_table_start(b);
  for (uint16_t i = 0; i < desc->field_count; i++) {
    const etk_fb_field_desc_t *f = &desc->fields[i];
    const json_node_t *j = json_get(object, f->name);
    if (f->kind != ETK_FB_SCALAR) {
      etk_fb_add_ref(b, f->id, refs[i]);
      continue;
    }
    uint64_t bits;
    if (!j) continue;
    if (!scalar_bits(f, j, &bits)) {
      printf("# build: %s.%s: bad scalar\n", desc->name, f->name);
      return 0;
    }
    uint64_t def = default_bits(f);
    switch (f->size) {
      case 1:
        etk_fb_add_u8(b, f->id, (uint8_t)bits, (uint8_t)def, 0);
        break;
      case 2:
        etk_fb_add_u16(b, f->id, (uint16_t)bits, (uint16_t)def, 0);
        break;
      case 4:
        etk_fb_add_u32(b, f->id, (uint32_t)bits, (uint32_t)def, 0);
        break;
      default:
        etk_fb_add_u64(b, f->id, bits, def, 0);
        break;
    }
  }
  return etk_fb_table_end(b);
}
