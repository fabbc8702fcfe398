/*
 * cmd_capture.c - `etkit capture SOURCE --output-dir DIR`: the files a
 * device sent over a byte pipe, recovered from a serial line, a saved log
 * or stdin (etkit/capture.h does the work; docs/transport.md).
 *
 * SOURCE is a file, "-" for stdin, or a serial device (a character device:
 * set to raw mode with termios at --baud, read until --timeout seconds of
 * silence or an end marker).  Each file found is written into DIR under
 * its name, or as NAME.partial when it is incomplete (never a complete-
 * looking file: a temporary name renamed at the end), with one line on
 * stdout: name, bytes, complete or partial.  Problems go to stderr.
 *
 * Exit status: 0 every file complete, 1 something damaged or incomplete
 * (or nothing found), 2 trouble (usage, unreadable source, unwritable DIR).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "cli_args.h"
#include "commands.h"
#include "etkit/capture.h"
#include "run_support.h"

#define CMD "capture"

static const char *const usage_text =
    "usage: etkit capture SOURCE --output-dir DIR [--baud N] [--timeout S]\n"
    "                     [--keep-log FILE]\n"
    "\n"
    "Finds every file a device sent (etkit transport frames, or upstream's\n"
    "Arm runner blocks '#[RUN THIS]' ... 'echo \"<base64>\" | base64 -d "
    ">NAME'\n"
    "... '#[END]') in SOURCE, mixed with any log text, and writes each one\n"
    "into DIR: complete files under their name, damaged or incomplete ones\n"
    "only as NAME.partial.  SOURCE is a file, '-' for stdin, or a serial\n"
    "device (raw mode at --baud; reading stops after --timeout seconds of\n"
    "silence or at an end marker).\n"
    "\n"
    "options:\n"
    "  --output-dir DIR  where the files go (created if missing)\n"
    "  --baud N          serial speed (default 115200)\n"
    "  --timeout S       seconds of silence that end a serial or stdin read\n"
    "                    (default: 10 for a serial device, none otherwise)\n"
    "  --keep-log FILE   also write every byte read (frames and text) to FILE\n"
    "  -h, --help        this help\n"
    "\n"
    "exit status: 0 all files complete, 1 something damaged, incomplete or\n"
    "nothing found, 2 trouble (usage, unreadable source).\n";

typedef struct capture_cli {
  const char *source, *dir, *baud, *timeout, *keep_log;
} capture_cli_t;

static const etk_cli_option_t options[] = {
    ETK_CLI_STRING("output_dir|output", 'o', capture_cli_t, dir),
    ETK_CLI_STRING("baud", 0, capture_cli_t, baud),
    ETK_CLI_STRING("timeout", 0, capture_cli_t, timeout),
    ETK_CLI_STRING("keep_log", 0, capture_cli_t, keep_log),
};

static int apply_option(void *ctx, const etk_cli_parser_t *p, int id) {
  capture_cli_t *c = ctx;
  if (id != ETK_CLI_POSITIONAL) return 0;
  if (c->source)
    return etk_cli_usage(CMD, "unexpected argument '%s'", p->value);
  c->source = p->value;
  return 0;
}

/* What the file callback needs, and what it saw. */
typedef struct writer {
  const char *dir;
  int trouble; /* a file could not be written */
} writer_t;

static int write_one(void *ctx, const etk_capture_file_t *f) {
  writer_t *w = ctx;
  char name[ETK_TX_NAME_MAX + 32], path[4096];
  snprintf(name, sizeof name, "%s%s", f->out_name,
           f->complete ? "" : ".partial");
  int n = snprintf(path, sizeof path, "%s/%s", w->dir, name);
  etk_error_t err;
  etk_error_clear(&err);
  if (n < 0 || (size_t)n >= sizeof path) {
    etk_cli_fail(CMD, "%s/%s: path too long", w->dir, name);
    w->trouble = 1;
  } else if (etk_write_file(path, f->data, f->size, &err) != ETK_OK) {
    etk_cli_fail_error(CMD, &err);
    w->trouble = 1;
  }
  printf("%-28s %10zu bytes  %s (%s%s)\n", name, f->size,
         f->complete ? "complete" : "partial", etk_capture_kind_name(f->kind),
         f->source == ETK_CAPTURE_ARM_LOG ? ", Arm log" : "");
  for (size_t i = 0; i < f->problem_count; i++)
    fprintf(stderr, "etkit %s: %s: %s\n", CMD, f->name, f->problems[i]);
  return 0;
}

static void on_problem(void *ctx, const char *message) {
  (void)ctx;
  fprintf(stderr, "etkit %s: %s\n", CMD, message);
}

static speed_t baud_constant(unsigned long baud) {
  static const struct {
    unsigned long n;
    speed_t s;
  } table[] = {{9600, B9600},       {19200, B19200},    {38400, B38400},
               {57600, B57600},     {115200, B115200},  {230400, B230400},
               {460800, B460800},   {921600, B921600},  {1000000, B1000000},
               {2000000, B2000000}, {3000000, B3000000}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].n == baud) return table[i].s;
  return (speed_t)0;
}

/* Raw mode at `baud` for a terminal; other character devices are read as
 * they are.  1 on failure (reported). */
