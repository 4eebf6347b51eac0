/* Diagnostics for machines: the JSON Lines and SARIF 2.1.0 renderers beside the text one
 * (cli.c's report), all fed by the same structured fields of an OnnxError. */
#define _XOPEN_SOURCE 700
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_diag_format = DIAG_TEXT;

/* One rule per kind of diagnostic: the library's status codes, then the CLI's own. */
static const struct rule {
	const char *id, *text;
} rules[] = {
	{"syntax", "The text does not follow the ONNX textual syntax."},
	{"value", "Well-formed text with a wrong value: range, type or count."},
	{"limit", "A limit against hostile input was reached."},
	{"binary", "Malformed protobuf bytes."},
	{"io", "A file could not be read or written."},
	{"memory", "Out of memory."},
	{"argument", "An invalid argument."},
	{"unsupported", "The evaluator does not support an operator or type."},
	{"eval", "The model cannot be evaluated: structure, shapes or types."},
	{"check", "The model breaks a structural rule of ONNX."},
	{"error", "Any other error."},
	{"test-failed", "A test case failed."},
	{"test-skipped", "A test case was skipped."},
};
enum { RULE_ERROR = 10 };

int diag_rule(OnnxStatus st)
{
	return st >= ONNXTXT_ERR_SYNTAX && st <= ONNXTXT_ERR_INVALID ? (int)st - 1 : RULE_ERROR;
}

/* A position in text: 1-based line, column in characters; 0 when unknown. */
typedef struct pos {
	unsigned line, col;
} pos;

typedef struct diag {
	char *file, *message, *path, *hint, *fix;
	pos start, end, fix_start, fix_end;
	int rule, has_fix;
	const char *level;
} diag;

static diag *saved;
static size_t nsaved, capsaved;

/* Moves p along text[from..to), counting lines and UTF-8 characters. */
static pos advance(pos p, const char *text, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		if (text[i] == '\n')
			p.line++, p.col = 1;
		else if (((unsigned char)text[i] & 0xc0) != 0x80)
			p.col++;
	}
	return p;
}

static void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0, n = strlen(s), k; i < n; i += k) {
		unsigned char c = (unsigned char)s[i];
		k = c < 0x80 ? 1 : cli_utf8_len((const unsigned char *)s + i, n - i);
		if (k == 0)
			fputs("\xef\xbf\xbd", f), k = 1; /* U+FFFD: a message may quote a name that is not UTF-8 */
		else if (k > 1)
			fwrite(s + i, 1, k, f);
		else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A file name as a URI reference: bytes outside the unreserved set percent-encoded. */
static void json_uri(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~/", c))
			fputc(c, f);
		else
			fprintf(f, "%%%02X", c);
	}
	fputc('"', f);
}

