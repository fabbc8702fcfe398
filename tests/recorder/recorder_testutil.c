/*
 * recorder_testutil.c - see recorder_testutil.h.
 */
#include "recorder_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ETKIT_FLATC
#define ETKIT_FLATC ""
#endif

uint64_t rt_clock_read(void *ctx) {
  rt_clock_t *c = (rt_clock_t *)ctx;
  if (c->script_len > 0) {
    c->script_len--;
    return *c->script++;
  }
  c->now += c->step ? c->step : 1;
  return c->now;
}

etk_recorder_t *rt_make(void *arena, size_t size, rt_clock_t *clk) {
  etk_recorder_config_t cfg;
  etk_recorder_t *rec = NULL;
  etk_recorder_config_init(&cfg);
  if (clk->now == 0 && clk->step == 0) clk->now = 1000;
  cfg.clock = rt_clock_read;
  cfg.clock_ctx = clk;
  if (etk_recorder_init(&rec, arena, size, &cfg) != ETK_OK) return NULL;
  return rec;
}

etk_recorder_tensor_t rt_tensor(int32_t scalar_type, uint32_t dim,
                                const int64_t *sizes, const void *data,
                                size_t nbytes) {
  /* in declaration order; NULL strides: contiguous */
  etk_recorder_tensor_t t = {scalar_type, dim, sizes, NULL, data, nbytes};
  return t;
}

int rt_verify(const uint8_t *buf, size_t len, uint32_t *root) {
  etk_fb_verify_options_t opt;
  etk_fb_verify_error_t err;
  uint32_t r = 0;
  int status;
  memset(&opt, 0, sizeof opt);
  memset(&err, 0, sizeof err);
  opt.ident = ETK_ETDUMP_FILE_IDENTIFIER;
  opt.size_prefixed = 1;
  status = etk_fb_verify(buf, len, &etk_etdump_schema, &opt, &r, &err);
  if (status != ETK_OK)
    printf("# verify: %s at byte %u (%s.%s)\n", etk_status_name(status),
           err.offset, err.table ? err.table : "?",
           err.field ? err.field : "?");
  if (root != NULL) *root = r;
  return status;
}

int rt_have_flatc(void) {
  return ETKIT_FLATC[0] != '\0' && access(ETKIT_FLATC, X_OK) == 0;
}

/* Replaces the bare integer 18446744073709551615 with "2^64-1". */
static char *protect_u64_max(const char *text) {
  static const char big[] = "18446744073709551615";
  static const char repl[] = "\"2^64-1\"";
  size_t n = strlen(text), count = 0;
  const char *p;
  char *out, *w;
  for (p = strstr(text, big); p; p = strstr(p + 1, big)) count++;
  out = (char *)malloc(n + count * sizeof repl + 1);
  if (out == NULL) return NULL;
  w = out;
  for (p = text; *p;) {
    if (strncmp(p, big, sizeof big - 1) == 0) {
      memcpy(w, repl, sizeof repl - 1);
      w += sizeof repl - 1;
      p += sizeof big - 1;
    } else {
      *w++ = *p++;
    }
  }
  *w = 0;
  return out;
}

json_t *rt_flatc_decode_file(const char *path) {
  char dir[512], cmd[2048], json_path[1024];
  const char *base, *dot;
  unsigned char *text;
  size_t len;
  char *safe;
  json_t *root;
  json_error_t jerr;
  if (!rt_have_flatc()) return NULL;
  snprintf(dir, sizeof dir, "%s", etk_test_temp_path("flatc"));
  if (mkdir(dir, 0700) != 0) return NULL;
  snprintf(cmd, sizeof cmd,
           "%s --json --strict-json --defaults-json --size-prefixed "
           "--raw-binary -o %s %s/schema/etdump_schema_flatcc.fbs -- %s "
           ">/dev/null 2>&1",
           ETKIT_FLATC, dir, ETKIT_SOURCE_DIR, path);
  if (system(cmd) != 0) {
    rmdir(dir);
    return NULL;
  }
  base = strrchr(path, '/');
  base = base ? base + 1 : path;
  dot = strrchr(base, '.');
  snprintf(json_path, sizeof json_path, "%s/%.*s.json", dir,
           (int)(dot ? (size_t)(dot - base) : strlen(base)), base);
  text = etk_test_read_file(json_path, &len);
  remove(json_path);
  rmdir(dir);
  if (text == NULL) return NULL;
  safe = protect_u64_max((const char *)text);
  free(text);
  if (safe == NULL) return NULL;
  root = json_loads(safe, 0, &jerr);
  if (root == NULL) printf("# json: %s (line %d)\n", jerr.text, jerr.line);
  free(safe);
  return root;
}

