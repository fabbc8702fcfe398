/*
 * etkit/runtime.h - the etkit reference runtime in one include: the
 * kernels (etkit/kernels.h), the executor and backend registry
 * (etkit/executor.h) and the example EtkitMicroBackend
 * (etkit/micro_backend.h).
 */
#ifndef ETKIT_RUNTIME_H
#define ETKIT_RUNTIME_H

#include "etkit/kernels.h"
#include "etkit/executor.h"
#include "etkit/micro_backend.h"

#endif /* ETKIT_RUNTIME_H */
