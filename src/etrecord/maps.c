/*
 * maps.c - the emitter's three maps (debug_handle_map, delegate_map,
 * instruction_id_to_num_outs_map), export_graph_id, and the lookups the
 * linker needs.
 *
 * Input shapes (JSON; every key is a string):
 *   debug_handle_map  {method: {"<iid>": handle | [handle, ...] | null}}
 *   delegate_map      {method: {"<iid>": {"name": backend,
 *                                         "delegate_map": {id: [h...]} |
 * null}}} num_outs_map      {method: {"<iid>": count}} A map written flat,
 * without the method level (not seen in any known file, but cheap to accept),
 * is filed under "forward": a debug-handle map whose values are
 * integers/lists/null, a delegate map whose values carry "name" or
 * "delegate_map", a num-outs map whose values are integers.
 *
 * Output: rec->maps, one etk_etrecord_method_maps_t per method in
 * first-seen order (debug handles, then delegates, then num-outs).  Entry
 * arrays live in the record arena and are sorted by instruction id, so
 * lookups are binary searches.  Delegate-id lists keep JSON order, which
 * upstream's substring fallback depends on (jansson keeps insertion
 * order).  Instruction-id keys must be canonical decimal integers; any
 * other key is a format error naming the map, method and key.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int map_error(etk_error_t *err, int code, const char *member,
                     const char *fmt, ...) ETK_PRINTF_LIKE(4, 5);
static int map_error(etk_error_t *err, int code, const char *member,
                     const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  etk_error_vset(err, code, ETK_NO_OFFSET, member, fmt, ap);
  va_end(ap);
  return code;
}

static etk_etrecord_method_maps_t *method_slot(etk_etrecord_t *rec,
                                               const char *method,
                                               size_t *cap) {
  for (size_t i = 0; i < rec->maps_count; i++)
    if (strcmp(rec->maps[i].method, method) == 0) return &rec->maps[i];
  if (!ETK_VEC_RESERVE(rec->maps, *cap, rec->maps_count + 1)) return NULL;
  etk_etrecord_method_maps_t *m = &rec->maps[rec->maps_count];
  memset(m, 0, sizeof *m);
  m->method = etr_arena_strdup(&rec->arena, method);
  if (!m->method) return NULL;
  rec->maps_count++;
  return m;
}

static bool key_to_iid(const char *key, int64_t *iid) {
  return etr_parse_int64(key, strlen(key), iid) && *iid >= 0;
}

/* Reads an int or a list of ints into an arena array. */
static bool int_list(etk_etrecord_t *rec, json_t *v, int64_t **out,
                     size_t *count, bool *ok_alloc) {
  *ok_alloc = true;
  if (json_is_integer(v)) {
    int64_t *a = etr_arena_alloc(&rec->arena, sizeof(int64_t));
    if (!a) return *ok_alloc = false;
    a[0] = json_integer_value(v);
    *out = a;
    *count = 1;
    return true;
  }
  if (!json_is_array(v)) return false;
  size_t n = json_array_size(v);
  int64_t *a = etr_arena_calloc(&rec->arena, n ? n : 1, sizeof(int64_t));
  if (!a) return *ok_alloc = false;
  for (size_t i = 0; i < n; i++) {
    json_t *e = json_array_get(v, i);
    if (!json_is_integer(e)) return false;
    a[i] = json_integer_value(e);
  }
  *out = a;
  *count = n;
  return true;
}

/* Orders entries by instruction id, the first field of all three entry
 * structs. */
static int cmp_entry(const void *a, const void *b) {
  int64_t x, y;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  return (x > y) - (x < y);
}

#define OOM(member) map_error(err, ETK_E_NO_MEMORY, member, "out of memory")

/* Decodes one map value into its entry (whose instruction id is set). */
typedef int (*entry_parser_fn)(etk_etrecord_t *rec, const char *method,
                               const char *key, json_t *v, void *entry,
                               const char *member, etk_error_t *err);

static int handle_entry(etk_etrecord_t *rec, const char *method,
                        const char *key, json_t *v, void *entry,
                        const char *member, etk_error_t *err) {
  etk_etrecord_handle_entry_t *e = entry;
  if (json_is_null(v)) {
    e->is_null = true;
    return ETK_OK;
  }
  bool ok_alloc;
  int64_t *h = NULL;
  if (!int_list(rec, v, &h, &e->handle_count, &ok_alloc))
    return ok_alloc ? map_error(err, ETK_E_FORMAT, member,
                                "method '%s', instruction %s: expected a "
                                "debug handle or a list of them",
                                method, key)
                    : OOM(member);
  e->handles = h;
  e->is_list = json_is_array(v);
  return ETK_OK;
}

