/*
 * cmd_run_device.c - `etkit run PROGRAM --target BOARD`: the program runs
 * on etkit's firmware (src/boards) on an emulated Cortex-M board in QEMU.
 *
 * The options of a host run are parsed by cmd_run_args.c; the device's own
 * (--target, --timeout, --firmware) are taken out first.  The firmware reads
 * a job file and writes the ETDump, debug buffer and outputs over
 * semihosting into a private temporary folder; only after it exited 0 (or
 * 1 under --verify: a mismatching case) are they copied to where they were
 * asked for, so a fault or a hang never leaves a complete-looking file.
 */
#define _XOPEN_SOURCE 700
#include "cmd_run_device.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_args.h"
#include "cmd_run_args.h"
#include "commands.h"
#include "etkit/device.h"
#include "etkit/program.h"
#include "run_support.h"

#define DEFAULT_TIMEOUT_S 60.0

typedef struct device_options {
  const char *target, *firmware, *keep_log;
  int uart; /* --transport uart */
  double timeout_s;
} device_options_t;

int cli_run_wants_device(int argc, char **argv) {
  for (int k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--")) return 0;
    if (!strcmp(argv[k], "--target") || !strncmp(argv[k], "--target=", 9))
      return 1;
  }
  return 0;
}

/* Moves the device options out of argv into *d; the rest stays in order.
 * 0 or the usage error's status. */
static int take_device_options(int *argc, char **argv, device_options_t *d) {
  int out = 1;
  d->timeout_s = DEFAULT_TIMEOUT_S;
  for (int k = 1; k < *argc; k++) {
    const char *a = argv[k], *v = NULL;
    static const char *const names[] = {"--target", "--timeout", "--firmware",
                                        "--transport", "--keep-log"};
    int which = -1;
    for (int n = 0; n < 5; n++) {
      size_t len = strlen(names[n]);
      if (!strncmp(a, names[n], len) && (a[len] == 0 || a[len] == '=')) {
        which = n;
        v = a[len] == '=' ? a + len + 1 : NULL;
      }
    }
    if (which < 0) {
      argv[out++] = argv[k];
      continue;
    }
    if (!v) {
      if (k + 1 >= *argc)
        return etk_cli_usage(CMD, "%s needs a value", names[which]);
      v = argv[++k];
    }
    if (which == 0) d->target = v;
    if (which == 2) d->firmware = v;
    if (which == 4) d->keep_log = v;
    if (which == 3) {
      if (strcmp(v, "uart") && strcmp(v, "semihosting"))
        return etk_cli_usage(CMD,
                             "--transport is uart or semihosting, not '%s'", v);
      d->uart = !strcmp(v, "uart");
    }
    if (which == 1) {
      char *end;
      d->timeout_s = strtod(v, &end);
      if (!*v || *end || !(d->timeout_s > 0) || d->timeout_s > 86400)
        return etk_cli_usage(CMD,
                             "--timeout needs seconds (0 < S <= 86400), "
                             "not '%s'",
                             v);
    }
  }
  *argc = out;
  argv[out] = NULL;
  return 0;
}

