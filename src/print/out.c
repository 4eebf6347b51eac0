/* Printer output: buffer management and the primitive writers (numbers, strings, names,
 * base64, annotation lines). */
#include "out.h"

#include <errno.h>
#include <stdlib.h>
#include <strings.h>

#include "diag.h"
#include "fmtfloat.h"
#include "literal.h"
#include "types.h"
#include <protobuf-c/protobuf-c.h>

#define FLUSH_AT (1u << 20)

void ox_out_init(ox_out *o, FILE *f, unsigned flags, bool *nomem)
{
	/* field by field: scratch buffers are made for every node, and breaks[] is only
	 * read below nbreaks */
	o->buf = NULL;
	o->len = o->cap = o->flushed = o->line = o->limit = 0;
	o->f = f;
	o->failed = false;
	o->sys_errno = 0;
	o->nomem = nomem;
	o->flags = flags;
	o->indent = 0;
	o->last.open = false;
	o->nbreaks = 0;
	o->attrs_apart = NULL;
}

void ox_out_free(ox_out *o)
{
	free(o->buf);
	o->buf = NULL;
}

OnnxStatus ox_out_take(ox_out *o, char **text, size_t *len, OnnxError *err)
{
	ox_putc(o, '\0');
	*text = NULL;
	if (o->failed || *o->nomem) {
		ox_out_free(o);
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return err->code;
	}
	*text = o->buf;
	if (len)
		*len = o->len - 1;
	return ONNXTXT_OK;
}

void ox_out_flush(ox_out *o)
{
	/* a line may still break at an open list item, or at the last one that ended on it:
	 * keep the text from there */
	size_t keep = o->flushed + o->len;
	if (o->nbreaks)
		keep = o->breaks[0].at;
	if (o->last.open && o->last.at >= o->line && o->last.at < keep)
		keep = o->last.at;
	size_t n = keep - o->flushed;
	if (!o->f || n == 0 || o->failed)
		return;
	if (fwrite(o->buf, 1, n, o->f) != n)
		o->failed = true, o->sys_errno = errno;
	memmove(o->buf, o->buf + n, o->len - n);
	o->flushed += n;
	o->len -= n;
}

bool ox_out_reserve(ox_out *o, size_t n)
{
	if (o->limit && o->len + n > o->limit)
		o->failed = true;
	if (o->failed)
		return false;
	if (o->f && o->len >= FLUSH_AT)
		ox_out_flush(o);
	if (o->cap - o->len >= n)
		return true;
	size_t cap = o->cap ? o->cap : 4096;
	while (cap - o->len < n) {
		if (cap > SIZE_MAX / 2) {
			o->failed = *o->nomem = true;
			return false;
		}
		cap *= 2;
	}
	if (o->limit && cap > o->limit)
		cap = o->limit; /* so that every write past it comes here */
	char *b = realloc(o->buf, cap);
	if (!b) {
		o->failed = *o->nomem = true;
		return false;
	}
	o->buf = b;
	o->cap = cap;
	return true;
}

void ox_newline(ox_out *o)
{
	if (!ox_out_reserve(o, 1 + (size_t)o->indent))
		return;
	o->buf[o->len++] = '\n';
	o->line = o->flushed + o->len;
	memset(o->buf + o->len, ' ', (size_t)o->indent);
	o->len += (size_t)o->indent;
}

size_t ox_column(const ox_out *o)
{
	return o->flushed + o->len - o->line;
}

ox_item ox_item_begin(ox_out *o, bool first)
{
	ox_item it = {o->nbreaks, false};
	if (first)
		return it;
	ox_putc(o, ',');
	if (o->nbreaks < OX_MAX_BREAKS) { /* else nested too deep: the item cannot break */
		o->breaks[o->nbreaks++] = (ox_break){o->flushed + o->len, o->indent, true};
		it.pushed = true;
	}
	ox_putc(o, ' ');
	return it;
}

/* Turns the space at break k into a newline and k's indentation. */
/* Turns the space at break b into a newline and b's indentation. */
static void break_line(ox_out *o, ox_break *b)
{
	if (!ox_out_reserve(o, (size_t)b->indent))
		return;
	size_t at = b->at, i = at - o->flushed;
	char *p = o->buf + i;
	memmove(p + 1 + b->indent, p + 1, o->len - i - 1);
	p[0] = '\n';
	memset(p + 1, ' ', (size_t)b->indent);
	o->len += (size_t)b->indent;
	o->line = at + 1;
	b->open = false;
	for (int j = 0; j < o->nbreaks; j++)
		if (o->breaks[j].at > at)
			o->breaks[j].at += (size_t)b->indent;
}