json_t *rt_flatc_decode(const uint8_t *buf, size_t len) {
  char path[512]; /* etk_test_temp_path's buffer is reused by the next call */
  FILE *f;
  json_t *root;
  if (!rt_have_flatc()) return NULL;
  snprintf(path, sizeof path, "%s", etk_test_temp_path("dump.etdp"));
  f = fopen(path, "wb");
  if (f == NULL) return NULL;
  if (fwrite(buf, 1, len, f) != len) {
    fclose(f);
    remove(path);
    return NULL;
  }
  fclose(f);
  root = rt_flatc_decode_file(path);
  remove(path);
  return root;
}

int rt_check_dump(const uint8_t *buf, size_t len, json_t **json) {
  *json = NULL;
  if (rt_verify(buf, len, NULL) != ETK_OK) return 0;
  *json = rt_flatc_decode(buf, len);
  if (rt_have_flatc() && *json == NULL) {
    printf("# flatc could not decode a verified dump\n");
    return 0;
  }
  return 1;
}

int rt_finish_check(etk_recorder_t *rec, json_t **json) {
  const uint8_t *out = NULL;
  size_t len = 0;
  *json = NULL;
  if (etk_recorder_finish(rec, &out, &len) != ETK_OK || out == NULL || len == 0)
    return 0;
  return rt_check_dump(out, len, json);
}

json_t *rt_json(json_t *root, const char *path) {
  char key[128];
  const char *p = path;
  json_t *cur = root;
  while (cur != NULL && *p) {
    size_t n = strcspn(p, "/");
    if (n >= sizeof key) return NULL;
    memcpy(key, p, n);
    key[n] = 0;
    if (json_is_array(cur)) {
      char *end;
      long idx = strtol(key, &end, 10);
      cur = (*end == 0 && idx >= 0) ? json_array_get(cur, (size_t)idx) : NULL;
    } else {
      cur = json_object_get(cur, key);
    }
    p += n;
    if (*p == '/') p++;
  }
  return cur;
}

const char *rt_json_str(json_t *root, const char *path) {
  return json_string_value(rt_json(root, path));
}

long long rt_json_int(json_t *root, const char *path, long long missing) {
  json_t *v = rt_json(root, path);
  if (json_is_integer(v)) return json_integer_value(v);
  if (json_is_true(v)) return 1;
  if (json_is_false(v)) return 0;
  return missing;
}

size_t rt_json_len(json_t *root, const char *path) {
  json_t *v = rt_json(root, path);
  return json_is_array(v) ? json_array_size(v) : 0;
}

int rt_json_has(json_t *root, const char *path) {
  return rt_json(root, path) != NULL;
}

/* ------------------------------------------------------------ replay */

typedef struct replay_sink {
  int64_t offsets[256];
  size_t count, next;
} replay_sink_t;

static int replay_sink_write(void *ctx, const void *data, size_t len,
                             uint64_t *offset) {
  replay_sink_t *s = (replay_sink_t *)ctx;
  (void)data;
  (void)len;
  if (s->next >= s->count) return ETK_E_INTERNAL;
  *offset = (uint64_t)s->offsets[s->next++];
  return ETK_OK;
}

static int scalar_type_code(const char *name) {
  for (int c = 0; c < 64; c++) {
    const char *n = etk_scalar_type_name(c);
    if (n != NULL && name != NULL && strcmp(n, name) == 0) return c;
  }
  return -1;
}

static int32_t chain_of(json_t *v) {
  if (json_is_string(v)) return -1; /* "2^64-1" */
  return (int32_t)json_integer_value(v);
}

typedef struct replay_tensors {
  etk_recorder_tensor_t t[64];
  int64_t dims[64][2][ETK_RECORDER_MAX_DIMS];
  size_t count;
} replay_tensors_t;

