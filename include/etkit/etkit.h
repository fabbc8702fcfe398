/*
 * etkit/etkit.h - every public header of etkit in one include, lowest
 * library first (docs/architecture.md draws the libraries):
 *
 *   etkit_core       etkit/status.h, etkit/scalar_type.h, etkit/utf8.h
 *   etkit_flatbuf    etkit/flatbuf.h
 *   etkit_schema     etkit/schema.h (etkit/program_schema.h, the .pte and
 *                    .bpte descriptors, is included on its own)
 *   etkit_recorder   etkit/recorder.h
 *   etkit_common     etkit/common.h
 *   etkit_etdump     etkit/etdump.h
 *   etkit_program    etkit/program.h
 *   etkit_kernels    etkit/kernels.h
 *   etkit_runtime    etkit/method.h
 *   etkit_backend_micro  etkit/backend_micro.h
 *   etkit_torch      etkit/torch.h
 *   etkit_etrecord   etkit/etrecord.h (with etkit/etrecord_writer.h)
 *   etkit_render     etkit/render.h
 *   etkit_inspector  etkit/inspector_core.h
 *   etkit_link       etkit/link.h
 *   etkit_analysis   etkit/analysis.h
 *   etkit_numerics   etkit/numerics.h
 *
 * Link with etkit::etkit (CMake) or `pkg-config --libs etkit`.
 * etkit/inspector.h and etkit/runtime.h are smaller umbrellas kept from
 * earlier versions.
 */
#ifndef ETKIT_ETKIT_H
#define ETKIT_ETKIT_H

#include "etkit/status.h"
#include "etkit/scalar_type.h"
#include "etkit/utf8.h"
#include "etkit/flatbuf.h"
#include "etkit/schema.h"
#include "etkit/recorder.h"
#include "etkit/common.h"
#include "etkit/etdump.h"
#include "etkit/program.h"
#include "etkit/kernels.h"
#include "etkit/method.h"
#include "etkit/backend_micro.h"
#include "etkit/torch.h"
#include "etkit/etrecord.h"
#include "etkit/render.h"
#include "etkit/inspector_core.h"
#include "etkit/link.h"
#include "etkit/analysis.h"
#include "etkit/numerics.h"
#include "etkit/significance.h"
#include "etkit/run_series.h"
#include "etkit/store.h"

#endif /* ETKIT_ETKIT_H */
