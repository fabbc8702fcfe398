/*
 * interp_fixture.c - turns a reference graph description (tests/interp/
 * reference/<model>.graph, made by make_graphs.py) into an ETRecord with
 * etkit's own writer: one edge-dialect node per line with its arguments,
 * the TensorMeta of every value (shapes and dtypes of the PyTorch-made
 * .npy files), the weights as parameters in the state dict and the input
 * as the representative input.
 *
 * Storage: everything the descriptors point at lives in one gf_model_t
 * (fixed arrays sized for the test models; a description that does not fit
 * fails to load rather than growing them).
 */
#include "interp_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF_DIR ETKIT_SOURCE_DIR "/tests/interp/reference"

static int serde_dtype(int scalar_type) {
  switch (scalar_type) {
    case ETK_SCALAR_TYPE_FLOAT:
      return 7;
    case ETK_SCALAR_TYPE_LONG:
      return 5;
    case ETK_SCALAR_TYPE_CHAR:
      return 2;
    case ETK_SCALAR_TYPE_INT:
      return 4;
    case ETK_SCALAR_TYPE_BOOL:
      return 12;
    default:
      return 0;
  }
}

static etk_npy_t *npy_in(const char *dir, const char *file) {
  char path[1024];
  etk_npy_t *n = NULL;
  snprintf(path, sizeof path, "%s/%s.npy", dir, file);
  if (etk_npy_read_file(path, &n, NULL) != ETK_OK) return NULL;
  return n;
}

etk_npy_t *gf_npy(const char *file) {
  return npy_in(REF_DIR, file);
}

/* Records the TensorMeta of value `name` from an npy. */
static int add_meta(gf_model_t *m, const char *name, const etk_npy_t *n) {
  gf_value_t *v;
  if (m->nvalues >= GF_MAX_VALUES) return -1;
  v = &m->values[m->nvalues++];
  snprintf(v->name, sizeof v->name, "%s", name);
  v->dim = n->dim;
  for (uint32_t d = 0; d < n->dim; d++) v->sizes[d] = n->sizes[d];
  m->metas[m->nvalues - 1] = (etk_etrecord_tensor_desc_t){
      v->name, serde_dtype(n->scalar_type), v->sizes, v->dim};
  return 0;
}

static etk_npy_t *keep_npy(gf_model_t *m, const char *file) {
  etk_npy_t *n = npy_in(m->dir, file);
  if (!n || m->nnpy >= GF_MAX_VALUES) {
    etk_npy_free(n);
    return NULL;
  }
  m->npy[m->nnpy++] = n;
  return n;
}

static char *keep_str(gf_model_t *m, const char *s, size_t len) {
  char *c = malloc(len + 1);
  if (!c || m->nstrs >= GF_MAX_STRINGS) {
    free(c);
    return NULL;
  }
  memcpy(c, s, len);
  c[len] = 0;
  m->strs[m->nstrs++] = c;
  return c;
}

