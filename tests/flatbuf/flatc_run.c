/*
 * flatc_run.c - see flatc_run.h.  Each call works in a fresh directory
 * under $TMPDIR (etk_test_temp_path) so parallel ctest runs do not collide;
 * paths are single-quoted for the shell (they never contain quotes: they
 * come from the build tree and our own temp names).
 */
#include "flatc_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etk_test.h"

const char *flatc_path(void) {
#ifdef ETK_FLATC_PATH
  static const char path[] = ETK_FLATC_PATH;
  if (path[0] != 0) return path;
#endif
  return NULL;
}

const char *flatc_etdump_schema(void) {
  return ETKIT_SOURCE_DIR "/schema/etdump_schema_flatcc.fbs";
}

/* Paths to delete at exit, files before their directories (reverse order
 * of creation). */
#define MAX_TEMP_PATHS 256
static char *temp_paths[MAX_TEMP_PATHS];
static int temp_path_count;

static void remove_temp_paths(void) {
  while (temp_path_count > 0) {
    char *p = temp_paths[--temp_path_count];
    remove(p); /* files and empty directories alike */
    free(p);
  }
}

static void remember(const char *path) {
  if (temp_path_count == 0) atexit(remove_temp_paths);
  if (temp_path_count < MAX_TEMP_PATHS) {
    char *copy = malloc(strlen(path) + 1);
    if (copy) {
      strcpy(copy, path);
      temp_paths[temp_path_count++] = copy;
    }
  }
}

static const char *fresh_dir(void) {
  static char dir[4096];
  snprintf(dir, sizeof dir, "%s", etk_test_temp_path("flatc"));
  if (mkdir(dir, 0700) != 0) return NULL;
  remember(dir);
  return dir;
}

static int run(const char *command) {
  int status = system(command);
  if (status != 0)
    printf("# command failed (status %d): %s\n", status, command);
  return status;
}

const char *flatc_binary_to_json(const uint8_t *bytes, size_t len,
                                 int defaults_json) {
  static char json_path[4200];
  char bin_path[4200], command[16384];
  const char *dir = fresh_dir();
  if (!flatc_path() || !dir) return NULL;
  snprintf(bin_path, sizeof bin_path, "%s/dump.etdp", dir);
  remember(bin_path);
  FILE *f = fopen(bin_path, "wb");
  if (!f) return NULL;
  size_t written = fwrite(bytes, 1, len, f);
  if (fclose(f) != 0 || written != len) return NULL;
  snprintf(command, sizeof command,
           "'%s' --json --strict-json %s --size-prefixed --raw-binary -o '%s' "
           "'%s' -- '%s'",
           flatc_path(), defaults_json ? "--defaults-json" : "", dir,
           flatc_etdump_schema(), bin_path);
  snprintf(json_path, sizeof json_path, "%s/dump.json", dir);
  remember(json_path);
  if (run(command) != 0) return NULL;
  return json_path;
}

uint8_t *flatc_json_to_binary(const char *json_path, size_t *len) {
  char command[16384], bin_path[4200];
  const char *dir = fresh_dir();
  const char *base = strrchr(json_path, '/');
  if (!flatc_path() || !dir) return NULL;
  base = base ? base + 1 : json_path;
  snprintf(command, sizeof command, "'%s' -b --size-prefixed -o '%s' '%s' '%s'",
           flatc_path(), dir, flatc_etdump_schema(), json_path);
  /* flatc names the output after the JSON file, with the schema's
   * file_extension */
  snprintf(bin_path, sizeof bin_path, "%s/%.*s.etdp", dir,
           (int)(strlen(base) -
                 (strrchr(base, '.') ? strlen(strrchr(base, '.')) : 0)),
           base);
  remember(bin_path);
  if (run(command) != 0) return NULL;
  return etk_test_read_file(bin_path, len);
}