/* A delegate entry's "delegate_map": delegate id -> debug handles. */
static int delegate_ids(etk_etrecord_t *rec, const char *method, json_t *ids,
                        etk_etrecord_delegate_entry_t *d, const char *member,
                        etk_error_t *err) {
  d->has_id_map = true;
  size_t m = json_object_size(ids);
  etk_etrecord_delegate_id_t *arr =
      etr_arena_calloc(&rec->arena, m ? m : 1, sizeof *arr);
  if (!arr) return OOM(member);
  size_t j = 0;
  const char *id;
  json_t *hv;
  json_object_foreach(ids, id, hv) {
    arr[j].id = etr_arena_strdup(&rec->arena, id);
    if (!arr[j].id) return OOM(member);
    bool ok_alloc;
    int64_t *h = NULL;
    if (!int_list(rec, hv, &h, &arr[j].handle_count, &ok_alloc))
      return ok_alloc ? map_error(err, ETK_E_FORMAT, member,
                                  "method '%s', delegate id '%s': expected "
                                  "a list of debug handles",
                                  method, id)
                      : OOM(member);
    arr[j].handles = h;
    j++;
  }
  d->ids = arr;
  d->id_count = j;
  return ETK_OK;
}

static int delegate_entry(etk_etrecord_t *rec, const char *method,
                          const char *key, json_t *v, void *entry,
                          const char *member, etk_error_t *err) {
  etk_etrecord_delegate_entry_t *d = entry;
  if (!json_is_object(v))
    return map_error(err, ETK_E_FORMAT, member,
                     "method '%s', instruction %s: expected an object with "
                     "\"name\" and \"delegate_map\"",
                     method, key);
  json_t *name = json_object_get(v, "name");
  if (!name) {
    d->backend_name = "";
  } else if (json_is_string(name)) {
    d->backend_name = etr_arena_strdup(&rec->arena, json_string_value(name));
    if (!d->backend_name) return OOM(member);
  } else if (!json_is_null(name)) {
    return map_error(err, ETK_E_FORMAT, member,
                     "method '%s', instruction %s: \"name\" is not a string",
                     method, key);
  }
  json_t *ids = json_object_get(v, "delegate_map");
  if (json_is_object(ids))
    return delegate_ids(rec, method, ids, d, member, err);
  if (ids && !json_is_null(ids))
    return map_error(err, ETK_E_FORMAT, member,
                     "method '%s', instruction %s: \"delegate_map\" is not "
                     "an object",
                     method, key);
  return ETK_OK;
}

/* The most outputs one instruction may declare: far above any real
 * operator or delegate, far below counts that would make the inspector
 * slice debug outputs by absurd amounts. */
#define MAX_NUM_OUTS (1 << 20)

static int num_outs_entry(etk_etrecord_t *rec, const char *method,
                          const char *key, json_t *v, void *entry,
                          const char *member, etk_error_t *err) {
  (void)rec;
  etk_etrecord_num_outs_entry_t *e = entry;
  if (!json_is_integer(v))
    return map_error(err, ETK_E_FORMAT, member,
                     "method '%s', instruction %s: expected an integer", method,
                     key);
  if (json_integer_value(v) < 0 || json_integer_value(v) > MAX_NUM_OUTS)
    return map_error(err, ETK_E_FORMAT, member,
                     "method '%s', instruction %s: num_outs %lld is "
                     "outside 0..%d",
                     method, key, (long long)json_integer_value(v),
                     MAX_NUM_OUTS);
  e->num_outputs = json_integer_value(v);
  return ETK_OK;
}

/* The three maps: member name, kind, entry size and value parser. */
typedef struct map_kind {
  const char *member;
  etk_etrecord_member_kind_t kind;
  size_t entry_size;
  entry_parser_fn parse_entry;
} map_kind_t;

static const map_kind_t map_kinds[] = {
    {"debug_handle_map", ETK_ETRECORD_MEMBER_DEBUG_HANDLE_MAP,
     sizeof(etk_etrecord_handle_entry_t), handle_entry},
    {"delegate_map", ETK_ETRECORD_MEMBER_DELEGATE_MAP,
     sizeof(etk_etrecord_delegate_entry_t), delegate_entry},
    {"instruction_id_to_num_outs_map", ETK_ETRECORD_MEMBER_NUM_OUTS_MAP,
     sizeof(etk_etrecord_num_outs_entry_t), num_outs_entry},
};