/* One argument token "name=kind:value" into `in`. */
static int parse_arg(gf_model_t *m, char *tok, etk_etrecord_arg_desc_t *in) {
  char *eq = strchr(tok, '='), *val;
  memset(in, 0, sizeof *in);
  if (!eq) return -1;
  *eq = 0;
  in->arg = keep_str(m, tok, strlen(tok));
  val = eq + 1;
  if (strncmp(val, "t:", 2) == 0) {
    in->tensor = keep_str(m, val + 2, strlen(val + 2));
  } else if (strcmp(val, "n") == 0) {
    in->kind = ETK_ETRECORD_IN_NONE;
  } else if (val[0] == 'i' || val[0] == 'b') {
    in->kind = val[0] == 'i' ? ETK_ETRECORD_IN_INT : ETK_ETRECORD_IN_BOOL;
    in->i = strtoll(val + 2, NULL, 10);
  } else if (val[0] == 'd') {
    in->kind = ETK_ETRECORD_IN_FLOAT;
    in->f = strtod(val + 2, NULL);
  } else if (strncmp(val, "st:", 3) == 0) { /* a ScalarType, serde codes */
    in->kind = ETK_ETRECORD_IN_SCALAR_TYPE;
    in->i = strtoll(val + 3, NULL, 10);
  } else if (val[0] == 's') {
    in->kind = ETK_ETRECORD_IN_STRING;
    in->s = keep_str(m, val + 2, strlen(val + 2));
  } else if (val[0] == 'l') {
    int64_t *ints = m->ints + m->nints;
    size_t n = 0;
    for (char *p = val + 2; *p && m->nints + n < GF_MAX_INTS;) {
      ints[n++] = strtoll(p, &p, 10);
      if (*p == ',') p++;
    }
    m->nints += n;
    in->kind = ETK_ETRECORD_IN_INTS;
    in->ints = ints;
    in->count = n;
  } else if (strncmp(val, "tl:", 3) == 0) {
    const char **names = m->lists + m->nlists;
    size_t n = 0;
    for (char *p = strtok(val + 3, ","); p && m->nlists + n < GF_MAX_LISTS;
         p = strtok(NULL, ","))
      names[n++] = keep_str(m, p, strlen(p));
    m->nlists += n;
    in->kind = ETK_ETRECORD_IN_TENSORS;
    in->tensors = names;
    in->count = n;
  } else {
    return -1;
  }
  return 0;
}

/* "node NAME OP HANDLE OUTS ARG..." */
static int parse_node(gf_model_t *m, char *line) {
  etk_etrecord_node_desc_t *nd;
  gf_node_t *gn;
  char *name = strtok(line, " "), *op = strtok(NULL, " ");
  char *handle = strtok(NULL, " "), *outs = strtok(NULL, " ");
  char *rest = strtok(NULL, "\n");
  if (!name || !op || !handle || !outs || m->nnodes >= GF_MAX_NODES) return -1;
  nd = &m->nodes[m->nnodes];
  gn = &m->gnodes[m->nnodes++];
  memset(nd, 0, sizeof *nd);
  nd->name = keep_str(m, name, strlen(name));
  etk_etrecord_edge_target(op, gn->target, sizeof gn->target);
  nd->target = gn->target;
  nd->debug_handle = strtoll(handle, NULL, 10);
  for (char *p = outs; *p;) {
    size_t len = strcspn(p, ",");
    char file[256];
    if (gn->nouts >= GF_MAX_OUTS) return -1;
    gn->outs[gn->nouts] = keep_str(m, p, len);
    snprintf(file, sizeof file, "%s_%.*s", m->model, (int)len, p);
    gn->expect[gn->nouts] = keep_npy(m, file);
    if (!gn->outs[gn->nouts] || !gn->expect[gn->nouts] ||
        add_meta(m, gn->outs[gn->nouts], gn->expect[gn->nouts]) != 0)
      return -1;
    p += len;
    if (*p == ',') p++;
    gn->nouts++;
  }
  nd->outputs = gn->outs;
  nd->output_count = gn->nouts;
  nd->outputs_as_list = gn->nouts > 1;
  /* arguments: split on spaces without strtok (parse_arg uses it) */
  while (rest && *rest) {
    size_t len = strcspn(rest, " ");
    char buf[512];
    if (gn->nargs >= GF_MAX_ARGS || len >= sizeof buf) return -1;
    memcpy(buf, rest, len);
    buf[len] = 0;
    if (parse_arg(m, buf, &gn->args[gn->nargs++]) != 0) return -1;
    rest += len;
    while (*rest == ' ') rest++;
  }
  nd->args = gn->args;
  nd->arg_count = gn->nargs;
  return 0;
}

/* "weight PLACEHOLDER KEY FILE" */
static int parse_weight(gf_model_t *m) {
  char *ph = strtok(NULL, " "), *key = strtok(NULL, " ");
  char *file = strtok(NULL, " \n");
  etk_npy_t *n;
  size_t k = m->nweights;
  if (!ph || !key || !file || k >= GF_MAX_WEIGHTS) return -1;
  n = keep_npy(m, file);
  if (!n || add_meta(m, ph, n) != 0) return -1;
  for (uint32_t d = 0; d < n->dim; d++) m->wdims[k][d] = n->sizes[d];
  m->wt[k] = (etk_torch_tensor_desc_t){n->scalar_type, n->dim, m->wdims[k],
                                       n->data, n->nbytes};
  m->weights[k] = (etk_etrecord_weight_desc_t){keep_str(m, ph, strlen(ph)),
                                               keep_str(m, key, strlen(key)),
                                               false, &m->wt[k]};
  m->nweights++;
  return 0;
}

