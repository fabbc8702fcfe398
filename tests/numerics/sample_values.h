/*
 * sample_values.h - one value tree with every kind etkit's torch.save
 * writer accepts (tensors of several dtypes, a strided view, an offset
 * view, nested containers, shared nodes, more than 1000 list items), used
 * by the writer round trip and by the Python cross-check.
 */
#ifndef ETK_NUMERICS_SAMPLE_VALUES_H
#define ETK_NUMERICS_SAMPLE_VALUES_H

#include <stdint.h>

#include "etkit/etrecord.h"

/* Integers at the edges of the pickle opcodes (BININT1, BININT2, BININT,
 * LONG1): the "ints" list of the sample, and of the committed nested.pt. */
#define SAMPLE_PICKLE_INT_COUNT 11
extern const int64_t sample_pickle_ints[SAMPLE_PICKLE_INT_COUNT];

/* The root (an OrderedDict); static storage, valid for the program's
 * life.  Building it twice gives the same tree. */
const etk_pickle_value_t *sample_values(void);

/* What torch_archive_tool.py dump prints for it (one line + "\n"). */
extern const char sample_values_python_text[];

#endif
