/*
 * corpus_gen.c - writes the seed corpus of the graph fuzz target
 * (fuzz/graph/graph_fuzz.c) into a directory:
 *
 *   graph_corpus_gen fuzz/graph/corpus
 *
 *   zip-full        the graph tests' whole ETRecord (graph_fixture.c):
 *                   program, weights, recordings and maps;
 *   json-full       its program, debug_handle_map and delegate_map as
 *                   NUL-separated texts (the target zips them itself, so
 *                   mutations reach the JSON past the CRCs);
 *   json-<damage>   the same with one damage each: a missing value, a
 *                   cycle, a duplicate node, a malformed TensorMeta, sizes
 *                   that overflow.
 * Deterministic: the same bytes on every run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_fixture.h"

static int write_bytes(const char *dir, const char *name, const void *data,
                       size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  size_t n = fwrite(data, 1, len, f);
  return fclose(f) != 0 || n != len;
}

static const char kMaps[] =
    "{\"forward\": {\"0\": 1, \"2\": [3, 4], \"9\": [7]}}";
static const char kDelegates[] =
    "{\"forward\": {\"9\": {\"name\": \"XnnpackBackend\", \"delegate_map\": "
    "{\"0\": [7]}}, \"12\": {\"name\": \"B\", \"delegate_map\": {\"0\": [5, "
    "6]}}}}";

static int write_json(const char *dir, const char *name, const char *from,
                      const char *to) {
  char *prog = graph_fixture_program();
  if (from) prog = graph_fixture_edit(prog, from, to);
  if (!prog) return 1;
  size_t a = strlen(prog), b = sizeof kMaps - 1, c = sizeof kDelegates - 1;
  char *buf = malloc(a + b + c + 2);
  int rc = 1;
  if (buf) {
    memcpy(buf, prog, a);
    buf[a] = 0;
    memcpy(buf + a + 1, kMaps, b);
    buf[a + 1 + b] = 0;
    memcpy(buf + a + b + 2, kDelegates, c);
    rc = write_bytes(dir, name, buf, a + b + c + 2);
  }
  free(buf);
  free(prog);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: graph_corpus_gen DIR\n");
    return 2;
  }
  const char *dir = argv[1];
  size_t len;
  uint8_t *zip = graph_fixture_record(NULL, &len);
  int rc = !zip || write_bytes(dir, "zip-full", zip, len);
  free(zip);
  rc |= write_json(dir, "json-full", NULL, NULL);
  rc |= write_json(dir, "json-missing",
                   "[{\"name\":\"getitem_1\"},{\"name\":\"getitem\"}]",
                   "[{\"name\":\"nowhere\"},{\"name\":\"getitem\"}]");
  rc |= write_json(
      dir, "json-cycle",
      "{\"name\":\"input\",\"arg\":{\"as_tensor\":{\"name\":\"x\"}}",
      "{\"name\":\"input\",\"arg\":{\"as_tensor\":{\"name\":\"aten_cat_"
      "default\"}}");
  rc |= write_json(dir, "json-duplicate",
                   "\"name\":\"aten_add_tensor\",\"target\"",
                   "\"name\":\"aten_convolution_default\",\"target\"");
  rc |= write_json(dir, "json-bad-meta", "\"dtype\":7", "\"dtype\":[7]");
  rc |= write_json(dir, "json-overflow",
                   "\"p_conv_weight\":{\"dtype\":7,\"sizes\":[{\"as_int\":2}",
                   "\"p_conv_weight\":{\"dtype\":7,\"sizes\":[{\"as_int\":"
                   "9223372036854775807}");
  if (rc) fprintf(stderr, "graph_corpus_gen: cannot write %s\n", dir);
  return rc;
}