static int setup_serial(int fd, const char *path, unsigned long baud) {
  struct termios t;
  if (!isatty(fd)) return 0;
  speed_t s = baud_constant(baud);
  if (s == 0) {
    etk_cli_usage(CMD, "--baud %lu is not a speed termios knows", baud);
    return 1;
  }
  if (tcgetattr(fd, &t) != 0) {
    etk_cli_fail(CMD, "%s: cannot read its line settings: %s", path,
                 strerror(errno));
    return 1;
  }
  /* raw mode (cfmakeraw is not POSIX): bytes as they come, no echo */
  t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR |
                           ICRNL | IXON);
  t.c_oflag &= ~(tcflag_t)OPOST;
  t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
  t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
  t.c_cflag |= CS8;
  cfsetispeed(&t, s);
  cfsetospeed(&t, s);
  t.c_cflag |= CLOCAL | CREAD;
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  if (tcsetattr(fd, TCSANOW, &t) != 0) {
    etk_cli_fail(CMD, "%s: cannot set raw mode: %s", path, strerror(errno));
    return 1;
  }
  return 0;
}

/* Reads fd into the capture until EOF, `timeout_ms` of silence (< 0: no
 * limit) or, when `stop_at_end`, an end marker.  1 on a read error. */
static int pump(int fd, const char *path, etk_capture_t *cap, int timeout_ms,
                int stop_at_end, FILE *keep) {
  static unsigned char buf[1 << 16];
  for (;;) {
    if (timeout_ms >= 0) {
      struct pollfd pfd = {fd, POLLIN, 0};
      int r = poll(&pfd, 1, timeout_ms);
      if (r == 0) return 0; /* silence */
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        etk_cli_fail(CMD, "%s: %s", path, strerror(errno));
        return 1;
      }
    }
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      etk_cli_fail(CMD, "%s: read failed: %s", path, strerror(errno));
      return 1;
    }
    if (n == 0) return 0;
    if (keep && fwrite(buf, 1, (size_t)n, keep) != (size_t)n) {
      etk_cli_fail(CMD, "cannot write the kept log: %s", strerror(errno));
      return 1;
    }
    int rc = etk_capture_feed(cap, buf, (size_t)n);
    if (rc != ETK_OK) {
      etk_cli_fail(CMD, "%s", etk_status_name(rc));
      return 1;
    }
    if (stop_at_end && etk_capture_ended(cap)) return 0;
  }
}

static int parse_numbers(const capture_cli_t *c, unsigned long *baud,
                         double *timeout) {
  size_t n;
  if (c->baud) {
    if (!etk_cli_parse_size(c->baud, &n) || n == 0)
      return etk_cli_usage(CMD, "--baud needs a speed, not '%s'", c->baud);
    *baud = n;
  }
  if (c->timeout) {
    if (!etk_cli_parse_double(c->timeout, timeout) || !(*timeout > 0) ||
        *timeout > 86400)
      return etk_cli_usage(CMD,
                           "--timeout needs seconds (0 < S <= 86400), "
                           "not '%s'",
                           c->timeout);
  }
  return 0;
}

/* Opens SOURCE; *serial says whether it is a character device. */
static int open_source(const char *source, int *serial) {
  *serial = 0;
  if (strcmp(source, "-") == 0) return STDIN_FILENO;
  int fd = open(source, O_RDONLY | O_NOCTTY);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode)) *serial = 1;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    errno = EISDIR;
    return -1;
  }
  return fd;
}

int etk_cmd_capture(int argc, char **argv) {
  capture_cli_t c = {0};
  int rc = etk_cli_parse(CMD, usage_text, options, ETK_CLI_COUNT(options), argc,
                         argv, apply_option, &c);
  if (rc) return rc < 0 ? 0 : rc;
  if (!c.source) return etk_cli_usage(CMD, "SOURCE is required");
  if (!c.dir) return etk_cli_usage(CMD, "--output-dir DIR is required");
  unsigned long baud = 115200;
  double timeout = -1;
  if (parse_numbers(&c, &baud, &timeout)) return 2;

  int serial = 0;
  int fd = open_source(c.source, &serial);
  if (fd < 0) {
    etk_cli_fail(CMD, "cannot open %s: %s", c.source, strerror(errno));
    return 2;
  }
  if (serial && timeout < 0) timeout = 10;
  etk_error_t err;
  etk_error_clear(&err);
  if ((serial && setup_serial(fd, c.source, baud)) ||
      cli_make_dir(c.dir, &err) != ETK_OK) {
    if (err.code) etk_cli_fail_error(CMD, &err);
    if (fd != STDIN_FILENO) close(fd);
    return 2;
  }
  writer_t w = {c.dir, 0};
  etk_capture_callbacks_t cb = {write_one, on_problem, &w};
  etk_capture_t *cap = NULL;
  if (etk_capture_new(&cb, &cap) != ETK_OK) {
    if (fd != STDIN_FILENO) close(fd);
    return etk_cli_fail(CMD, "out of memory") + 1;
  }
  int timeout_ms = timeout < 0 ? -1 : (int)(timeout * 1000 + 0.5);
  FILE *keep = c.keep_log ? fopen(c.keep_log, "wb") : NULL;
  int read_failed = c.keep_log && keep == NULL;
  if (read_failed)
    etk_cli_fail(CMD, "cannot create %s: %s", c.keep_log, strerror(errno));
  else
    read_failed = pump(fd, c.source, cap, timeout_ms, serial, keep);
  if (keep && fclose(keep) != 0 && !read_failed) {
    etk_cli_fail(CMD, "cannot write %s: %s", c.keep_log, strerror(errno));
    read_failed = 1;
  }
  if (fd != STDIN_FILENO) close(fd);
  int fin = etk_capture_finish(cap);
  etk_capture_stats_t st;
  etk_capture_get_stats(cap, &st);
  etk_capture_free(cap);
  if (read_failed || w.trouble || fin != ETK_OK) return 2;
  if (st.files == 0) {
    etk_cli_fail(CMD, "no file found in %s (%llu bytes read)", c.source,
                 (unsigned long long)st.bytes);
    return 1;
  }
  return st.incomplete > 0 || st.problems > 0 ? 1 : 0;
}