/* One method's map of kind mk: one entry per key, in the record arena
 * (never a zero-size allocation), sorted by instruction id. */
static int parse_method_map(etk_etrecord_t *rec, etk_etrecord_method_maps_t *mm,
                            json_t *obj, const map_kind_t *mk,
                            etk_error_t *err) {
  size_t n = json_object_size(obj);
  unsigned char *entries =
      etr_arena_calloc(&rec->arena, n ? n : 1, mk->entry_size);
  if (!entries) return OOM(mk->member);
  size_t k = 0;
  const char *key;
  json_t *v;
  json_object_foreach(obj, key, v) {
    int64_t iid;
    if (!key_to_iid(key, &iid))
      return map_error(err, ETK_E_FORMAT, mk->member,
                       "method '%s': key '%s' is not an instruction id",
                       mm->method, key);
    void *entry = entries + k * mk->entry_size;
    memcpy(entry, &iid, sizeof iid);
    int rc = mk->parse_entry(rec, mm->method, key, v, entry, mk->member, err);
    if (rc != ETK_OK) return rc;
    k++;
  }
  qsort(entries, k, mk->entry_size, cmp_entry);
  switch (mk->kind) {
    case ETK_ETRECORD_MEMBER_DEBUG_HANDLE_MAP:
      mm->handles = (const void *)entries;
      mm->handle_count = k;
      mm->in_debug_handle_map = true;
      break;
    case ETK_ETRECORD_MEMBER_DELEGATE_MAP:
      mm->delegates = (const void *)entries;
      mm->delegate_count = k;
      mm->in_delegate_map = true;
      break;
    default:
      mm->num_outs = (const void *)entries;
      mm->num_outs_count = k;
      mm->in_num_outs_map = true;
      break;
  }
  return ETK_OK;
}

/* Is `root` a flat (method-less) map of this kind? */
static bool is_flat(json_t *root, etk_etrecord_member_kind_t kind) {
  if (json_object_size(root) == 0) return false;
  const char *key;
  json_t *v;
  json_object_foreach(root, key, v) {
    int64_t iid;
    if (!key_to_iid(key, &iid)) return false;
    switch (kind) {
      case ETK_ETRECORD_MEMBER_DEBUG_HANDLE_MAP:
        if (!json_is_integer(v) && !json_is_array(v) && !json_is_null(v))
          return false;
        break;
      case ETK_ETRECORD_MEMBER_DELEGATE_MAP:
        if (!json_is_object(v) || (!json_object_get(v, "name") &&
                                   !json_object_get(v, "delegate_map")))
          return false;
        break;
      default:
        if (!json_is_integer(v)) return false;
        break;
    }
  }
  return true;
}

static int parse_map(etk_etrecord_t *rec, const map_kind_t *mk, size_t *cap,
                     etk_error_t *err) {
  const char *member = mk->member;
  etk_etrecord_member_t const *pub = etk_etrecord_member_find(rec, member);
  if (!pub) return ETK_OK;
  json_t *root;
  int rc = etr_member_load_json(rec, pub, member, &root, err);
  if (rc != ETK_OK) return rc;
  if (!json_is_object(root)) {
    json_decref(root);
    return map_error(err, ETK_E_FORMAT, member,
                     "expected a JSON object keyed by method name");
  }
  if (is_flat(root, mk->kind)) {
    etk_etrecord_method_maps_t *mm = method_slot(rec, "forward", cap);
    rc = mm ? parse_method_map(rec, mm, root, mk, err) : OOM(member);
    json_decref(root);
    return rc;
  }
  const char *method;
  json_t *v;
  json_object_foreach(root, method, v) {
    if (!json_is_object(v)) {
      rc = map_error(err, ETK_E_FORMAT, member,
                     "method '%s': expected an object keyed by instruction "
                     "id",
                     method);
      break;
    }
    etk_etrecord_method_maps_t *mm = method_slot(rec, method, cap);
    if (!mm) {
      rc = OOM(member);
      break;
    }
    rc = parse_method_map(rec, mm, v, mk, err);
    if (rc != ETK_OK) break;
  }
  json_decref(root);
  return rc;
}

