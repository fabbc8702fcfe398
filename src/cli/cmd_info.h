/*
 * cmd_info.h - the parts of `etkit info` (cmd_info.c parses and
 * dispatches): the summary of an ETDump or an ETRecord
 * (cmd_info_files.c), and a program's backends, segments, planned memory,
 * operators and sizes (cmd_info_program.c).  Each returns the command's
 * exit status (0, or 1 with one line on stderr).
 */
#ifndef ETKIT_CLI_CMD_INFO_H
#define ETKIT_CLI_CMD_INFO_H

#include "etkit/program.h"

int cli_info_etdump(const char *path);
int cli_info_etrecord(const char *path);

/* After the method listing: delegates by backend, segments, planned
 * buffers. */
void cli_info_program_layout(const etk_program_t *p);
/* `--ops`: per method, each operator with its call count and whether the
 * reference runtime has a kernel. */
void cli_info_ops(const etk_program_t *p);
/* `--sizes`: upstream's size_analysis_tool figures. */
int cli_info_sizes(const etk_program_t *p);
/* --sizes --format json: upstream's size_analysis_tool file on stdout
 * (cmd_info_sizes_json.c). */
int cli_info_sizes_json(const etk_program_t *p);
/* `--sizes --etrecord FILE`: the ETRecord's constants and bytes per
 * module (its state-dict keys' prefixes). */
int cli_info_etrecord_sizes(const char *path);
/* `--selective-build FILE`: writes selected_operators.yaml. */
int cli_info_selective_build(const etk_program_t *p, const char *model_path,
                             const char *out_path);

#endif