/* out = a + b; -1 when it does not fit */
static int join(char *out, size_t size, const char *a, const char *b) {
  int n = snprintf(out, size, "%s%s", a, b);
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

static void list_boards(FILE *f) {
  size_t n;
  const etk_device_board_t *b = etk_device_boards(&n);
  fprintf(f, "boards for etkit run --target (QEMU machines):\n");
  for (size_t k = 0; k < n; k++)
    fprintf(f, "  %-12s %s\n", b[k].name, b[k].description);
}

/* The board's firmware: --firmware, $ETKIT_FIRMWARE_DIR, the build tree
 * (build/firmware beside build/src/cli/etkit) or the installed
 * share/etkit/firmware beside bin/etkit. */
static int find_firmware(const char *board, char *out, size_t size) {
  const char *env = getenv("ETKIT_FIRMWARE_DIR");
  char name[64];
  if (join(name, sizeof name, board, ".elf")) return 0;
  if (env && *env) {
    char dir[PATH_MAX];
    if (join(dir, sizeof dir, env, "/") || join(out, size, dir, name)) return 0;
    return access(out, R_OK) == 0;
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 0;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  static const char *const rel[] = {"../../firmware",
                                    "../share/etkit/firmware"};
  for (int k = 0; k < 2; k++) {
    char dir[PATH_MAX + 32];
    int w = snprintf(dir, sizeof dir, "%s/%s/", exe, rel[k]);
    if (w > 0 && (size_t)w < sizeof dir && !join(out, size, dir, name) &&
        access(out, R_OK) == 0)
      return 1;
  }
  return 0;
}

static int absolute(const char *path, char *out, size_t size) {
  char *r = realpath(path, NULL);
  if (!r) return -1;
  int ok = strlen(r) < size;
  if (ok) strcpy(out, r);
  free(r);
  return ok ? 0 : -1;
}

static int copy_file(const char *from, const char *to, etk_error_t *err) {
  uint8_t *data = NULL;
  size_t len = 0;
  int rc = etk_read_file(from, 0, &data, &len, err);
  if (rc == ETK_OK) rc = etk_write_file(to, data, len, err);
  free(data);
  return rc;
}

/* Copies every file of the firmware's output folder into `dir`. */
static int copy_outputs(const char *from, const char *dir, etk_error_t *err) {
  int rc = cli_make_dir(dir, err);
  DIR *d = rc == ETK_OK ? opendir(from) : NULL;
  if (rc == ETK_OK && !d)
    return etk_error_set(err, ETK_E_IO, ETK_NO_OFFSET, "%s: cannot read", from);
  for (struct dirent *e; rc == ETK_OK && d && (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char a[PATH_MAX], b[PATH_MAX], fa[PATH_MAX], fb[PATH_MAX];
    if (join(fa, sizeof fa, from, "/") || join(a, sizeof a, fa, e->d_name) ||
        join(fb, sizeof fb, dir, "/") || join(b, sizeof b, fb, e->d_name))
      rc = etk_error_set(err, ETK_E_LIMIT, ETK_NO_OFFSET, "%s: path too long",
                         e->d_name);
    else
      rc = copy_file(a, b, err);
  }
  if (d) closedir(d);
  return rc;
}

static void remove_tree(const char *dir) {
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[PATH_MAX], d2[PATH_MAX];
    if (join(d2, sizeof d2, dir, "/") || join(p, sizeof p, d2, e->d_name))
      continue;
    if (unlink(p) != 0) remove_tree(p);
  }
  if (d) closedir(d);
  rmdir(dir);
}

/* The last "etkit firmware: " line of the console file, without that
 * prefix, in why ("" when none). */
static void console_error(const char *path, char *why, size_t size) {
  static const char prefix[] = "etkit firmware: ";
  why[0] = '\0';
  FILE *f = fopen(path, "r");
  if (f == NULL) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, prefix, sizeof prefix - 1) != 0) continue;
    line[strcspn(line, "\r\n")] = '\0';
    snprintf(why, size, "%.300s", line + sizeof prefix - 1);
  }
  fclose(f);
}

/* A run that went well: the firmware's report lines as they came. */
static void print_console(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, stderr);
  fclose(f);
}

