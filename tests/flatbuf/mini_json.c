/*
 * mini_json.c - recursive-descent JSON reader (see mini_json.h).
 *
 * The parser is a cursor over the input; every node is malloc'd and linked
 * as first_child/next.  On any error the partial tree is freed and NULL is
 * returned, so callers see either a complete tree or nothing.
 */
#include "mini_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const char *s;
  size_t n, i;
  int failed;
} parser_t;

static json_node_t *parse_value(parser_t *p, int depth);

static void skip_space(parser_t *p) {
  while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\n' ||
                         p->s[p->i] == '\r' || p->s[p->i] == '\t'))
    p->i++;
}

static json_node_t *new_node(json_type_t type) {
  json_node_t *node = calloc(1, sizeof *node);
  if (node) node->type = type;
  return node;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int read_hex4(parser_t *p, uint32_t *out) {
  uint32_t v = 0;
  if (p->n - p->i < 4) return 0;
  for (int k = 0; k < 4; k++) {
    int h = hex_value(p->s[p->i + (size_t)k]);
    if (h < 0) return 0;
    v = v << 4 | (uint32_t)h;
  }
  p->i += 4;
  *out = v;
  return 1;
}

static size_t put_utf8(char *out, uint32_t c) {
  if (c < 0x80) {
    out[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (char)(0xC0 | c >> 6);
    out[1] = (char)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = (char)(0xE0 | c >> 12);
    out[1] = (char)(0x80 | (c >> 6 & 0x3F));
    out[2] = (char)(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | c >> 18);
  out[1] = (char)(0x80 | (c >> 12 & 0x3F));
  out[2] = (char)(0x80 | (c >> 6 & 0x3F));
  out[3] = (char)(0x80 | (c & 0x3F));
  return 4;
}

/* The character the one-letter escape \c stands for, or -1. */
static int simple_escape(char c) {
  static const char pairs[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
  for (size_t k = 0; k + 1 < sizeof pairs; k += 2)
    if (pairs[k] == c) return (unsigned char)pairs[k + 1];
  return -1;
}

/* Decodes the string at the cursor (which is on the opening quote). */
static char *parse_string(parser_t *p, size_t *len) {
  /* decoded output is never longer than the source */
  char *out;
  size_t o = 0;
  p->i++;
  out = malloc(p->n - p->i + 1);
  if (!out) return NULL;
  while (p->i < p->n && p->s[p->i] != '"') {
    char c = p->s[p->i++];
    if (c != '\\') {
      out[o++] = c;
      continue;
    }
    if (p->i >= p->n) break;
    c = p->s[p->i++];
    int simple = simple_escape(c);
    if (simple >= 0) {
      out[o++] = (char)simple;
    } else if (c == 'u') {
      uint32_t c1, c2;
      if (!read_hex4(p, &c1)) goto fail;
      if (c1 >= 0xD800 && c1 <= 0xDBFF) {
        if (p->n - p->i < 2 || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u')
          goto fail;
        p->i += 2;
        if (!read_hex4(p, &c2) || c2 < 0xDC00 || c2 > 0xDFFF) goto fail;
        c1 = 0x10000 + ((c1 - 0xD800) << 10) + (c2 - 0xDC00);
      }
      o += put_utf8(out + o, c1);
    } else {
      goto fail;
    }
  }
  if (p->i >= p->n) goto fail;
  p->i++; /* closing quote */
  out[o] = 0;
  *len = o;
  return out;
fail:
  free(out);
  p->failed = 1;
  return NULL;
}

static json_node_t *parse_container(parser_t *p, int depth, int is_object) {
  json_node_t *node = new_node(is_object ? JSON_OBJECT : JSON_ARRAY);
  json_node_t **tail = node ? &node->first_child : NULL;
  char close = is_object ? '}' : ']';
  if (!node) return NULL;
  p->i++;
  skip_space(p);
  if (p->i < p->n && p->s[p->i] == close) {
    p->i++;
    return node;
  }
  for (;;) {
    char *key = NULL;
    json_node_t *child;
    skip_space(p);
    if (is_object) {
      size_t key_len;
      if (p->i >= p->n || p->s[p->i] != '"') break;
      key = parse_string(p, &key_len);
      if (!key) break;
      skip_space(p);
      if (p->i >= p->n || p->s[p->i] != ':') {
        free(key);
        break;
      }
      p->i++;
    }
    child = parse_value(p, depth + 1);
    if (!child) {
      free(key);
      break;
    }
    child->key = key;
    *tail = child;
    tail = &child->next;
    skip_space(p);
    if (p->i < p->n && p->s[p->i] == ',') {
      p->i++;
      continue;
    }
    if (p->i < p->n && p->s[p->i] == close) {
      p->i++;
      return node;
    }
    break;
  }
  p->failed = 1;
  json_free(node);
  return NULL;
}

static json_node_t *parse_value(parser_t *p, int depth) {
  skip_space(p);
  if (depth > 200 || p->i >= p->n) {
    p->failed = 1;
    return NULL;
  }
  char c = p->s[p->i];
  if (c == '{' || c == '[') return parse_container(p, depth, c == '{');
  if (c == '"') {
    json_node_t *node = new_node(JSON_STRING);
    if (!node) return NULL;
    node->text = parse_string(p, &node->len);
    if (!node->text) {
      free(node);
      return NULL;
    }
    return node;
  }
  static const struct {
    const char *word;
    json_type_t type;
  } words[] = {{"null", JSON_NULL}, {"true", JSON_TRUE}, {"false", JSON_FALSE}};
  for (size_t k = 0; k < 3; k++) {
    size_t wl = strlen(words[k].word);
    if (p->n - p->i >= wl && memcmp(p->s + p->i, words[k].word, wl) == 0) {
      p->i += wl;
      return new_node(words[k].type);
    }
  }
  size_t start = p->i;
  while (p->i < p->n && strchr("+-0123456789.eE", p->s[p->i]) && p->s[p->i])
    p->i++;
  if (p->i == start) {
    p->failed = 1;
    return NULL;
  }
  json_node_t *node = new_node(JSON_NUMBER);
  if (!node) return NULL;
  node->len = p->i - start;
  node->text = malloc(node->len + 1);
  if (!node->text) {
    free(node);
    return NULL;
  }
  memcpy(node->text, p->s + start, node->len);
  node->text[node->len] = 0;
  return node;
}

json_node_t *json_parse(const char *s, size_t n, size_t *error_at) {
  parser_t p = {s, n, 0, 0};
  json_node_t *root = parse_value(&p, 0);
  skip_space(&p);
  if (root && p.i != n) {
    json_free(root);
    root = NULL;
  }
  if (!root && error_at) *error_at = p.i;
  return root;
}

void json_free(json_node_t *node) {
  while (node) {
    json_node_t *next = node->next;
    json_free(node->first_child);
    free(node->text);
    free(node->key);
    free(node);
    node = next;
  }
}

const json_node_t *json_get(const json_node_t *object, const char *key) {
  if (!object || object->type != JSON_OBJECT) return NULL;
  for (const json_node_t *c = object->first_child; c; c = c->next)
    if (c->key && strcmp(c->key, key) == 0) return c;
  return NULL;
}

size_t json_count(const json_node_t *node) {
  size_t n = 0;
  if (!node) return 0;
  for (const json_node_t *c = node->first_child; c; c = c->next) n++;
  return n;
}

const json_node_t *json_at(const json_node_t *array, size_t i) {
  if (!array) return NULL;
  for (const json_node_t *c = array->first_child; c; c = c->next)
    if (i-- == 0) return c;
  return NULL;
}