static void json_num(FILE *f, unsigned n)
{
	if (n)
		fprintf(f, "%u", n);
	else
		fputs("null", f);
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* One object per line: every key always there, null when it does not apply. */
static void print_json(FILE *f, const diag *d)
{
	fputs("{\"file\": ", f);
	json_str(f, d->file);
	fputs(", \"line\": ", f), json_num(f, d->start.line);
	fputs(", \"column\": ", f), json_num(f, d->start.col);
	fputs(", \"end_line\": ", f), json_num(f, d->end.line);
	fputs(", \"end_column\": ", f), json_num(f, d->end.col);
	fprintf(f, ", \"severity\": \"%s\", \"code\": \"%s\", \"message\": ", d->level, rules[d->rule].id);
	json_str(f, d->message);
	fputs(", \"path\": ", f), json_str(f, d->path);
	fputs(", \"hint\": ", f), json_str(f, d->hint);
	fputs(", \"fixit\": ", f);
	if (d->has_fix) {
		fprintf(f, "{\"line\": %u, \"column\": %u, \"end_line\": %u, \"end_column\": %u, \"text\": ", d->fix_start.line,
			d->fix_start.col, d->fix_end.line, d->fix_end.col);
		json_str(f, d->fix);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fputs("}\n", f);
	fflush(f);
}

static void free_diag(diag *d)
{
	free(d->file), free(d->message), free(d->path), free(d->hint), free(d->fix);
}

/* JSON Lines are written at once; SARIF results wait for the end of the command. */
static void emit(diag *d)
{
	if (cli_diag_format == DIAG_JSON) {
		print_json(stderr, d);
		free_diag(d);
		return;
	}
	if (nsaved == capsaved) {
		size_t cap = capsaved ? 2 * capsaved : 16;
		diag *more = realloc(saved, cap * sizeof *more);
		if (!more) {
			free_diag(d);
			return;
		}
		saved = more, capsaved = cap;
	}
	saved[nsaved++] = *d;
}

void diag_report(const OnnxError *err, const char *file, const char *text, size_t len)
{
	diag d = {.file = dup_or_null(file), .message = strdup(err->message), .path = dup_or_null(err->path),
		  .hint = dup_or_null(err->hint), .rule = diag_rule(err->code), .level = "error"};
	if (err->line) {
		d.start = (pos){err->line, err->column};
		d.end = d.start;
		if (text && err->offset <= len && err->length <= len - err->offset)
			d.end = advance(d.start, text, err->offset, err->offset + err->length);
	}
	if (err->fix_set && text && err->fix_offset <= len && err->fix_length <= len - err->fix_offset) {
		d.has_fix = 1;
		d.fix = strdup(err->fix);
		d.fix_start = advance((pos){1, 1}, text, 0, err->fix_offset);
		d.fix_end = advance(d.fix_start, text, err->fix_offset, err->fix_offset + err->fix_length);
	}
	emit(&d);
}

void diag_message(int rule, const char *level, const char *file, unsigned line, unsigned column, const char *msg)
{
	diag d = {.file = dup_or_null(file), .message = strdup(msg), .rule = rule, .level = level};
	d.start = d.end = (pos){line, line ? column : 0};
	emit(&d);
}

/* ---- SARIF ------------------------------------------------------------------------------- */

/* A region object's members, inside braces the caller writes. */
static void sarif_region(FILE *f, pos a, pos b)
{
	fprintf(f, "\"startLine\": %u", a.line);
	if (a.col)
		fprintf(f, ", \"startColumn\": %u", a.col);
	if (b.line)
		fprintf(f, ", \"endLine\": %u", b.line);
	if (b.col)
		fprintf(f, ", \"endColumn\": %u", b.col);
}

static void sarif_location(FILE *f, const diag *d)
{
	fputs(", \"locations\": [{", f);
	if (d->file) {
		fputs("\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", f);
		json_uri(f, d->file);
		fputc('}', f);
		if (d->start.line) {
			fputs(", \"region\": {", f);
			sarif_region(f, d->start, d->end);
			fputc('}', f);
		}
		fputc('}', f);
	}
	if (d->path) {
		fprintf(f, "%s\"logicalLocations\": [{\"fullyQualifiedName\": ", d->file ? ", " : "");
		json_str(f, d->path);
		fputs(", \"kind\": \"element\"}]", f);
	}
	fputs("}]", f);
}

static void sarif_fix(FILE *f, const diag *d)
{
	fputs(", \"fixes\": [{\"description\": {\"text\": ", f);
	json_str(f, d->hint ? d->hint : d->fix);
	fputs("}, \"artifactChanges\": [{\"artifactLocation\": {\"uri\": ", f);
	json_uri(f, d->file);
	fputs("}, \"replacements\": [{\"deletedRegion\": {", f);
	sarif_region(f, d->fix_start, d->fix_end);
	fputs("}, \"insertedContent\": {\"text\": ", f);
	json_str(f, d->fix);
	fputs("}}]}]}]", f);
}

static void sarif_result(FILE *f, const diag *d, int last)
{
	fprintf(f, "        {\"ruleId\": \"%s\", \"ruleIndex\": %d, \"level\": \"%s\", \"message\": {\"text\": ", rules[d->rule].id,
		d->rule, d->level);
	json_str(f, d->message);
	fputc('}', f);
	if (d->file || d->path)
		sarif_location(f, d);
	if (d->has_fix && d->file)
		sarif_fix(f, d);
	if (d->hint) {
		fputs(", \"properties\": {\"hint\": ", f);
		json_str(f, d->hint);
		fputc('}', f);
	}
	fprintf(f, "}%s\n", last ? "" : ",");
}

static void sarif_document(FILE *f)
{
	fputs("{\n  \"$schema\": \"https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json\",\n  \"version\": \"2.1.0\",\n"
	      "  \"runs\": [{\n    \"tool\": {\"driver\": {\"name\": \"onnxtxt\", \"version\": ", f);
	json_str(f, OnnxLibrary_Version());
	fputs(", \"informationUri\": \"https://onnx.ai/onnx/repo-docs/Syntax.html\", \"rules\": [\n", f);
	size_t nrules = sizeof rules / sizeof rules[0];
	for (size_t i = 0; i < nrules; i++) {
		fprintf(f, "      {\"id\": \"%s\", \"shortDescription\": {\"text\": ", rules[i].id);
		json_str(f, rules[i].text);
		fprintf(f, "}}%s\n", i + 1 < nrules ? "," : "");
	}
	fputs("    ]}},\n    \"columnKind\": \"unicodeCodePoints\",\n    \"results\": [\n", f);
	for (size_t i = 0; i < nsaved; i++)
		sarif_result(f, &saved[i], i + 1 == nsaved);
	fputs("    ]\n  }]\n}\n", f);
}

void diag_finish(void)
{
	if (cli_diag_format == DIAG_SARIF)
		sarif_document(stderr);
	for (size_t i = 0; i < nsaved; i++)
		free_diag(&saved[i]);
	free(saved);
	saved = NULL;
	nsaved = capsaved = 0;
}
