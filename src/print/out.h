/* The printer's output: a growable buffer, flushed to a FILE in large chunks when one is
 * attached, with the primitive writers every printing function shares. */
#ifndef OX_OUT_H
#define OX_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "onnxtxt/onnxtxt.h"

/* A place where a list may break its line: the space after an item's comma. */
typedef struct ox_break {
	size_t at;  /* counted from the first byte ever */
	int indent; /* of the line the break starts */
	bool open;  /* the item has not broken there */
} ox_break;

#define OX_MAX_BREAKS 32

typedef struct ox_out {
	char *buf;
	size_t len, cap;
	FILE *f;      /* flushed to when len passes a threshold; NULL keeps everything */
	bool failed;  /* out of memory or a write error */
	int sys_errno; /* of the write error */
	bool *nomem;  /* set when memory ran out, shared with every scratch buffer of one print */
	unsigned flags; /* ONNXTXT_PRINT_* */
	int indent;   /* spaces at the start of a new line */
	size_t flushed; /* bytes already written to f */
	size_t line;  /* where the current line starts, counted from the first byte ever */
	size_t limit;  /* if not 0, writing past this many bytes fails: for measuring */
	ox_break last; /* of the list item that ended last */
	/* when set and true for a node, its attributes go one per line: the formatter asks
	 * for it where the source has a comment inside the node */
	bool (*attrs_apart)(const void *ctx, const void *node);
	const void *attrs_ctx;
	int nbreaks;
	/* last, so that ox_out_init, run for every scratch buffer, need not clear it */
	ox_break breaks[OX_MAX_BREAKS]; /* of the list items being written, outermost first */
} ox_out;

/* Lines are filled up to this many columns. */
#define OX_WIDTH 100

/* nomem: the print's out-of-memory flag; scratch buffers pass their parent's, so that a
 * measurement that ran out of memory cannot pass for one that found no notes or no room. */
void ox_out_init(ox_out *o, FILE *f, unsigned flags, bool *nomem);
void ox_out_free(ox_out *o);
/* Makes room for n more bytes; false when that failed (o->failed is set). */
bool ox_out_reserve(ox_out *o, size_t n);
void ox_out_flush(ox_out *o);
/* Ends a print into memory: hands the text out in *text, NUL-terminated, and its length
 * without the NUL in *len (when len is not NULL); when memory ran out, frees it instead,
 * leaves *text NULL and says so in err. */
OnnxStatus ox_out_take(ox_out *o, char **text, size_t *len, OnnxError *err);

static inline void ox_put(ox_out *o, const char *s, size_t n)
{
	/* nothing to copy: the buffer may not exist yet (or any more, after running out of
	 * memory), and memcpy may not be given NULL even for 0 bytes */
	if (!n || (o->cap - o->len < n && !ox_out_reserve(o, n)))
		return;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static inline void ox_putc(ox_out *o, char c)
{
	if (o->cap == o->len && !ox_out_reserve(o, 1))
		return;
	o->buf[o->len++] = c;
}

static inline void ox_puts(ox_out *o, const char *s)
{
	ox_put(o, s, strlen(s));
}

/* A newline, then the current indentation. */
void ox_newline(ox_out *o);
size_t ox_column(const ox_out *o);

/* Fill layout for lists: items follow each other on a line while they fit in OX_WIDTH
 * columns, and continue on new lines at the indentation current at their start.
 * ox_item_begin writes the separator (", " but before the first item) and keeps the
 * output from there in the buffer; when ox_item_end finds the line too long, it breaks it
 * at the earliest open item on it (an enclosing one before a nested one), else where the
 * last item that ended on it began, until it fits. */
typedef struct ox_item {
	int slot;
	bool pushed;
} ox_item;
ox_item ox_item_begin(ox_out *o, bool first);
void ox_item_end(ox_out *o, ox_item it);

void ox_put_int(ox_out *o, int64_t v);
void ox_put_uint(ox_out *o, uint64_t v);
/* Shortest round-trip text; literal adds ".0" to integral values so that the text reads
 * back as a FLOAT literal, not an INT. */
void ox_put_float(ox_out *o, float v, bool literal);
void ox_put_double(ox_out *o, double v, bool literal);
/* A string literal: quotes, with '\' and '"' escaped, UTF-8 characters and control bytes
 * as they are, and each byte that is not part of well-formed UTF-8 as \xHH. */
void ox_put_string(ox_out *o, const char *s, size_t n);
/* A shape's dims as "[2, 3]". */
void ox_put_dims(ox_out *o, const int64_t *dims, size_t n);
/* For outputs other than the text syntax (DOT, info, JSON), which cannot escape a byte:
 * the character at s (n > 0 bytes left) when it is well-formed UTF-8, else U+FFFD for its
 * first byte, which is what is used of s (the return value). */
size_t ox_put_text_char(ox_out *o, const char *s, size_t n);
void ox_put_base64(ox_out *o, const unsigned char *s, size_t n);

bool ox_is_ident(const char *s);
/* Identifiers joined by dots ("com.microsoft"), as domains are written. */
bool ox_is_dotted_ident(const char *s);
/* A name: bare when it is an identifier (and not a word the context would misread),
 * quoted otherwise. */
void ox_put_name(ox_out *o, const char *s, bool keyword_safe);
/* Words that start a type or read as a float where a name is expected. */
bool ox_is_type_word(const char *s);
bool ox_is_float_word(const char *s);

/* Annotation lines: ox_note writes "#@ key: " where the line starts (the caller ends
 * the line); strings written with ox_note_string continue on further "#@ " lines at
 * their newlines. */
void ox_note(ox_out *o, const char *key);
void ox_note_string(ox_out *o, const char *s, size_t n);
/* Writes a message's serialization in base64, as annotations carry messages. */
void ox_note_message(ox_out *o, const void *message);

#endif