static uint8_t replay_bytes[1 << 16];

static int replay_tensor(json_t *jt, replay_tensors_t *ts,
                         replay_sink_t *sink) {
  etk_recorder_tensor_t *t;
  json_t *sizes = json_object_get(jt, "sizes");
  json_t *strides = json_object_get(jt, "strides");
  long long offset = json_integer_value(json_object_get(jt, "offset"));
  size_t i = ts->count;
  if (i >= 64 || json_array_size(sizes) > ETK_RECORDER_MAX_DIMS ||
      json_array_size(strides) != json_array_size(sizes))
    return ETK_E_LIMIT;
  t = &ts->t[i];
  memset(t, 0, sizeof *t);
  t->scalar_type =
      scalar_type_code(json_string_value(json_object_get(jt, "scalar_type")));
  t->dim = (uint32_t)json_array_size(sizes);
  for (size_t d = 0; d < t->dim; d++) {
    ts->dims[i][0][d] = json_integer_value(json_array_get(sizes, d));
    ts->dims[i][1][d] = json_integer_value(json_array_get(strides, d));
  }
  t->sizes = ts->dims[i][0];
  t->strides = ts->dims[i][1];
  if (offset != -1) {
    /* the recorder checks nbytes against dtype x shape: give it that many
     * (zero) bytes; the replay sink only reports the golden offset */
    uint64_t n = etk_scalar_type_size(t->scalar_type);
    for (size_t d = 0; d < t->dim; d++) n *= (uint64_t)ts->dims[i][0][d];
    if (n > sizeof replay_bytes) return ETK_E_LIMIT;
    t->data = replay_bytes;
    t->nbytes = (size_t)n;
    sink->offsets[sink->count++] = offset;
  }
  ts->count++;
  return ETK_OK;
}

static int replay_debug(etk_recorder_t *rec, json_t *de, replay_sink_t *sink) {
  static replay_tensors_t ts;
  json_t *entry = json_object_get(de, "debug_entry");
  const char *kind = json_string_value(json_object_get(entry, "val"));
  json_t *out = json_object_get(entry, "output");
  int output = out != NULL && json_is_true(json_object_get(out, "bool_val"));
  long long id_int =
      json_integer_value(json_object_get(de, "delegate_debug_id_int"));
  const char *id_str =
      json_string_value(json_object_get(de, "delegate_debug_id_str"));
  etk_recorder_value_t v;
  int status;
  ts.count = 0;
  sink->count = sink->next = 0;
  etk_recorder_set_chain_debug_handle(
      rec, chain_of(json_object_get(de, "chain_index")),
      (uint32_t)json_integer_value(json_object_get(de, "instruction_id")));
  if (kind == NULL) return ETK_E_FORMAT;
  if (strcmp(kind, "Int") == 0) {
    v = etk_value_int(json_integer_value(rt_json(entry, "int_value/int_val")));
  } else if (strcmp(kind, "Double") == 0) {
    v = etk_value_double(
        json_number_value(rt_json(entry, "double_value/double_val")));
  } else if (strcmp(kind, "Bool") == 0) {
    v = etk_value_bool(json_is_true(rt_json(entry, "bool_value/bool_val")));
  } else if (strcmp(kind, "Tensor") == 0) {
    status = replay_tensor(json_object_get(entry, "tensor"), &ts, sink);
    if (status != ETK_OK) return status;
    v = etk_value_tensor(&ts.t[0]);
  } else if (strcmp(kind, "TensorList") == 0) {
    json_t *list = rt_json(entry, "tensor_list/tensors");
    for (size_t i = 0; i < json_array_size(list); i++) {
      status = replay_tensor(json_array_get(list, i), &ts, sink);
      if (status != ETK_OK) return status;
    }
    v = etk_value_tensor_list(ts.t, ts.count);
  } else {
    return ETK_E_UNSUPPORTED;
  }
  if (id_str != NULL || id_int != -1)
    return etk_recorder_log_delegate_value(
        rec, id_str, id_str ? ETK_DELEGATE_ID_UNSET : (int32_t)id_int, &v);
  return etk_recorder_log_value(
      rec, &v,
      output ? ETK_LOGGED_PROGRAM_OUTPUT : ETK_LOGGED_INTERMEDIATE_OUTPUT);
}

