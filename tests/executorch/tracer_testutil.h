/*
 * tracer_testutil.h - helpers the C++ tracer's tests share: opening a dump
 * with etkit's reader, the verifier + flatc check, an upstream tensor as
 * the C recorder's.  Header-only (inline), after recorder_testutil.h.
 */
#ifndef ETKIT_TESTS_TRACER_TESTUTIL_H
#define ETKIT_TESTS_TRACER_TESTUTIL_H

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <executorch/runtime/core/exec_aten/exec_aten.h>

extern "C" {
#include "etkit/etdump.h"
#include "recorder_testutil.h"
}

/* Opens a dump with etkit's reader; NULL (and a failed check) on error. */
inline etk_etdump_t *open_dump(const void *buf, size_t len) {
  etk_etdump_t *d = nullptr;
  etk_etdump_options_t o;
  std::memset(&o, 0, sizeof o);
  o.copy = 1;
  if (etk_etdump_open_memory(buf, len, &o, &d, nullptr) != ETK_OK)
    return nullptr;
  return d;
}

/* The dump passes etkit's verifier and flatc decodes it.  Without flatc
 * (not found by CMake) only the verifier runs, which is said once; under
 * CI=true flatc is required. */
inline bool verified(const void *buf, size_t len) {
  static bool said;
  json_t *j = nullptr;
  int ok = rt_check_dump(static_cast<const uint8_t *>(buf), len, &j);
  if (j != nullptr) json_decref(j);
  if (!rt_have_flatc()) {
    const char *ci = std::getenv("CI");
    if (ci != nullptr && std::strcmp(ci, "true") == 0) return false;
    if (!said) std::printf("# flatc not found: etkit's verifier only\n");
    said = true;
    return ok != 0;
  }
  return ok && j != nullptr;
}

/* The C recorder's tensor of an upstream tensor (sizes/strides into dims). */
inline etk_recorder_tensor_t c_tensor(const executorch::aten::Tensor &t,
                                      int64_t *dims) {
  etk_recorder_tensor_t r;
  size_t n = static_cast<size_t>(t.dim());
  for (size_t i = 0; i < n; i++) {
    dims[i] = t.sizes()[i];
    dims[n + i] = t.strides()[i];
  }
  r.scalar_type = static_cast<int32_t>(t.scalar_type());
  r.dim = static_cast<uint32_t>(n);
  r.sizes = dims;
  r.strides = dims + n;
  r.data = t.const_data_ptr();
  r.nbytes = t.nbytes();
  return r;
}

#endif /* ETKIT_TESTS_TRACER_TESTUTIL_H */
