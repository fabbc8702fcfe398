/*
 * arm_log.c - upstream's Arm runner log blocks in the capture's text.
 *
 * PURPOSE
 *   Upstream's arm_executor_runner, with semihosting off, prints its dumps
 *   into the UART log (docs/transport.md, "Upstream's Arm runner log"):
 *
 *     #[RUN THIS]
 *     # Writing debug_buffer.bin [base64]       (with a debug buffer)
 *     echo "<base64>" | base64 -d >debug_buffer.bin
 *     # Writing etdump.bin [base64]
 *     echo "<base64>" | base64 -d >etdump.bin
 *     ...
 *     #[END]
 *
 *   Users of upstream's FVP and boards can therefore hand their logs to
 *   `etkit capture` as they are.  Nothing in the format checks the bytes,
 *   so a base64 line cut before its closing quote, one whose length is not
 *   a multiple of 4, a bad character, an ETDump that does not verify (a
 *   shortened line cuts the size-prefixed FlatBuffer short) or a debug
 *   buffer shorter than the tensors the block's ETDump logged makes the
 *   file incomplete.
 *
 * STREAMING
 *   Lines are parsed byte by byte: a line keeps its first CAP_LINE_MAX
 *   bytes (markers, comments and the tail after the closing quote are
 *   short); the base64 payload of an echo line, however long, is decoded
 *   straight into its file.  Echo lines count only inside a block.  The
 *   files of a block are reported at its #[END] (or the next #[RUN THIS],
 *   or the end of the input), after the debug buffer is checked against
 *   the ETDump printed after it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"

static int b64_value(uint8_t c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

static size_t trimmed_len(const char *s, size_t n) {
  while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
    n--;
  return n;
}

static int guess_kind(const cap_file_t *f) {
  if (strstr(f->name, "debug_buffer")) return ETK_TX_KIND_DEBUG_BUFFER;
  if (strstr(f->name, "etdump")) return ETK_TX_KIND_ETDUMP;
  if (f->size >= 12 && memcmp(f->data + 8, "ED00", 4) == 0)
    return ETK_TX_KIND_ETDUMP;
  return ETK_TX_KIND_OTHER;
}

/* --------------------------------------------------------- the block */

static void check_block(etk_capture_t *cap) {
  arm_log_t *a = &cap->arm;
  etk_etdump_t *dump = NULL;
  for (size_t i = 0; i < a->block.count; i++) {
    cap_file_t *f = a->block.items[i];
    if (f->kind != ETK_TX_KIND_ETDUMP || f->failed) continue;
    etk_error_t err;
    etk_error_clear(&err);
    etk_etdump_t *d = NULL;
    if (etk_etdump_open_memory(f->data, f->size, NULL, &d, &err) != ETK_OK) {
      char msg[ETK_ERROR_LINE_SIZE];
      cap_file_problem(cap, f, "not a whole ETDump: %s",
                       etk_error_format(&err, msg, sizeof msg));
      continue;
    }
    if (dump == NULL)
      dump = d;
    else
      etk_etdump_close(d);
  }
  for (size_t i = 0; i < a->block.count && dump; i++) {
    cap_file_t *f = a->block.items[i];
    if (f->kind != ETK_TX_KIND_DEBUG_BUFFER || f->failed) continue;
    etk_error_t err;
    etk_error_clear(&err);
    if (etk_etdump_check_debug_buffer(dump, f->data, f->size, &err) != ETK_OK) {
      char msg[ETK_ERROR_LINE_SIZE];
      cap_file_problem(cap, f,
                       "does not hold the tensors its ETDump logged: "
                       "%s",
                       etk_error_format(&err, msg, sizeof msg));
    }
  }
  etk_etdump_close(dump);
}

static void end_block(etk_capture_t *cap, bool closed) {
  arm_log_t *a = &cap->arm;
  if (!closed)
    cap_problem(cap,
                "Arm log block at line %llu has no #[END] (the log was "
                "cut off)",
                (unsigned long long)a->block_line);
  else if (a->block.count == 0)
    cap_problem(cap, "Arm log block at line %llu holds no echo line",
                (unsigned long long)a->block_line);
  check_block(cap);
  for (size_t i = 0; i < a->block.count; i++)
    cap_file_emit(cap, a->block.items[i]);
  a->block.count = 0;
  a->in_block = false;
  a->hint[0] = '\0';
}

/* --------------------------------------------------------- lines */

static void start_echo(etk_capture_t *cap) {
  arm_log_t *a = &cap->arm;
  const char *name = a->hint[0] ? a->hint : "arm_log_file.bin";
  a->cur = cap_file_new(cap, ETK_TX_KIND_OTHER, ETK_CAPTURE_ARM_LOG, name,
                        cap->stats.bytes);
  a->quad = 0;
  a->quad_n = 0;
  a->pad = 0;
  a->chars = 0;
  a->bad_char = false;
  a->mode = ARM_BASE64;
}

static void keep_echo(etk_capture_t *cap) {
  arm_log_t *a = &cap->arm;
  cap_file_t *f = a->cur;
  a->cur = NULL;
  if (f == NULL) return;
  f->kind = guess_kind(f);
  if (!ETK_VEC_PUSH(a->block, f)) {
    cap_file_free(f);
    if (cap->stopped == ETK_OK) cap->stopped = ETK_E_NO_MEMORY;
  }
}