static int replay_profile(etk_recorder_t *rec, rt_clock_t *clk, json_t *pe) {
  static uint64_t times[2];
  const char *name = json_string_value(json_object_get(pe, "name"));
  json_t *md = json_object_get(pe, "delegate_debug_metadata");
  times[0] = (uint64_t)json_integer_value(json_object_get(pe, "start_time"));
  times[1] = (uint64_t)json_integer_value(json_object_get(pe, "end_time"));
  etk_recorder_set_chain_debug_handle(
      rec, (int32_t)json_integer_value(json_object_get(pe, "chain_index")),
      (uint32_t)json_integer_value(json_object_get(pe, "instruction_id")));
  if (md != NULL) {
    uint8_t bytes[1024];
    size_t n = json_array_size(md);
    const char *id_str =
        json_string_value(json_object_get(pe, "delegate_debug_id_str"));
    long long id_int =
        json_integer_value(json_object_get(pe, "delegate_debug_id_int"));
    if (n > sizeof bytes) return ETK_E_LIMIT;
    for (size_t i = 0; i < n; i++)
      bytes[i] = (uint8_t)json_integer_value(json_array_get(md, i));
    return etk_recorder_log_delegate(
        rec, id_str, id_str ? ETK_DELEGATE_ID_UNSET : (int32_t)id_int, times[0],
        times[1], n ? bytes : NULL, n);
  }
  {
    etk_recorder_name_t id = name ? etk_recorder_intern(rec, name) : 0;
    etk_recorder_scope_t s;
    if (name != NULL && id == 0) return ETK_E_FULL;
    clk->script = times;
    clk->script_len = 2;
    s = etk_recorder_begin(rec, id);
    return etk_recorder_end(rec, &s);
  }
}

int rt_replay(etk_recorder_t *rec, rt_clock_t *clk, json_t *dump) {
  static replay_sink_t sink;
  json_t *runs = json_object_get(dump, "run_data");
  etk_data_sink_t ds;
  ds.write = replay_sink_write;
  ds.ctx = &sink;
  etk_recorder_set_data_sink(rec, &ds);
  for (size_t r = 0; r < json_array_size(runs); r++) {
    json_t *run = json_array_get(runs, r);
    json_t *allocators = json_object_get(run, "allocators");
    json_t *events = json_object_get(run, "events");
    int status;
    etk_recorder_set_bundled_input_index(
        rec, (int32_t)rt_json_int(run, "bundled_input_index", -1));
    status = etk_recorder_begin_block(
        rec, json_string_value(json_object_get(run, "name")));
    if (status != ETK_OK) return status;
    for (size_t a = 0; a < json_array_size(allocators); a++) {
      status = etk_recorder_track_allocator(
          rec, rt_json_str(json_array_get(allocators, a), "name"), NULL);
      if (status != ETK_OK) return status;
    }
    if (events != NULL && json_array_size(events) == 0) {
      /* an opened, empty events vector: upstream's delegate start opens it */
      etk_recorder_scope_t s = etk_recorder_begin_delegate(rec, NULL, 0);
      if (s.kind < 0) return s.kind;
    }
    for (size_t e = 0; e < json_array_size(events); e++) {
      json_t *ev = json_array_get(events, e);
      json_t *pe = json_object_get(ev, "profile_event");
      json_t *ae = json_object_get(ev, "allocation_event");
      json_t *de = json_object_get(ev, "debug_event");
      if (pe != NULL)
        status = replay_profile(rec, clk, pe);
      else if (ae != NULL)
        status = etk_recorder_track_allocation(
            rec, (uint32_t)rt_json_int(ae, "allocator_id", 0),
            (uint64_t)rt_json_int(ae, "allocation_size", 0));
      else if (de != NULL)
        status = replay_debug(rec, de, &sink);
      else
        status = ETK_E_FORMAT;
      if (status != ETK_OK) return status;
    }
  }
  etk_recorder_set_chain_debug_handle(rec, ETK_CHAIN_UNSET,
                                      ETK_DEBUG_HANDLE_UNSET);
  return ETK_OK;
}