/* The job in `tmp`, the run, the files copied: the exit status. */
static int run_on_board(const options_t *o, const device_options_t *d,
                        const etk_device_board_t *board, const char *firmware,
                        const char *tmp) {
  char program[PATH_MAX], inputs[ETK_DEVICE_MAX_INPUTS][PATH_MAX];
  char job_path[PATH_MAX], etdump[PATH_MAX], debug[PATH_MAX], outdir[PATH_MAX];
  char log[PATH_MAX], console[PATH_MAX];
  etk_error_t err;
  etk_error_clear(&err);
  etk_device_job_t job;
  etk_device_job_init(&job);
  if (absolute(o->program, program, sizeof program))
    return etk_cli_fail(CMD, "%s: cannot open", o->program);
  job.program = program;
  char why_in[512];
  if (cli_device_check_inputs(o, why_in, sizeof why_in))
    return etk_cli_fail(CMD, "%s", why_in);
  if (o->input_count > ETK_DEVICE_MAX_INPUTS)
    return etk_cli_fail(CMD, "the firmware takes at most %d inputs",
                        ETK_DEVICE_MAX_INPUTS);
  for (size_t k = 0; k < o->input_count; k++) {
    if (absolute(o->inputs[k], inputs[k], sizeof inputs[k]))
      return etk_cli_fail(CMD, "%s: cannot open", o->inputs[k]);
    job.inputs[k] = inputs[k];
  }
  job.input_count = o->input_count;
  job.iterations = o->iterations;
  job.warmup = o->warmup;
  job.debug_level = o->debug_level;
  job.profile_level = o->profile_level;
  job.verify = o->verify;
  job.rtol = o->rtol;
  job.atol = o->atol;
  job.calibrate = !o->no_calibrate;
  /* --profile-mode stats [--stats-error E], checked by the host's parse */
  job.profile_mode = o->flight.stats;
  job.stats_error_ppm = o->flight.stats_error > 0
                            ? (unsigned long)(o->flight.stats_error * 1e6 + 0.5)
                            : 0;
  if (join(etdump, sizeof etdump, tmp, "/etdump.etdp") ||
      join(debug, sizeof debug, tmp, "/debug.bin") ||
      join(outdir, sizeof outdir, tmp, "/out") ||
      join(job_path, sizeof job_path, tmp, "/job.txt") ||
      join(log, sizeof log, tmp, "/uart.log") ||
      join(console, sizeof console, tmp, "/console.txt"))
    return etk_cli_fail(CMD, "%s: temporary folder path too long", tmp);
  if (o->etdump) job.etdump = etdump;
  if (o->etdump && o->debug_buffer) job.debug_buffer = debug;
  if (o->output_dir) {
    if (cli_make_dir(outdir, &err)) return etk_cli_fail_error(CMD, &err);
    job.output_dir = outdir;
  }
  etk_device_run_t run;
  memset(&run, 0, sizeof run);
  run.board = board;
  run.firmware = firmware;
  run.job_path = job_path;
  run.timeout_s = d->timeout_s;
  run.console_fd = -1;
  run.console_err_path = console;
  job.transport = d->uart;
  if (d->uart &&
      (run.console_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
    return etk_cli_fail(CMD, "%s: cannot create", log);
  if (etk_device_write_job(job_path, &job, &err))
    return etk_cli_fail_error(CMD, &err);
  etk_device_result_t res;
  int ran = etk_device_run(&run, &res, &err);
  if (run.console_fd >= 0) close(run.console_fd);
  if (d->uart && d->keep_log && copy_file(log, d->keep_log, &err))
    return etk_cli_fail_error(CMD, &err);
  if (ran) return etk_cli_fail_error(CMD, &err);
  if (res.timed_out)
    return etk_cli_fail(CMD,
                        "the firmware on %s did not finish within %g s "
                        "(QEMU killed; --timeout S for a longer limit)",
                        board->name, d->timeout_s);
  if (res.signal)
    return etk_cli_fail(CMD, "qemu-system-arm died of signal %d", res.signal);
  /* the firmware's report lines; on failure only its error line, folded
   * into the one line this command prints */
  char why[320];
  console_error(console, why, sizeof why);
  if (res.status == 3)
    return etk_cli_fail(CMD, "the firmware faulted on %s%s%s", board->name,
                        why[0] ? ": " : "", why);
  if (res.status != 0 && res.status != 1 && why[0])
    return etk_cli_fail(CMD, "%s: %s", board->name, why);
  if (res.status != 0 && res.status != 1)
    return etk_cli_fail(CMD, "the run on %s failed (firmware status %d)",
                        board->name, res.status);
  print_console(console);
  char problem[320];
  if (d->uart && cli_device_collect_uart(log, tmp, problem, sizeof problem))
    return etk_cli_fail(CMD, "%s", problem);
  int rc = ETK_OK;
  if (o->etdump) rc = copy_file(etdump, o->etdump, &err);
  if (rc == ETK_OK && o->etdump && o->debug_buffer)
    rc = copy_file(debug, o->debug_buffer, &err);
  if (rc == ETK_OK && o->output_dir)
    rc = copy_outputs(outdir, o->output_dir, &err);
  if (rc != ETK_OK) return etk_cli_fail_error(CMD, &err);
  if (o->auto_debug_buffer)
    fprintf(stderr, "etkit run: the logged tensors are in %s\n",
            o->debug_buffer);
  fprintf(stderr, "etkit run: %s on %s in %.2f s of QEMU wall time\n",
          o->program, board->name, res.wall_s);
  if (res.status == 1) {
    fprintf(stderr,
            "etkit run: test cases did not match the expected outputs\n");
    return o->verify ? -1 : 0;
  }
  return 0;
}

int etk_cmd_run_device(int argc, char **argv) {
  device_options_t d;
  memset(&d, 0, sizeof d);
  int rc = take_device_options(&argc, argv, &d);
  if (rc) return rc;
  if (d.target && !strcmp(d.target, "help")) {
    list_boards(stdout);
    return 0;
  }
  const etk_device_board_t *board = etk_device_find_board(d.target);
  if (!board) {
    list_boards(stderr);
    return etk_cli_usage(CMD, "unknown board '%s' (--target help lists them)",
                         d.target ? d.target : "");
  }
  options_t o;
  rc = cli_run_parse_args(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  if (o.inputs_from || o.method || o.allocation_events || o.max_memory)
    return etk_cli_usage(CMD, "%s",
                         "--inputs-from, --method, --allocation-events and "
                         "--max-memory are for host runs (not --target)");
  if (cli_flight_wanted(&o.flight))
    return etk_cli_usage(CMD, "%s",
                         "--profile-mode ring and --trigger are for host runs "
                         "(the firmware does not take them yet)");
  etk_file_kind_t kind = etk_file_kind_of_path(o.program);
  if (o.verify && kind != ETK_FILE_BPTE)
    return etk_cli_usage(CMD, "%s", "--verify needs a bundled program (.bpte)");
  etk_error_t err;
  etk_error_clear(&err);
  char qemu[PATH_MAX];
  if (etk_device_find_qemu(qemu, sizeof qemu, &err)) {
    etk_cli_fail_error(CMD, &err);
    return ETK_EXIT_TROUBLE;
  }
  char firmware[PATH_MAX];
  if (d.firmware) {
    if (join(firmware, sizeof firmware, d.firmware, ""))
      return etk_cli_usage(CMD, "--firmware: path too long");
  } else if (!find_firmware(board->name, firmware, sizeof firmware))
    return etk_cli_fail(CMD,
                        "no firmware image for %s (build with "
                        "arm-none-eabi-gcc installed, or --firmware ELF)",
                        board->name);
  const char *t = getenv("TMPDIR");
  char tmp[PATH_MAX];
  if (join(tmp, sizeof tmp, t && *t ? t : "/tmp", "/etkit-device-XXXXXX") ||
      !mkdtemp(tmp)) {
    etk_cli_fail(CMD, "cannot create a temporary folder");
    return ETK_EXIT_TROUBLE;
  }
  int status = run_on_board(&o, &d, board, firmware, tmp);
  remove_tree(tmp);
  /* trouble (a fault, a hang, a firmware error) is 2 with or without
   * --verify; a mismatching case 1 under --verify */
  return status < 0 ? etk_cli_gate_exit(0, 1) : status ? ETK_EXIT_TROUBLE : 0;
}
