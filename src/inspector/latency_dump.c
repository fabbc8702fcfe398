/*
 * latency_dump.c - the latency sketches of a stats-mode ETDump
 * (etkit/latency_dump.h): finding the "etkit:latency_sketches=" RunData
 * and decoding its allocator names into sketches.
 *
 * Untrusted input: every number is range-checked against the dump (run
 * and event indexes) and the sketch bytes go through
 * etk_sketch_deserialize, which checks every field.
 */
#include "etkit/latency_dump.h"

#include <string.h>

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int etk_base64_decode(const char *text, size_t len, uint8_t *out, size_t cap,
                      size_t *n) {
  uint32_t acc = 0;
  unsigned bits = 0;
  size_t used = 0, pad = 0;
  *n = 0;
  while (pad < 2 && len > 0 && text[len - 1] == '=') {
    len--;
    pad++;
  }
  if ((len + pad) % 4u != 0 && pad != 0) return ETK_E_FORMAT;
  if (len % 4u == 1u) return ETK_E_FORMAT;
  for (size_t i = 0; i < len; i++) {
    const char *at = text[i] ? strchr(alphabet, text[i]) : NULL;
    if (at == NULL) return ETK_E_FORMAT;
    acc = acc << 6 | (uint32_t)(at - alphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (used == cap) return ETK_E_FULL;
      out[used++] = (uint8_t)(acc >> bits);
    }
  }
  *n = used;
  return ETK_OK;
}

/* Reads decimal digits at s[*i..len) into *v (at most 20 digits). */
static int read_u64(const char *s, size_t len, size_t *i, uint64_t *v) {
  size_t start = *i;
  uint64_t x = 0;
  while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
    if (*i - start >= 19) return 0;
    x = x * 10u + (uint64_t)(s[*i] - '0');
    (*i)++;
  }
  *v = x;
  return *i > start;
}

static int expect(const char *s, size_t len, size_t *i, const char *lit) {
  size_t n = strlen(lit);
  if (len - *i < n || memcmp(s + *i, lit, n) != 0) return 0;
  *i += n;
  return 1;
}

int etk_latency_dump_find(const etk_etdump_t *dump,
                          etk_latency_dump_info_t *info) {
  const size_t plen = sizeof ETK_LATENCY_SKETCHES_PREFIX - 1u;
  size_t runs = etk_etdump_run_count(dump);
  for (size_t r = 0; r < runs; r++) {
    etk_etdump_run_t run;
    const char *p;
    if (etk_etdump_run_get(dump, r, &run) != ETK_OK || run.has_events ||
        run.name.len < plen ||
        memcmp(run.name.data, ETK_LATENCY_SKETCHES_PREFIX, plen) != 0)
      continue;
    if (info != NULL) {
      memset(info, 0, sizeof *info);
      info->run = r;
      info->keys = run.allocator_count;
      p = strstr(run.name.data, ",refused=");
      if (p != NULL) {
        size_t i = (size_t)(p - run.name.data) + 9u;
        (void)read_u64(run.name.data, run.name.len, &i, &info->refused);
      }
    }
    return 1;
  }
  return 0;
}

int etk_latency_dump_key(const etk_etdump_t *dump,
                         const etk_latency_dump_info_t *info, size_t index,
                         etk_latency_key_t *out, etk_error_t *err) {
  const char *why;
  etk_etdump_run_t sk, run;
  etk_etdump_str_t text;
  etk_etdump_event_t ev;
  uint64_t r = 0, e = 0;
  size_t i = 0, n = 0;
  uint8_t bytes[ETK_SKETCH_MAX_BYTES];
  if (dump == NULL || info == NULL || out == NULL || index >= info->keys)
    return etk_error_set(err, ETK_E_INVALID_ARGUMENT, ETK_NO_OFFSET,
                         "no latency sketch %zu", index);
  memset(out, 0, sizeof *out);
  why = "not 'r=RUN,e=EVENT,s=BASE64'";
  if (etk_etdump_run_get(dump, info->run, &sk) != ETK_OK) goto bad;
  text = etk_etdump_allocator_name(dump, sk.first_allocator + index);
  if (text.data == NULL) goto bad;
  if (!expect(text.data, text.len, &i, "r=") ||
      !read_u64(text.data, text.len, &i, &r) ||
      !expect(text.data, text.len, &i, ",e=") ||
      !read_u64(text.data, text.len, &i, &e) ||
      !expect(text.data, text.len, &i, ",s="))
    goto bad;
  why = "its run or event does not exist";
  if (r >= etk_etdump_run_count(dump) ||
      etk_etdump_run_get(dump, (size_t)r, &run) != ETK_OK ||
      e >= run.event_count)
    goto bad;
  out->run = (uint32_t)r;
  out->event = run.first_event + (uint32_t)e;
  why = "its event is not a profile event";
  if (etk_etdump_event_get(dump, out->event, &ev) != ETK_OK ||
      ev.kind != ETK_ETDUMP_EVENT_PROFILE)
    goto bad;
  why = "bad base64";
  if (etk_base64_decode(text.data + i, text.len - i, bytes, sizeof bytes, &n) !=
      ETK_OK)
    goto bad;
  why = "bad sketch bytes";
  if (etk_sketch_deserialize(&out->sketch, bytes, n, &i) != ETK_OK || i != n)
    goto bad;
  return ETK_OK;
bad:
  return etk_error_set(err, ETK_E_FORMAT, ETK_NO_OFFSET,
                       "latency sketch %zu of run %zu: %s", index, info->run,
                       why);
}

long etk_latency_dump_key_of_event(const etk_etdump_t *dump,
                                   const etk_latency_dump_info_t *info,
                                   size_t event) {
  for (size_t k = 0; info != NULL && k < info->keys; k++) {
    etk_latency_key_t key;
    if (etk_latency_dump_key(dump, info, k, &key, NULL) == ETK_OK &&
        key.event == event)
      return (long)k;
  }
  return -1;
}
