/*
 * bench_flatbuf.c - builder and verifier throughput on ETDump-shaped data.
 *
 * Builds one "Execute" block of OPERATOR_CALL profile events the way the
 * recorder does (name string, ProfileEvent, Event wrapper, one offset per
 * event), then verifies and walks the result.  Prints "<name> <value>
 * <unit>" lines (see scripts/run-bench.sh); never fails on timings.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etkit/schema.h"

enum { EVENTS = 20000, ROUNDS = 20 };

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static etk_fb_ref_t event_ref(void *ctx, size_t i) {
  return ((etk_fb_ref_t *)ctx)[i];
}

static int build_block(etk_fb_builder_t *b, etk_fb_ref_t *events,
                       const uint8_t **out, size_t *len) {
  etk_fb_ref_t name = etk_fb_create_string(b, "Execute", 7);
  for (uint32_t i = 0; i < EVENTS; i++) {
    etk_fb_ref_t event_name = etk_fb_create_string(b, "OPERATOR_CALL", 13);
    etk_fb_table_start(b);
    etk_fb_add_u64(b, ETK_ETDUMP_PROFILE_EVENT_START_TIME, 1000u + i, 0, 0);
    etk_fb_add_u64(b, ETK_ETDUMP_PROFILE_EVENT_END_TIME, 1500u + i, 0, 0);
    etk_fb_add_i32(b, ETK_ETDUMP_PROFILE_EVENT_CHAIN_INDEX, 0, 0, 0);
    etk_fb_add_i32(b, ETK_ETDUMP_PROFILE_EVENT_INSTRUCTION_ID,
                   (int32_t)(i % 14), -1, 0);
    etk_fb_add_ref(b, ETK_ETDUMP_PROFILE_EVENT_NAME, event_name);
    etk_fb_ref_t profile = etk_fb_table_end(b);
    etk_fb_table_start(b);
    etk_fb_add_ref(b, ETK_ETDUMP_EVENT_PROFILE_EVENT, profile);
    events[i] = etk_fb_table_end(b);
  }
  etk_fb_ref_t event_vector =
      etk_fb_create_offset_vector_cb(b, EVENTS, event_ref, events);
  etk_fb_table_start(b);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_NAME, name);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA_EVENTS, event_vector);
  etk_fb_ref_t run = etk_fb_table_end(b);
  etk_fb_ref_t runs = etk_fb_create_offset_vector(b, &run, 1);
  etk_fb_table_start(b);
  etk_fb_add_ref(b, ETK_ETDUMP_RUN_DATA, runs);
  etk_fb_ref_t root = etk_fb_table_end(b);
  return etk_fb_finish(b, root, ETK_ETDUMP_FILE_IDENTIFIER,
                       ETK_FB_SIZE_PREFIXED, out, len);
}

int main(void) {
  size_t cap = (size_t)EVENTS * 80 + 4096;
  uint8_t *mem = malloc(cap);
  etk_fb_ref_t *events = malloc(sizeof *events * EVENTS);
  if (!mem || !events) return 1;
  const uint8_t *out = NULL;
  size_t len = 0;
  double best_build = 1e30, best_verify = 1e30, best_walk = 1e30;
  uint64_t sink = 0;
  for (int round = 0; round < ROUNDS; round++) {
    etk_fb_builder_t b;
    etk_fb_builder_init(&b, mem, cap);
    double t0 = now_seconds();
    if (build_block(&b, events, &out, &len) != ETK_OK) return 1;
    double t1 = now_seconds();
    etk_fb_verify_options_t opt = {.ident = ETK_ETDUMP_FILE_IDENTIFIER,
                                   .size_prefixed = 1};
    uint32_t root_pos;
    if (etk_fb_verify(out, len, &etk_etdump_schema, &opt, &root_pos, NULL) !=
        ETK_OK)
      return 1;
    double t2 = now_seconds();
    etk_fb_table_t root = etk_fb_root(out, root_pos);
    etk_fb_table_t run = etk_fb_vector_table(
        out, etk_fb_get_vector(root, ETK_ETDUMP_RUN_DATA), 0);
    etk_fb_vector_t ev = etk_fb_get_vector(run, ETK_ETDUMP_RUN_DATA_EVENTS);
    for (uint32_t i = 0; i < ev.count; i++) {
      etk_fb_table_t pe = etk_fb_get_table(etk_fb_vector_table(out, ev, i),
                                           ETK_ETDUMP_EVENT_PROFILE_EVENT);
      sink += etk_fb_get_u64(pe, ETK_ETDUMP_PROFILE_EVENT_END_TIME, 0) -
              etk_fb_get_u64(pe, ETK_ETDUMP_PROFILE_EVENT_START_TIME, 0) +
              etk_fb_get_string(pe, ETK_ETDUMP_PROFILE_EVENT_NAME).len;
    }
    double t3 = now_seconds();
    if (t1 - t0 < best_build) best_build = t1 - t0;
    if (t2 - t1 < best_verify) best_verify = t2 - t1;
    if (t3 - t2 < best_walk) best_walk = t3 - t2;
  }
  printf("flatbuf_build_profile_event %.1f ns/event\n",
         best_build * 1e9 / EVENTS);
  printf("flatbuf_bytes_per_profile_event %.1f B/event\n",
         (double)len / EVENTS);
  printf("flatbuf_verify_etdump %.1f MB/s\n", (double)len / best_verify / 1e6);
  printf("flatbuf_verify_profile_event %.1f ns/event\n",
         best_verify * 1e9 / EVENTS);
  printf("flatbuf_read_profile_event %.1f ns/event\n",
         best_walk * 1e9 / EVENTS);
  if (sink == 0) printf("# (unexpected empty walk)\n");
  free(mem);
  free(events);
  return 0;
}
