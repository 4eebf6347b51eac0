/* onnxtxt test --junit: the results as JUnit XML, the dialect Jenkins and GitLab read
 * (testsuites > testsuite per PATH argument > testcase, with failure or skipped). */
#define _XOPEN_SOURCE 700
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Text for an attribute value or element content: markup characters as entities, and
 * what XML 1.0 cannot hold at all (control bytes, broken UTF-8) as U+FFFD. */
static void xml_text(FILE *f, const char *s)
{
	if (!s)
		s = "";
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k = cli_utf8_len((const unsigned char *)s + i, n - i);
		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\n' || c == '\t')
			fprintf(f, "&#%d;", c); /* kept in attributes, where raw ones become spaces */
		else if (!k || (c < 0x20 && c != '\r') || c == 0x7f)
			fputs("\xef\xbf\xbd", f);
		else
			fwrite(s + i, 1, k, f);
		i += k ? k : 1;
	}
}

static void count(const junit_case *c, size_t from, size_t to, size_t *fail, size_t *skip, double *secs)
{
	*fail = *skip = 0;
	*secs = 0;
	for (size_t i = from; i < to; i++) {
		*fail += c[i].verdict == 1;
		*skip += c[i].verdict == 2;
		*secs += c[i].seconds;
	}
}

/* The case's name within its suite: its path below the suite's folder. */
static const char *case_name(const char *path, const char *suite)
{
	size_t n = strlen(suite);
	while (n > 1 && suite[n - 1] == '/')
		n--;
	if (strncmp(path, suite, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

static void write_case(FILE *f, const junit_case *c, const char *suite)
{
	fputs("    <testcase classname=\"", f);
	xml_text(f, suite);
	fputs("\" name=\"", f);
	xml_text(f, case_name(c->path, suite));
	fputs("\" file=\"", f);
	xml_text(f, c->path);
	fprintf(f, "\" time=\"%.6f\"", c->seconds);
	if (c->verdict == 0) {
		fputs("/>\n", f);
		return;
	}
	fputs(c->verdict == 1 ? ">\n      <failure message=\"" : ">\n      <skipped message=\"", f);
	xml_text(f, c->message);
	if (c->verdict == 1) {
		fputs("\" type=\"failure\">", f);
		xml_text(f, c->message);
		fputs("</failure>\n", f);
	} else {
		fputs("\"/>\n", f);
	}
	fputs("    </testcase>\n", f);
}

static void write_xml(FILE *f, char *const *suites, const size_t *ends, size_t nsuites, const junit_case *cases)
{
	size_t fail, skip, n = nsuites ? ends[nsuites - 1] : 0;
	double secs;
	count(cases, 0, n, &fail, &skip, &secs);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"onnxtxt test\" tests=\"%zu\" "
		   "failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.6f\">\n", n, fail, skip, secs);
	for (size_t s = 0, from = 0; s < nsuites; from = ends[s++]) {
		count(cases, from, ends[s], &fail, &skip, &secs);
		fputs("  <testsuite name=\"", f);
		xml_text(f, suites[s]);
		fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.6f\">\n", ends[s] - from,
			fail, skip, secs);
		for (size_t i = from; i < ends[s]; i++)
			write_case(f, &cases[i], suites[s]);
		fputs("  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
}

/* Written beside path and renamed over it, so a reader never sees half a report. */
int junit_write(const char *path, char *const *suites, const size_t *ends, size_t nsuites, const junit_case *cases)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 16);
	if (!tmp)
		return fail("out of memory"), EXIT_IO;
	snprintf(tmp, n + 16, "%s.tmp-junit", path);
	FILE *f = fopen(tmp, "w");
	int ok = f != NULL;
	if (f) {
		write_xml(f, suites, ends, nsuites, cases);
		ok = !ferror(f);
		ok = fclose(f) == 0 && ok;
	}
	ok = ok && rename(tmp, path) == 0;
	if (!ok) {
		fail("cannot write %s: %s", path, strerror(errno));
		remove(tmp);
	}
	free(tmp);
	return ok ? EXIT_OK : EXIT_IO;
}
