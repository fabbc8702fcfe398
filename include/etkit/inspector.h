/*
 * etkit/inspector.h - the Inspector and everything built on it, in one
 * include: the Inspector itself (etkit/inspector_core.h), its ETRecord
 * linker (etkit/link.h), the analyses (etkit/analysis.h) and numerical
 * debugging (etkit/numerics.h).  Kept so that code written against the
 * single header of earlier versions compiles unchanged; new code may
 * include only the header of the library it uses.
 */
#ifndef ETKIT_INSPECTOR_H
#define ETKIT_INSPECTOR_H

#include "etkit/inspector_core.h"
#include "etkit/link.h"
#include "etkit/analysis.h"
#include "etkit/numerics.h"

#endif /* ETKIT_INSPECTOR_H */