int gf_load(const char *model, gf_model_t **out) {
  return gf_load_from(REF_DIR, model, out);
}

int gf_load_from(const char *dir, const char *model, gf_model_t **out) {
  char path[1024], line[4096];
  FILE *f;
  gf_model_t *m = calloc(1, sizeof *m);
  int rc = 0;
  *out = NULL;
  if (!m) return -1;
  snprintf(m->model, sizeof m->model, "%s", model);
  snprintf(m->dir, sizeof m->dir, "%s", dir);
  snprintf(path, sizeof path, "%s/%s.graph", dir, model);
  f = fopen(path, "r");
  if (!f) {
    free(m);
    return -1;
  }
  while (rc == 0 && fgets(line, sizeof line, f)) {
    char *kind = strtok(line, " \n");
    if (!kind) continue;
    if (strcmp(kind, "node") == 0) {
      rc = parse_node(m, strtok(NULL, "\n"));
    } else if (strcmp(kind, "weight") == 0) {
      rc = parse_weight(m);
    } else if (strcmp(kind, "input") == 0) {
      char *name = strtok(NULL, " "), *file = strtok(NULL, " \n");
      m->input = file ? keep_npy(m, file) : NULL;
      m->input_name = name ? keep_str(m, name, strlen(name)) : NULL;
      rc = m->input && m->input_name ? add_meta(m, name, m->input) : -1;
    } else if (strcmp(kind, "output") == 0) {
      char *name = strtok(NULL, " \n");
      m->output_name = name ? keep_str(m, name, strlen(name)) : NULL;
      rc = m->output_name ? 0 : -1;
    }
  }
  fclose(f);
  if (rc != 0 || !m->input || !m->output_name) {
    gf_free(m);
    return -1;
  }
  *out = m;
  return 0;
}

void gf_describe(gf_model_t *m, etk_etrecord_method_desc_t *md,
                 etk_etrecord_desc_t *desc, bool with_inputs) {
  memset(md, 0, sizeof *md);
  md->name = "forward";
  md->nodes = m->nodes;
  md->node_count = m->nnodes;
  m->graph_in[0] = m->input_name;
  m->graph_out[0] = m->output_name;
  md->graph_inputs = m->graph_in;
  md->graph_input_count = 1;
  md->graph_outputs = m->graph_out;
  md->graph_output_count = 1;
  md->tensors = m->metas;
  md->tensor_count = m->nvalues;
  md->weights = m->weights;
  md->weight_count = m->nweights;
  for (uint32_t d = 0; d < m->input->dim; d++)
    m->in_dims[d] = m->input->sizes[d];
  m->in_desc =
      (etk_torch_tensor_desc_t){m->input->scalar_type, m->input->dim,
                                m->in_dims, m->input->data, m->input->nbytes};
  m->refs = (etk_etrecord_references_desc_t){NULL, 0, &m->in_desc, 1};
  memset(desc, 0, sizeof *desc);
  desc->methods = md;
  desc->method_count = 1;
  desc->references = with_inputs ? &m->refs : NULL;
}

int gf_write(gf_model_t *m, const char *path, bool with_inputs,
             etk_error_t *err) {
  etk_etrecord_method_desc_t md;
  etk_etrecord_desc_t desc;
  gf_describe(m, &md, &desc, with_inputs);
  return etk_etrecord_write_file(&desc, path, err);
}

void gf_free(gf_model_t *m) {
  if (!m) return;
  for (size_t k = 0; k < m->nnpy; k++) etk_npy_free(m->npy[k]);
  for (size_t k = 0; k < m->nstrs; k++) free(m->strs[k]);
  free(m);
}
