/* Whole-file reads and atomic writes, shared by every output path. */
#ifndef OX_FILE_H
#define OX_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "onnxtxt/onnxtxt.h"

/* Reads a whole file into a malloc'd buffer with a NUL after the last byte; a NULL path is
 * a missing argument of the public call that names it (ox_error_null). */
char *ox_read_file(const char *path, size_t *len, OnnxError *err);

/* A whole file for reading only, as ox_view_file gives it: a large regular file is mapped
 * (its pages come from the page cache, neither copied nor zeroed), anything else read. */
typedef struct ox_file_view {
	const char *data;
	size_t len;
	size_t mapped; /* bytes mapped, or 0 when data is ox_read_file's */
} ox_file_view;

/* Fills v with the file at path; NULL path as for ox_read_file. */
OnnxStatus ox_view_file(const char *path, ox_file_view *v, OnnxError *err);
void ox_file_view_release(ox_file_view *v);

/* Calls write(f, ctx, err) on a temporary file beside path, then renames it over path.
 * write returns 0 on failure, filling err unless the failure is the stream's own. On any
 * failure the temporary file is removed and path is left as it was. */
typedef int ox_writer(FILE *f, void *ctx, OnnxError *err);
OnnxStatus ox_write_atomic(const char *path, ox_writer *write, void *ctx, OnnxError *err);

/* The context most writers need: what they write (bytes, text, a message) and its length,
 * or the flags to write it with. */
typedef struct ox_write_job {
	const void *p;
	size_t n;
} ox_write_job;

/* An ox_writer for an ox_write_job's n bytes at p. */
int ox_write_bytes(FILE *f, void *ctx, OnnxError *err);

#endif
