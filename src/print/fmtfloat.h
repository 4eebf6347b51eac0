/* Shortest round-trip text for float and double, exactly as C++17 std::to_chars(first,
 * last, value) writes it. */
#ifndef OX_FMTFLOAT_H
#define OX_FMTFLOAT_H

#include <stddef.h>

/* Longest output ("-1.7976931348623157e+308" is 24 bytes) plus the NUL, rounded up. */
#define OX_FMT_FLOAT_BUF 32

/* Writes the fewest significant digits that read back (correctly rounded) to exactly v,
 * the closest such digits to v when several qualify, in fixed notation ("0.001",
 * "123456792") or scientific notation ("1e+05", "5e-324"), whichever is shorter (fixed on
 * a tie); "inf", "-inf", "nan", "-nan", "-0" for the special values. buf must hold
 * OX_FMT_FLOAT_BUF bytes; the text is NUL-terminated and its length returned.
 * Locale independent and thread-safe. */
size_t ox_fmt_float(float v, char *buf);
size_t ox_fmt_double(double v, char *buf);

#endif
