/*
 * values_text.h - debug values rendered as text or JSON (values_text.c).
 * Private to src/inspector.
 */
#ifndef ETKIT_INSPECTOR_VALUES_TEXT_H
#define ETKIT_INSPECTOR_VALUES_TEXT_H

#include "etkit/etdump.h"
#include "etkit/render.h"

/* Appends str() of the inflated value of debug event `event` (torch-like
 * tensor repr; zeros when `buf` is NULL, as upstream without a buffer). */
void insp_value_text(etk_strbuf_t *b, const etk_etdump_t *d, uint32_t event,
                     const uint8_t *buf, size_t len);

/* Writes the value of debug event `event` as a JSON value. */
void insp_value_json(etk_json_t *j, const etk_etdump_t *d, uint32_t event,
                     const uint8_t *buf, size_t len, size_t max_values);

#endif
