/*
 * interp_fixture.h - reference graphs (tests/interp/reference/NAME.graph and
 * their PyTorch-made .npy files) written as ETRecords by etkit's writer.
 */
#ifndef ETKIT_TESTS_INTERP_FIXTURE_H
#define ETKIT_TESTS_INTERP_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etkit/etrecord.h"
#include "etkit/program.h"
#include "etkit/scalar_type.h"

#define GF_MAX_NODES 64
#define GF_MAX_VALUES 160
#define GF_MAX_WEIGHTS 48
#define GF_MAX_ARGS 16
#define GF_MAX_OUTS 4
#define GF_MAX_INTS 1024
#define GF_MAX_LISTS 256
#define GF_MAX_STRINGS 4096

typedef struct gf_node {
  char target[160];
  etk_etrecord_arg_desc_t args[GF_MAX_ARGS];
  size_t nargs;
  const char *outs[GF_MAX_OUTS];
  etk_npy_t *expect[GF_MAX_OUTS]; /* PyTorch's outputs */
  size_t nouts;
} gf_node_t;

typedef struct gf_value {
  char name[96];
  int64_t sizes[ETK_PROGRAM_MAX_DIMS];
  size_t dim;
} gf_value_t;

typedef struct gf_model {
  char model[64];
  char dir[512];
  etk_etrecord_node_desc_t nodes[GF_MAX_NODES];
  gf_node_t gnodes[GF_MAX_NODES];
  size_t nnodes;
  gf_value_t values[GF_MAX_VALUES];
  etk_etrecord_tensor_desc_t metas[GF_MAX_VALUES];
  size_t nvalues;
  etk_torch_tensor_desc_t wt[GF_MAX_WEIGHTS];
  int64_t wdims[GF_MAX_WEIGHTS][ETK_PROGRAM_MAX_DIMS];
  etk_etrecord_weight_desc_t weights[GF_MAX_WEIGHTS];
  size_t nweights;
  etk_npy_t *npy[GF_MAX_VALUES];
  size_t nnpy;
  char *strs[GF_MAX_STRINGS];
  size_t nstrs;
  int64_t ints[GF_MAX_INTS];
  size_t nints;
  const char *lists[GF_MAX_LISTS];
  size_t nlists;
  etk_npy_t *input;
  const char *input_name, *output_name;
  const char *graph_in[1], *graph_out[1];
  int64_t in_dims[ETK_PROGRAM_MAX_DIMS];
  etk_torch_tensor_desc_t in_desc;
  etk_etrecord_references_desc_t refs;
} gf_model_t;

/* Reads reference/<model>.graph and its .npy files; 0 or -1. */
int gf_load(const char *model, gf_model_t **out);
/* The same from another folder (benchmarks write their own graphs). */
int gf_load_from(const char *dir, const char *model, gf_model_t **out);
void gf_free(gf_model_t *m);
/* Reads reference/<file>.npy (NULL on failure). */
etk_npy_t *gf_npy(const char *file);
/* The writer's description of the model (pointers into m and md). */
void gf_describe(gf_model_t *m, etk_etrecord_method_desc_t *md,
                 etk_etrecord_desc_t *desc, bool with_inputs);
/* Writes the model's ETRecord (with its input as representative input
 * when with_inputs). */
int gf_write(gf_model_t *m, const char *path, bool with_inputs,
             etk_error_t *err);

#endif
