/*
 * sample_values.h - one value tree with every kind etkit's torch.save
 * writer accepts (tensors of several dtypes, a strided view, an offset
 * view, nested containers, shared nodes, more than 1000 list items), used
 * by the writer round trip and by the Python cross-check.
 */
#ifndef ETK_NUMERICS_SAMPLE_VALUES_H
#define ETK_NUMERICS_SAMPLE_VALUES_H

#include "etkit/etrecord.h"

/* The root (an OrderedDict); static storage, valid for the program's
 * life.  Building it twice gives the same tree. */
const etk_pickle_value_t *sample_values(void);

/* What torch_archive_tool.py dump prints for it (one line + "\n"). */
extern const char sample_values_python_text[];

#endif
