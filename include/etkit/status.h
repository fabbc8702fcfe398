/*
 * etkit/status.h - status codes shared by every etkit library.
 *
 * All etkit functions that can fail return an `int` status: ETK_OK (0) on
 * success, a negative ETK_E_* code otherwise.  Each code is defined once, in
 * the X-macro list of the module that introduced it (ETK_STATUS_CORE_LIST,
 * ..._FLATBUF_LIST, ..._RECORDER_LIST, ..._COMMON_LIST; ETK_STATUS_LIST is
 * all of them), which also yields the names and messages returned by
 * etk_status_name() and etk_strerror().
 *
 * This header is portable C99 with no OS dependency: the recorder and the
 * FlatBuffers core include it on microcontrollers too.  Host libraries add a
 * richer error record (etk_error_t, see etkit/common.h) that says which file,
 * byte offset or JSON line a problem was found at.
 */
#ifndef ETKIT_STATUS_H
#define ETKIT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The codes, one X-macro list per module that introduced them, each entry
 * X(name, value, message).  Values are fixed forever (they are part of the
 * ABI and of the Python package); a new code takes the next free negative
 * value and goes into the list of the lowest module that raises it.  Any
 * library may return any code: the lists say who defines a code's meaning,
 * not who may use it.  They live here, in core's header, because core
 * names them all (etk_status_name) and may include nothing above it. */

/* core: every library's general failures, and strict UTF-8 (etkit/utf8.h) */
#define ETK_STATUS_CORE_LIST(X)                                   \
  X(OK, 0, "success")                                             \
  X(E_INVALID_ARGUMENT, -1, "invalid argument")                   \
  X(E_INVALID_STATE, -2, "call not allowed in the current state") \
  X(E_NO_MEMORY, -3, "out of memory")                             \
  X(E_LIMIT, -15, "a configured limit was exceeded")              \
  X(E_BAD_UTF8, -17, "invalid UTF-8 text")                        \
  X(E_UNSUPPORTED, -19, "not supported")                          \
  X(E_NOT_FOUND, -20, "not found")                                \
  X(E_OVERFLOW, -23, "arithmetic overflow in a size or offset")   \
  X(E_INTERNAL, -24, "internal error")

/* flatbuf: the verifier's findings in a FlatBuffer (etkit/flatbuf.h) */
#define ETK_STATUS_FLATBUF_LIST(X)                        \
  X(E_TRUNCATED, -5, "input is truncated")                \
  X(E_BAD_IDENTIFIER, -6, "wrong file identifier")        \
  X(E_BAD_OFFSET, -7, "offset points outside the buffer") \
  X(E_BAD_ALIGNMENT, -8, "misaligned object")             \
  X(E_BAD_VTABLE, -9, "malformed vtable")                 \
  X(E_BAD_STRING, -10, "malformed string")                \
  X(E_BAD_VECTOR, -11, "malformed vector")                \
  X(E_BAD_ENUM, -12, "enum value out of range")           \
  X(E_BAD_UNION, -13, "malformed union")                  \
  X(E_TOO_DEEP, -14, "nesting too deep")                  \
  X(E_MISSING_FIELD, -16, "a required field is missing")

/* recorder: an event that did not fit the recorder's buffer
 * (etkit/recorder.h) */
#define ETK_STATUS_RECORDER_LIST(X) \
  X(E_FULL, -4, "buffer full; the item was dropped and counted")

/* common and the host readers above it: files, formats that are not
 * FlatBuffers, and comparisons of values (etkit/common.h) */
#define ETK_STATUS_COMMON_LIST(X)     \
  X(E_IO, -18, "input/output error")  \
  X(E_FORMAT, -21, "malformed input") \
  X(E_MISMATCH, -22, "values do not match")

/* Every code: X(name, value, message). */
#define ETK_STATUS_LIST(X)    \
  ETK_STATUS_CORE_LIST(X)     \
  ETK_STATUS_FLATBUF_LIST(X)  \
  ETK_STATUS_RECORDER_LIST(X) \
  ETK_STATUS_COMMON_LIST(X)

typedef enum etk_status {
#define ETK_STATUS_ENUM_(name, value, message) ETK_##name = value,
  ETK_STATUS_LIST(ETK_STATUS_ENUM_)
#undef ETK_STATUS_ENUM_
} etk_status_t;

/* "ETK_E_TRUNCATED" style name of a status; "ETK_E_UNKNOWN" for other values.
 * Never returns NULL.  The string is static. */
const char *etk_status_name(int status);

/* Human-readable message of a status ("input is truncated"); never NULL. */
const char *etk_strerror(int status);

#ifdef __cplusplus
}
#endif

#endif /* ETKIT_STATUS_H */
