/*
 * etkit/runtime.h - the etkit reference runtime in one include: the
 * kernels (etkit/kernels.h), the executor and backend registry
 * (etkit/method.h) and the example EtkitMicroBackend
 * (etkit/backend_micro.h).
 */
#ifndef ETKIT_RUNTIME_H
#define ETKIT_RUNTIME_H

#include "etkit/kernels.h"
#include "etkit/method.h"
#include "etkit/backend_micro.h"

#endif /* ETKIT_RUNTIME_H */
