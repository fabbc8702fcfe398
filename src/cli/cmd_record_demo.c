/* cmd_record_demo.c - placeholder until the recorder lands. */
#include "commands.h"

int etk_cmd_record_demo(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return etk_cli_fail("record-demo", "not built yet");
}