void ox_item_end(ox_out *o, ox_item it)
{
	while (ox_column(o) >= OX_WIDTH && !o->failed) { /* room for the comma after */
		int k = 0;
		while (k < o->nbreaks && !(o->breaks[k].open && o->breaks[k].at >= o->line))
			k++;
		if (k < o->nbreaks)
			break_line(o, &o->breaks[k]);
		else if (o->last.open && o->last.at >= o->line)
			break_line(o, &o->last);
		else
			break;
	}
	if (it.pushed && o->breaks[it.slot].open && o->breaks[it.slot].at >= o->line)
		o->last = o->breaks[it.slot]; /* it fit: a later item may still break there */
	o->nbreaks = it.slot;
}

void ox_put_uint(ox_out *o, uint64_t v)
{
	char tmp[24];
	int i = 24;
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ox_put(o, tmp + i, (size_t)(24 - i));
}

void ox_put_int(ox_out *o, int64_t v)
{
	if (v < 0) {
		ox_putc(o, '-');
		ox_put_uint(o, 0 - (uint64_t)v);
	} else {
		ox_put_uint(o, (uint64_t)v);
	}
}

/* An integral shortest form ("2", "-0", "123456792") reads back as an INT literal. */
static void as_literal(ox_out *o, const char *s, size_t n)
{
	ox_put(o, s, n);
	for (size_t i = 0; i < n; i++)
		if (s[i] == '.' || s[i] == 'e' || s[i] == 'n' || s[i] == 'i')
			return;
	ox_put(o, ".0", 2);
}

/* The n characters of a shortest float at tmp, as a FLOAT literal when literal. */
static void put_number(ox_out *o, const char *tmp, size_t n, bool literal)
{
	if (literal)
		as_literal(o, tmp, n);
	else
		ox_put(o, tmp, n);
}

void ox_put_float(ox_out *o, float v, bool literal)
{
	char tmp[40];
	put_number(o, tmp, ox_fmt_float(v, tmp), literal);
}

void ox_put_double(ox_out *o, double v, bool literal)
{
	char tmp[40];
	put_number(o, tmp, ox_fmt_double(v, tmp), literal);
}

void ox_put_dims(ox_out *o, const int64_t *dims, size_t n)
{
	ox_putc(o, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			ox_puts(o, ", ");
		ox_put_int(o, dims[i]);
	}
	ox_putc(o, ']');
}

#define STRING_CHUNK 4096

/* Bytes a string literal does not copy as they are: quotes, backslashes, non-ASCII bytes
 * (to check their UTF-8), and newlines (they start a line). */
static const unsigned char string_special[256] = {['"'] = 1, ['\\'] = 1, ['\n'] = 1, [0x80 ... 0xff] = 1};

/* The bytes ox_put_string writes for s, quotes left out. */
static size_t escaped_size(const char *s, size_t n)
{
	size_t size = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k = c < 0x80 ? 1 : ox_utf8_len(s + i, n - i);
		size += k ? k + (c == '"' || c == '\\') : 4;
		i += k ? k : 1;
	}
	return size;
}

void ox_put_string(ox_out *o, const char *s, size_t n)
{
	ox_putc(o, '"');
	for (size_t i = 0; i < n;) {
		/* in chunks, so that a long string needs no buffer of four times its size; a
		 * character may run 3 bytes past the chunk. A measuring output (limit) takes the
		 * exact size at once: a bound would fail a string that fits. */
		size_t end = o->limit || n - i < STRING_CHUNK ? n : i + STRING_CHUNK;
		if (!ox_out_reserve(o, o->limit ? escaped_size(s, n) : 4 * (end - i) + 12))
			return;
		char *d = o->buf + o->len;
		while (i < end) {
			size_t run = i; /* bytes copied as they are, in one go */
			while (run < end && !string_special[(unsigned char)s[run]])
				run++;
			memcpy(d, s + i, run - i);
			d += run - i;
			i = run;
			if (i == end)
				break;
			if (s[i] == '\n') { /* kept as it is: the column counts from here */
				*d++ = s[i++];
				o->line = o->flushed + (size_t)(d - o->buf);
			} else {
				i += ox_escape_char(&d, s + i, n - i);
			}
		}
		o->len = (size_t)(d - o->buf);
	}
	ox_putc(o, '"');
}