/* The echo line ended inside the quotes. */
static void echo_cut(etk_capture_t *cap) {
  arm_log_t *a = &cap->arm;
  if (a->cur)
    cap_file_problem(cap, a->cur,
                     "base64 line at line %llu cut off before "
                     "its closing quote (%llu characters)",
                     (unsigned long long)a->line_no + 1,
                     (unsigned long long)a->chars);
  keep_echo(cap);
  a->mode = ARM_LINE;
  a->line_len = 0;
}

/* After the closing quote: ` | base64 -d >NAME`. */
static void tail_end(etk_capture_t *cap) {
  arm_log_t *a = &cap->arm;
  cap_file_t *f = a->cur;
  size_t n = trimmed_len(a->line, a->line_len);
  a->line[n] = '\0';
  char name[ETK_TX_NAME_MAX + 2] = "";
  int used = 0;
  bool ok = !a->line_long &&
            sscanf(a->line, " | base64 -d >%65[^ \t]%n", name, &used) == 1 &&
            (size_t)used == n && etk_tx_name_ok(name, strlen(name));
  if (f && ok) memcpy(f->name, name, strlen(name) + 1); /* <= 64 bytes */
  if (f && !ok)
    cap_file_problem(cap, f,
                     "echo line at line %llu does not end in "
                     "'| base64 -d >NAME'",
                     (unsigned long long)a->line_no + 1);
  if (f && a->quad_n != 0)
    cap_file_problem(cap, f,
                     "base64 text cut short: %llu characters, not a "
                     "multiple of 4",
                     (unsigned long long)a->chars);
  keep_echo(cap);
  a->line_no++;
  a->mode = ARM_LINE;
  a->line_len = 0;
  a->line_long = false;
}

static void line_end(etk_capture_t *cap) {
  arm_log_t *a = &cap->arm;
  size_t n = trimmed_len(a->line, a->line_len);
  a->line[n] = '\0';
  a->line_no++;
  a->line_len = 0;
  bool long_line = a->line_long;
  a->line_long = false;
  if (long_line) return;
  if (strcmp(a->line, "#[RUN THIS]") == 0) {
    if (a->in_block) end_block(cap, false);
    a->in_block = true;
    a->block_line = a->line_no;
    return;
  }
  if (!a->in_block) return;
  if (strcmp(a->line, "#[END]") == 0) {
    end_block(cap, true);
    cap->stats.ended = 1;
    return;
  }
  char hint[ETK_TX_NAME_MAX + 2];
  int used = 0;
  if (sscanf(a->line, "# Writing %65s [base64]%n", hint, &used) == 1 &&
      (size_t)used == n && etk_tx_name_ok(hint, strlen(hint)))
    memcpy(a->hint, hint, strlen(hint) + 1); /* checked: <= 64 bytes */
}

/* One base64 character of an echo line. */
static void b64_char(etk_capture_t *cap, uint8_t c) {
  arm_log_t *a = &cap->arm;
  a->chars++;
  int v = b64_value(c);
  if (c == '=' && a->quad_n >= 2) {
    a->pad++;
    v = 0;
  } else if (v < 0 || a->pad > 0) {
    if (!a->bad_char && a->cur)
      cap_file_problem(cap, a->cur,
                       "bad base64 character 0x%02x after %llu "
                       "characters",
                       c, (unsigned long long)a->chars - 1);
    a->bad_char = true;
    return;
  }
  a->quad = a->quad << 6 | (uint32_t)v;
  if (++a->quad_n < 4) return;
  uint8_t out[3] = {(uint8_t)(a->quad >> 16), (uint8_t)(a->quad >> 8),
                    (uint8_t)a->quad};
  if (a->cur && !a->bad_char) cap_file_append(cap, a->cur, out, 3u - a->pad);
  a->quad = 0;
  a->quad_n = 0;
}

void cap_arm_text(etk_capture_t *cap, const uint8_t *p, size_t n) {
  arm_log_t *a = &cap->arm;
  for (size_t i = 0; i < n && cap->stopped == ETK_OK; i++) {
    uint8_t b = p[i];
    switch (a->mode) {
      case ARM_LINE:
        if (b == '\n') {
          line_end(cap);
        } else if (a->line_len < CAP_LINE_MAX) {
          a->line[a->line_len++] = (char)b;
          if (a->in_block && a->line_len == 6 &&
              memcmp(a->line, "echo \"", 6) == 0)
            start_echo(cap);
        } else {
          a->line_long = true;
        }
        break;
      case ARM_BASE64:
        if (b == '"') {
          a->mode = ARM_TAIL;
          a->line_len = 0;
        } else if (b == '\n') {
          echo_cut(cap);
          a->line_no++;
        } else {
          b64_char(cap, b);
        }
        break;
      case ARM_TAIL:
        if (b == '\n')
          tail_end(cap);
        else if (a->line_len < CAP_LINE_MAX)
          a->line[a->line_len++] = (char)b;
        else
          a->line_long = true;
        break;
    }
  }
}

void cap_arm_finish(etk_capture_t *cap) {
  arm_log_t *a = &cap->arm;
  if (a->mode == ARM_BASE64)
    echo_cut(cap);
  else if (a->mode == ARM_TAIL)
    tail_end(cap);
  else if (a->line_len > 0)
    line_end(cap);
  if (a->in_block) end_block(cap, false);
}

void cap_arm_free(etk_capture_t *cap) {
  arm_log_t *a = &cap->arm;
  cap_file_free(a->cur);
  a->cur = NULL;
  for (size_t i = 0; i < a->block.count; i++) cap_file_free(a->block.items[i]);
  ETK_VEC_FREE(a->block);
}
