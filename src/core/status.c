/*
 * status.c - names and messages of the etkit status codes.
 *
 * Both tables are generated from ETK_STATUS_LIST in etkit/status.h, the
 * union of the per-module lists (core, flatbuf, recorder, common), so a new
 * code needs one line in its module's list and nothing here.
 */
#include "etkit/status.h"

const char *etk_status_name(int status) {
  switch (status) {
#define ETK_STATUS_NAME_(name, value, message) \
  case value:                                  \
    return "ETK_" #name;
    ETK_STATUS_LIST(ETK_STATUS_NAME_)
#undef ETK_STATUS_NAME_
    default:
      return "ETK_E_UNKNOWN";
  }
}

const char *etk_strerror(int status) {
  switch (status) {
#define ETK_STATUS_MESSAGE_(name, value, message) \
  case value:                                     \
    return message;
    ETK_STATUS_LIST(ETK_STATUS_MESSAGE_)
#undef ETK_STATUS_MESSAGE_
    default:
      return "unknown status";
  }
}
