/* Positions and error structs. */
#ifndef OX_DIAG_H
#define OX_DIAG_H

#include <stddef.h>

#include "onnxtxt/onnxtxt.h"

/* 1-based line and column (in UTF-8 characters) of byte offset off. */
void ox_locate(const char *src, size_t len, size_t off, unsigned *line, unsigned *col);
/* Fills an error without a position. */
void ox_error_set(OnnxError *err, OnnxStatus code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An ONNXTXT_ERR_IO error "WHAT: REASON" with sys_errno errnum (EIO when 0). */
void ox_error_io(OnnxError *err, int errnum, const char *what);

#endif
