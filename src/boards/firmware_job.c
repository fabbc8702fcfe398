/*
 * firmware_job.c - parser of the firmware's job file (firmware_job.h).
 */
#include "firmware_job.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy(char *dst, const char *src, const char *key, char *why,
                size_t why_size) {
  if (strlen(src) >= FW_JOB_PATH) {
    snprintf(why, why_size, "%s: path longer than %d bytes", key,
             FW_JOB_PATH - 1);
    return -1;
  }
  strcpy(dst, src);
  return 0;
}

static int number(const char *v, unsigned long max, unsigned long *out) {
  char *end;
  unsigned long n = strtoul(v, &end, 10);
  if (!*v || *end || n > max) return -1;
  *out = n;
  return 0;
}

static int parse_line(char *line, fw_job_t *job, char *why, size_t ws) {
  char *sp = strchr(line, ' ');
  const char *v = sp ? sp + 1 : "";
  if (sp) *sp = 0;
  unsigned long n = 0;
  if (!strcmp(line, "program")) return copy(job->program, v, line, why, ws);
  if (!strcmp(line, "etdump")) return copy(job->etdump, v, line, why, ws);
  if (!strcmp(line, "debug_buffer"))
    return copy(job->debug_buffer, v, line, why, ws);
  if (!strcmp(line, "output_dir"))
    return copy(job->output_dir, v, line, why, ws);
  if (!strcmp(line, "input")) {
    if (job->input_count == FW_JOB_MAX_INPUTS) {
      snprintf(why, ws, "more than %d inputs", FW_JOB_MAX_INPUTS);
      return -1;
    }
    return copy(job->inputs[job->input_count++], v, line, why, ws);
  }
  if (!strcmp(line, "rtol") || !strcmp(line, "atol")) {
    char *end;
    double d = strtod(v, &end);
    if (!*v || *end || !(d >= 0)) {
      snprintf(why, ws, "%s: not a tolerance: '%s'", line, v);
      return -1;
    }
    *(line[0] == 'r' ? &job->rtol : &job->atol) = d;
    return 0;
  }
  /* the field's offset in fw_job_t; `wide` an unsigned long, else an int */
  static const struct {
    const char *key;
    unsigned long max;
    size_t at;
    int wide;
  } nums[] = {
      {"iterations", 1000000, offsetof(fw_job_t, iterations), 1},
      {"warmup", 1000000, offsetof(fw_job_t, warmup), 1},
      {"debug_level", 3, offsetof(fw_job_t, debug_level), 0},
      {"profile_level", 1, offsetof(fw_job_t, profile_level), 0},
      {"verify", 1, offsetof(fw_job_t, verify), 0},
      {"transport", 1, offsetof(fw_job_t, transport), 0},
      {"calibrate", 1, offsetof(fw_job_t, calibrate), 0},
      {"profile_mode", 1, offsetof(fw_job_t, profile_mode), 0},
      {"stats_error_ppm", 200000, offsetof(fw_job_t, stats_error_ppm), 1}};
  for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
    if (strcmp(line, nums[k].key)) continue;
    if (number(v, nums[k].max, &n)) {
      snprintf(why, ws, "%s: not a number up to %lu: '%s'", line, nums[k].max,
               v);
      return -1;
    }
    char *field = (char *)job + nums[k].at;
    if (nums[k].wide)
      *(unsigned long *)(void *)field = n;
    else
      *(int *)(void *)field = (int)n;
    return 0;
  }
  snprintf(why, ws, "unknown key '%.40s'", line);
  return -1;
}

int fw_job_parse(char *text, size_t len, fw_job_t *job, char *why,
                 size_t why_size) {
  memset(job, 0, sizeof *job);
  job->iterations = 1;
  job->rtol = 1e-5;
  job->atol = 1e-8;
  text[len] = 0;
  for (char *line = text; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    if (*line && *line != '#' && parse_line(line, job, why, why_size))
      return -1;
    line = nl ? nl + 1 : NULL;
  }
  if (!job->program[0]) {
    snprintf(why, why_size, "no 'program' line");
    return -1;
  }
  return 0;
}
