/*
 * replay.c - runs a libFuzzer target's corpus as an ordinary test.
 *
 * Linked with one fuzz target (which defines LLVMFuzzerTestOneInput) instead
 * of libFuzzer, so the same corpus is replayed under gcc and the sanitizers
 * by ctest.  Arguments are files or directories; every regular file found is
 * fed to the target once.  "--prefix=HH" makes the files of the arguments
 * after it start with the byte 0xHH (for targets whose first byte selects
 * options, so that plain files, e.g. upstream's, are read as intended);
 * "--prefix=" turns it off.  Exit status 0 unless a file cannot be read (a
 * crash or sanitizer report fails the test by itself).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int prefix = -1; /* byte put before each file's bytes, -1 = none */

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 1;
  }
  size_t cap = 1 << 16, len = 0;
  uint8_t *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      uint8_t *bigger = realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf) return 1;
  /* Exact-size copy so that ASan catches reads past the input. */
  size_t head = prefix >= 0 ? 1u : 0u;
  uint8_t *exact = malloc(len + head ? len + head : 1);
  if (!exact) {
    free(buf);
    return 1;
  }
  if (head) exact[0] = (uint8_t)prefix;
  memcpy(exact + head, buf, len);
  free(buf);
  LLVMFuzzerTestOneInput(exact, len + head);
  free(exact);
  return 0;
}

static int replay_path(const char *path, int *count) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "replay: cannot stat %s\n", path);
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    (*count)++;
    return replay_file(path);
  }
  DIR *d = opendir(path);
  if (!d) return 1;
  int bad = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char child[4096];
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    bad |= replay_path(child, count);
  }
  closedir(d);
  return bad;
}

int main(int argc, char **argv) {
  int bad = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--prefix=", 9) == 0) {
      prefix = argv[i][9] ? (int)strtol(argv[i] + 9, NULL, 16) & 0xFF : -1;
      continue;
    }
    bad |= replay_path(argv[i], &count);
  }
  printf("replayed %d inputs\n", count);
  if (count == 0) {
    fprintf(stderr, "replay: no inputs\n");
    return 1;
  }
  return bad;
}
