/*
 * sql.c - the bottom of the store: running one statement through the
 * engine, transactions, and SQL text built with bound values.
 *
 * Every other file of src/store reaches the database through these (the
 * engine interface of engine.h sits below); nothing here calls back up,
 * so the migration step in packed.c and the schema code in store.c can
 * both use them.  SQL text never contains user text: store_sql_param
 * appends "$N" and keeps the value to bind.
 */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

int store_q(etk_store_t *st, const char *sql, const store_value_t *params,
            size_t n, store_row_fn fn, void *ctx, etk_error_t *err) {
  return st->ops->query(st->conn, sql, params, n, fn, ctx, err);
}

int store_begin(etk_store_t *st, etk_error_t *err) {
  return st->ops->begin(st->conn, err);
}

int store_commit(etk_store_t *st, etk_error_t *err) {
  return store_q(st, "COMMIT", NULL, 0, NULL, NULL, err);
}

void store_rollback(etk_store_t *st) {
  etk_error_t ignored;
  etk_error_clear(&ignored);
  store_q(st, "ROLLBACK", NULL, 0, NULL, NULL, &ignored);
}

/* ------------------------------------------------------------- SQL text */

void store_sql_free(store_sql_t *s) {
  etk_strbuf_free(&s->text);
  free(s->params);
  memset(s, 0, sizeof *s);
}

bool store_sql_param(store_sql_t *s, store_value_t v) {
  if (s->count == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    store_value_t *p = realloc(s->params, cap * sizeof *p);
    if (!p) {
      s->text.failed = 1;
      return false;
    }
    s->params = p;
    s->cap = cap;
  }
  s->params[s->count++] = v;
  etk_strbuf_printf(&s->text, "$%zu", s->count);
  return true;
}

bool store_sql_ok(const store_sql_t *s) {
  return !s->text.failed;
}