size_t ox_put_text_char(ox_out *o, const char *s, size_t n)
{
	size_t k = ox_utf8_len(s, n);
	if (k)
		ox_put(o, s, k);
	else
		ox_put(o, "\xef\xbf\xbd", 3); /* U+FFFD REPLACEMENT CHARACTER */
	return k ? k : 1;
}

void ox_put_base64(ox_out *o, const unsigned char *s, size_t n)
{
	size_t m = (n + 2) / 3 * 4;
	if (!ox_out_reserve(o, m + 2))
		return;
	o->buf[o->len++] = '"';
	o->len += ox_base64_encode(o->buf + o->len, s, n);
	o->buf[o->len++] = '"';
}

/* Character classes of identifiers: 1 may start one, 2 may continue one. */
static const unsigned char ident_class[256] = {
	['0' ... '9'] = 2, ['A' ... 'Z'] = 3, ['a' ... 'z'] = 3, ['_'] = 3,
};

bool ox_is_ident(const char *s)
{
	if (!s || !(ident_class[(unsigned char)*s] & 1))
		return false;
	for (s++; *s; s++)
		if (!(ident_class[(unsigned char)*s] & 2))
			return false;
	return true;
}

bool ox_is_dotted_ident(const char *s)
{
	if (!s)
		return false;
	for (;;) {
		if (!(ident_class[(unsigned char)*s] & 1))
			return false; /* an empty part, or one that starts wrong */
		for (s++; ident_class[(unsigned char)*s] & 2; s++)
			;
		if (*s == '\0')
			return true;
		if (*s++ != '.')
			return false;
	}
}

bool ox_is_type_word(const char *s)
{
	static const char *const constructors[] = {"seq", "map", "optional", "sparse_tensor", "opaque"};
	if (ox_elem_lookup(s, strlen(s)))
		return true;
	for (size_t i = 0; i < sizeof constructors / sizeof *constructors; i++)
		if (strcmp(s, constructors[i]) == 0)
			return true;
	return false;
}

bool ox_is_float_word(const char *s)
{
	return strcasecmp(s, "inf") == 0 || strcasecmp(s, "infinity") == 0 || strcasecmp(s, "nan") == 0;
}

/* Copies an identifier while checking it, so that a name is read once in the common case. */
void ox_put_name(ox_out *o, const char *s, bool keyword_safe)
{
	size_t n = 0;
	if (ident_class[(unsigned char)s[0]] & 1) {
		for (n = 1; ident_class[(unsigned char)s[n]] & 2; n++)
			;
		if (s[n] == '\0' && (keyword_safe || (!ox_is_type_word(s) && !ox_is_float_word(s)))) {
			ox_put(o, s, n);
			return;
		}
	}
	ox_put_string(o, s, n + strlen(s + n));
}

void ox_note(ox_out *o, const char *key)
{
	ox_puts(o, "#@ ");
	ox_puts(o, key);
	ox_put(o, ": ", 2);
}

void ox_note_string(ox_out *o, const char *s, size_t n)
{
	ox_putc(o, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			ox_newline(o); /* the next "#@ " line continues the string */
			ox_put(o, "#@ ", 3);
			continue;
		}
		char tmp[8], *d = tmp;
		/* a raw CR would end the "#@" line (CR-only line ends); escaped, it is the byte */
		if (s[i] == '\r')
			*d++ = '\\';
		i += ox_escape_char(&d, s + i, n - i) - 1;
		ox_put(o, tmp, (size_t)(d - tmp));
	}
	ox_putc(o, '"');
}

void ox_note_message(ox_out *o, const void *message)
{
	size_t n = protobuf_c_message_get_packed_size(message);
	unsigned char *bytes = malloc(n ? n : 1);
	if (!bytes) {
		o->failed = *o->nomem = true;
		return;
	}
	protobuf_c_message_pack(message, bytes);
	ox_put_base64(o, bytes, n);
	free(bytes);
}
