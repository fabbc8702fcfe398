/* cmd_version.c - `etkit version`: prints the version. */
#include <stdio.h>

#include "cli_args.h"
#include "commands.h"

static const char *const usage_text =
    "usage: etkit version\n"
    "\n"
    "Prints the version of etkit.\n";

static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  (void)ctx;
  (void)id;
  return etk_cli_usage("version", "unexpected argument '%s'", p->value);
}

int etk_cmd_version(int argc, char **argv) {
  int rc = etk_cli_parse("version", usage_text, NULL, 0, argc, argv,
                         apply_option, NULL);
  if (rc) return rc < 0 ? 0 : rc;
  printf("etkit %s\n", ETKIT_VERSION_STRING);
  return 0;
}