int etr_maps_parse(etk_etrecord_t *rec, etk_error_t *err) {
  size_t cap = 0;
  int rc = ETK_OK;
  for (size_t i = 0; i < sizeof map_kinds / sizeof map_kinds[0]; i++)
    if ((rc = parse_map(rec, &map_kinds[i], &cap, err)) != ETK_OK) return rc;
  const etk_etrecord_member_t *pub =
      etk_etrecord_member_find(rec, "export_graph_id");
  if (pub) {
    etr_member_t *m = (etr_member_t *)(void *)pub;
    rc = etr_member_load(rec, m, err);
    if (rc != ETK_OK) return rc;
    json_t *root;
    rc = etr_json_parse((const char *)m->data, m->len, &rec->limits,
                        "export_graph_id", NULL, &root, err);
    if (rc != ETK_OK) return rc;
    if (!json_is_integer(root)) {
      json_decref(root);
      return map_error(err, ETK_E_FORMAT, "export_graph_id",
                       "expected a JSON integer");
    }
    rec->info.export_graph_id = json_integer_value(root);
    rec->info.features |= ETK_ETRECORD_HAS_EXPORT_GRAPH_ID;
    json_decref(root);
  }
  return ETK_OK;
}

const etk_etrecord_method_maps_t *etk_etrecord_maps_at(
    const etk_etrecord_t *rec, size_t index) {
  if (!rec || index >= rec->maps_count) return NULL;
  return &rec->maps[index];
}

const etk_etrecord_method_maps_t *etk_etrecord_maps_find(
    const etk_etrecord_t *rec, const char *method) {
  if (!rec) return NULL;
  if (!method) method = "forward";
  for (size_t i = 0; i < rec->maps_count; i++)
    if (strcmp(rec->maps[i].method, method) == 0) return &rec->maps[i];
  return NULL;
}

/* Binary search over an array sorted by instruction_id (first field of
 * each entry type is not the id, so the accessor is passed). */
#define FIND_BY_IID(arr, count, iid)                         \
  do {                                                       \
    size_t lo_;                                              \
    ETK_LOWER_BOUND(lo_, arr, count, instruction_id, iid);   \
    if (lo_ < (count) && (arr)[lo_].instruction_id == (iid)) \
      return &(arr)[lo_];                                    \
    return NULL;                                             \
  } while (0)

const etk_etrecord_handle_entry_t *etk_etrecord_maps_handles(
    const etk_etrecord_method_maps_t *maps, int64_t instruction_id) {
  if (!maps) return NULL;
  FIND_BY_IID(maps->handles, maps->handle_count, instruction_id);
}

const etk_etrecord_delegate_entry_t *etk_etrecord_maps_delegate(
    const etk_etrecord_method_maps_t *maps, int64_t instruction_id) {
  if (!maps) return NULL;
  FIND_BY_IID(maps->delegates, maps->delegate_count, instruction_id);
}

int64_t etk_etrecord_maps_num_outputs(const etk_etrecord_method_maps_t *maps,
                                      int64_t instruction_id,
                                      int64_t fallback) {
  if (!maps) return fallback;
  size_t lo;
  ETK_LOWER_BOUND(lo, maps->num_outs, maps->num_outs_count, instruction_id,
                  instruction_id);
  if (lo < maps->num_outs_count &&
      maps->num_outs[lo].instruction_id == instruction_id)
    return maps->num_outs[lo].num_outputs;
  return fallback;
}

int etk_etrecord_delegate_resolve(const etk_etrecord_delegate_entry_t *entry,
                                  int64_t id_int, const char *id_str,
                                  unsigned flags, const int64_t **handles,
                                  size_t *count) {
  if (!entry || !handles || !count) return ETK_E_INVALID_ARGUMENT;
  *handles = NULL;
  *count = 0;
  char buf[32];
  const char *id;
  bool is_int = id_int >= 0;
  if (is_int) {
    snprintf(buf, sizeof buf, "%lld", (long long)id_int);
    id = buf;
  } else if (id_str && *id_str) {
    id = id_str;
  } else {
    return ETK_E_INVALID_ARGUMENT;
  }
  const etk_etrecord_delegate_id_t *hit = NULL;
  for (size_t i = 0; i < entry->id_count; i++)
    if (strcmp(entry->ids[i].id, id) == 0) hit = &entry->ids[i];
  /* A string id found as is returns at once; an integer id never equals a
   * (string) key upstream, so it always goes through the substring pass,
   * where the last key contained in str(id) wins. */
  if (!(flags & ETK_ETRECORD_DELEGATE_ID_EXACT) && (is_int || !hit)) {
    for (size_t i = 0; i < entry->id_count; i++)
      if (strstr(id, entry->ids[i].id)) hit = &entry->ids[i];
  }
  if (!hit) return ETK_E_NOT_FOUND;
  *handles = hit->handles;
  *count = hit->handle_count;
  return ETK_OK;
}
