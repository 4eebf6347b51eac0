/* Literal conversions shared by the parser and the printer. */
#ifndef OX_LITERAL_H
#define OX_LITERAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ox_num_status {
	OX_NUM_OK = 0,
	OX_NUM_RANGE, /* value outside the target type */
	OX_NUM_SYNTAX /* not a number of the accepted form */
} ox_num_status;

/* INT literal text ("-"? digits) to a signed/unsigned 64-bit value. */
ox_num_status ox_parse_i64(const char *p, size_t n, int64_t *out);
ox_num_status ox_parse_u64(const char *p, size_t n, uint64_t *out);

/* INT or FLOAT literal text, including "inf", "-infinity", "NaN" in any case, to a
 * correctly rounded value. Underflow is accepted; overflow is OX_NUM_RANGE. */
ox_num_status ox_parse_double(const char *p, size_t n, double *out);
ox_num_status ox_parse_float(const char *p, size_t n, float *out);
/* The number at p (p < end), converted as ox_parse_float would, when it has the common
 * shape the fast path takes; returns its length, or 0 to use ox_parse_float instead. */
size_t ox_scan_float(const char *p, const char *end, float *out);

/* The narrow floating-point element types (those with ox_elem_narrow, src/types.h). The
 * text is rounded to nearest-even directly from its decimal value; values beyond the
 * largest finite number are OX_NUM_RANGE (inf and nan are accepted where the format
 * encodes them). */
ox_num_status ox_parse_narrow_float(int dtype, const char *p, size_t n, uint32_t *bits);
/* Decodes narrow-float bits to a double (exact). */
double ox_narrow_to_double(int dtype, uint32_t bits);

/* Whether p[0..n) is the lowercase ASCII word w, ignoring case ("Inf", "TRUE"). */
bool ox_word_is(const char *p, size_t n, const char *w);

/* Unescapes a string literal body (between the quotes): \xHH (two hex digits, either
 * case) is the byte 0xHH, so that bytes which are not UTF-8 can be written; any other
 * backslash takes the next byte literally, as onnx's parser does. dst must hold n bytes;
 * returns the unescaped length. */
size_t ox_unescape(char *dst, const char *src, size_t n);
/* Writes the character at s (n > 0 bytes left) as a quoted name or string holds it, for
 * ox_unescape to read back: '"' and '\' after a backslash, a well-formed UTF-8 character
 * as it is, and a byte that does not start one as \xHH (lowercase), so that the text stays
 * UTF-8. Advances *d by at most 4 bytes per byte of s used; returns the bytes of s used. */
size_t ox_escape_char(char **d, const char *s, size_t n);

/* The length (1 to 4) of the well-formed UTF-8 character at s, n > 0 bytes being there;
 * 0 when its first byte does not start one: a stray continuation byte, an overlong form,
 * a surrogate, a code point beyond U+10FFFF or a sequence cut short. ASCII (control bytes
 * and NUL too) is 1. */
size_t ox_utf8_len(const char *s, size_t n);
/* The error for such a byte in text, with the byte twice: where the text says it */
#define OX_BAD_UTF8_MESSAGE "invalid UTF-8 byte 0x%02x; write a byte that is not text as \\x%02x in a quoted name or string"

/* Standard base64 (RFC 4648, with padding), which annotations use for messages that have
 * no syntax. ox_base64_encode writes 4 * ceil(n / 3) bytes and no NUL. Decoding returns
 * the decoded length, or SIZE_MAX for malformed input; dst needs 3 * (n / 4) bytes. */
size_t ox_base64_encode(char *dst, const unsigned char *src, size_t n);
size_t ox_base64_decode(unsigned char *dst, const char *src, size_t n);

#endif
