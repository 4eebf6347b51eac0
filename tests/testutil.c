/* Helpers shared by the Check suites. */
#define _GNU_SOURCE
#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tu_source_root(void)
{
	const char *s = getenv("ONNXTXT_SOURCE_ROOT");
	return s ? s : ".";
}

const char *tu_shared(void)
{
	const char *s = getenv("ONNXTXT_SHARED");
	return s ? s : "../shared";
}

const char *tu_path(const char *root, const char *rel)
{
	static char buf[4096];
	snprintf(buf, sizeof buf, "%s/%s", root, rel);
	return buf;
}

char *tu_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = '\0';
		*len = (size_t)n;
	}
	return buf;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add(char ***list, size_t *n, size_t *cap, char *s)
{
	if (*n + 2 > *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*list = realloc(*list, *cap * sizeof **list);
	}
	(*list)[(*n)++] = s;
	(*list)[*n] = NULL;
}

char **tu_list(const char *dir, const char *suffix)
{
	char **list = calloc(1, sizeof *list);
	size_t n = 0, cap = 1;
	DIR *d = opendir(dir);
	if (!d)
		return list;
	for (struct dirent *e; (e = readdir(d));) {
		size_t k = strlen(e->d_name), m = strlen(suffix);
		if (k > m && strcmp(e->d_name + k - m, suffix) == 0)
			add(&list, &n, &cap, strdup(e->d_name));
	}
	closedir(d);
	qsort(list, n, sizeof *list, by_name);
	return list;
}

static void find(const char *dir, const char *name, char ***list, size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char *p;
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
			continue;
		struct stat st;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			find(p, name, list, n, cap);
			free(p);
		} else if (strcmp(e->d_name, name) == 0 && (!tu_slow() || st.st_size <= 256 * 1024)) {
			add(list, n, cap, p);
		} else {
			free(p);
		}
	}
	closedir(d);
}

int tu_slow(void)
{
	const char *s = getenv("ONNXTXT_SLOW");
	return s && *s && strcmp(s, "0") != 0;
}

int tu_rounds(int n)
{
	return !tu_slow() ? n : n / 20 ? n / 20 : 1;
}

char **tu_find(const char *dir, const char *name)
{
	char **list = calloc(1, sizeof *list);
	size_t n = 0, cap = 1;
	find(dir, name, &list, &n, &cap);
	qsort(list, n, sizeof *list, by_name);
	return list;
}

void tu_free_list(char **list)
{
	for (char **p = list; p && *p; p++)
		free(*p);
	free(list);
}

OnnxStatus tu_parse(const char *kind, const char *text, size_t len, void **out, OnnxError *err)
{
	static const struct {
		const char *kind;
		OnnxStatus (*fn)(const char *, size_t, void **, OnnxError *);
	} entries[] = {
		{"model", (void *)OnnxParser_Parse},
		{"graph", (void *)OnnxParser_ParseGraph},
		{"function", (void *)OnnxParser_ParseFunction},
		{"node", (void *)OnnxParser_ParseNode},
		{"nodes", (void *)OnnxParser_ParseNodeList},
		{"type", (void *)OnnxParser_ParseType},
		{"tensor", (void *)OnnxParser_ParseTensor},
		{"attribute", (void *)OnnxParser_ParseAttribute},
		{"value_info", (void *)OnnxParser_ParseValueInfo},
	};
	for (size_t i = 0; i < sizeof entries / sizeof *entries; i++)
		if (strcmp(entries[i].kind, kind) == 0)
			return entries[i].fn(text, len, out, err);
	ck_abort_msg("unknown entry point %s", kind);
	return ONNXTXT_ERR_ARG;
}

Onnx__ModelProto *tu_model(const char *text)
{
	Onnx__ModelProto *m = NULL;
	OnnxError err;
	OnnxStatus st = OnnxParser_Parse(text, strlen(text), &m, &err);
	ck_assert_msg(st == ONNXTXT_OK, "%u:%u: %s\nin: %s", err.line, err.column, err.message, text);
	return m;
}

const char *tu_error(const char *kind, const char *text)
{
	static char buf[700];
	void *out = NULL;
	OnnxError err;
	if (tu_parse(kind, text, strlen(text), &out, &err) == ONNXTXT_OK) {
		OnnxProto_Free(out);
		return "";
	}
	snprintf(buf, sizeof buf, "%u:%u: %s", err.line, err.column, err.message);
	return buf;
}

unsigned char *tu_pack(const void *msg, size_t *len)
{
	*len = protobuf_c_message_get_packed_size(msg);
	unsigned char *buf = malloc(*len + 1);
	protobuf_c_message_pack(msg, buf);
	return buf;
}

int tu_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void tu_scratch_dir(char *dir, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, 4096, "%s/onnxtxt-check-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	if (!mkdtemp(dir)) {
		perror(dir);
		exit(1);
	}
	chmod(dir, 0755);
}

void tu_remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	chmod(path, 0755); /* never follows a link: lstat said it is a directory */
	DIR *d = opendir(path);
	if (d) {
		for (struct dirent *e; (e = readdir(d));) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char *p;
			if (asprintf(&p, "%s/%s", path, e->d_name) >= 0) {
				tu_remove_tree(p);
				free(p);
			}
		}
		closedir(d);
	}
	rmdir(path);
}

size_t tu_utf8_bad(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t k = u[i] < 0x80 ? 1 : u[i] >> 5 == 6 ? 2 : u[i] >> 4 == 14 ? 3 : u[i] >> 3 == 30 ? 4 : 0;
		if (k == 0 || k > n - i)
			return i;
		uint32_t cp = k == 1 ? u[i] : (uint32_t)(u[i] & (0x7f >> k));
		for (size_t j = 1; j < k; j++) {
			if ((u[i + j] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (u[i + j] & 0x3f);
		}
		static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
		if (cp < least[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += k;
	}
	return n;
}
