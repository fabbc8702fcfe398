/*
 * check_limits.c - the size limits of docs/architecture.md hold.
 *
 *   check_limits <repo> <file-list>
 *
 * The file list holds one path per line, relative to <repo> (the build
 * writes it from a glob of every C source and header of the tree). For
 * each file the checker counts
 *
 *   - its lines: at most 1,500 for any file, 800 for a public header
 *     (include/etkit/), and under 400 for a file of the CLI (src/cli/);
 *   - the lines of each function body, between its braces: at most 150.
 *
 * A function body is a brace block opened at depth zero on a line that
 * closes a parameter list, so initialisers (`= {`) and type bodies
 * (`struct x {`) do not count. Braces inside string and character
 * literals and comments are skipped. Each breach is one line
 *
 *   path:line: what (N lines, limit L)
 *
 * and the exit status is 1 when there is any, 2 when a file cannot be
 * read, 0 otherwise. The rules are deliberately simple: the tree is
 * clang-format formatted, so a body starts on its signature's last line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  limit_file_lines = 1500,
  limit_header_lines = 800,
  limit_cli_lines = 400,
  limit_function_lines = 150
};

typedef struct {
  int in_block_comment;
  int depth;
  long body_start;    /* line of the opening brace; 0 when outside */
  int line_has_paren; /* the text at depth 0 so far closes a ')' */
} scan_state;

static int starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Scans one line, updating depth; returns the number of body lines when a
 * function body closes on this line, else 0. */
static long scan_line(scan_state *st, const char *line, long line_no,
                      long *body_start) {
  long closed = 0;
  for (const char *p = line; *p; p++) {
    if (st->in_block_comment) {
      if (p[0] == '*' && p[1] == '/') {
        st->in_block_comment = 0;
        p++;
      }
      continue;
    }
    if (p[0] == '/' && p[1] == '*') {
      st->in_block_comment = 1;
      p++;
      continue;
    }
    if (p[0] == '/' && p[1] == '/') break;
    if (*p == '"' || *p == '\'') {
      char quote = *p;
      for (p++; *p && *p != quote; p++)
        if (*p == '\\' && p[1]) p++;
      if (!*p) break;
      continue;
    }
    if (*p == ')' && st->depth == 0) st->line_has_paren = 1;
    if (*p == ';' && st->depth == 0) st->line_has_paren = 0;
    if (*p == '{') {
      if (st->depth == 0) st->body_start = st->line_has_paren ? line_no : 0;
      st->depth++;
    } else if (*p == '}') {
      if (st->depth > 0) st->depth--;
      if (st->depth == 0) {
        if (st->body_start) {
          closed = line_no - st->body_start - 1;
          *body_start = st->body_start;
        }
        st->body_start = 0;
        st->line_has_paren = 0;
      }
    }
  }
  return closed;
}

/* Checks one file; returns the number of breaches, or -1 when unreadable. */
static int check_file(const char *repo, const char *rel) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s", repo, rel) >= (int)sizeof path)
    return -1;
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  scan_state st = {0};
  char line[8192];
  long line_no = 0;
  int breaches = 0;
  while (fgets(line, sizeof line, f)) {
    line_no++;
    if (st.depth == 0 && !strchr(line, '{') && !strchr(line, ')') &&
        line[0] != ' ' && line[0] != '\t')
      st.line_has_paren = 0; /* a new declaration begins */
    long start = 0;
    long body = scan_line(&st, line, line_no, &start);
    if (body > limit_function_lines) {
      printf("%s:%ld: function of %ld lines (limit %d)\n", rel, start, body,
             limit_function_lines);
      breaches++;
    }
  }
  fclose(f);
  long limit = limit_file_lines;
  const char *what = "file";
  if (starts_with(rel, "include/etkit/")) {
    limit = limit_header_lines;
    what = "public header";
  } else if (starts_with(rel, "src/cli/")) {
    limit = limit_cli_lines - 1;
    what = "CLI file";
  }
  if (line_no > limit) {
    printf("%s:1: %s of %ld lines (limit %ld)\n", rel, what, line_no, limit);
    breaches++;
  }
  return breaches;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: check_limits <repo> <file-list>\n");
    return 2;
  }
  FILE *list = fopen(argv[2], "r");
  if (!list) {
    fprintf(stderr, "check_limits: cannot read %s\n", argv[2]);
    return 2;
  }
  char rel[4096];
  int breaches = 0, files = 0, unreadable = 0;
  while (fgets(rel, sizeof rel, list)) {
    rel[strcspn(rel, "\r\n")] = 0;
    if (!rel[0]) continue;
    int n = check_file(argv[1], rel);
    if (n < 0) {
      fprintf(stderr, "check_limits: cannot read %s/%s\n", argv[1], rel);
      unreadable++;
      continue;
    }
    files++;
    breaches += n;
  }
  fclose(list);
  printf("%d files checked, %d over a limit\n", files, breaches);
  if (unreadable) return 2;
  return breaches ? 1 : 0;
}
