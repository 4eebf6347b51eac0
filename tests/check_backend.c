/* The backend-model round trip: every model.onnx of ../shared/onnx-backend-data reads and
 * packs back to its original bytes, through memory (OnnxBinary_Read/Write) and through files
 * (OnnxBinary_ReadFile/WriteFile). One test case per model, named after its path. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char data_dir[4096];
static char **models;
static char **names; /* paths relative to data_dir, for the case names */
static char tmpdir[4096];

/* Fails the test unless got[0..n) equals want[0..m), naming the first differing byte. */
static void same_bytes(const char *what, const char *name, const void *got, size_t n, const void *want, size_t m)
{
	size_t i = 0;
	while (i < n && i < m && ((const unsigned char *)got)[i] == ((const unsigned char *)want)[i])
		i++;
	ck_assert_msg(n == m && i == n, "%s: %s wrote %zu bytes, the original has %zu; first difference at byte %zu",
		      name, what, n, m, i);
}

START_TEST(round_trip)
{
	const char *path = models[_i], *name = names[_i];
	size_t len;
	char *original = tu_read(path, &len);
	ck_assert_msg(original, "cannot read %s", path);

	Onnx__ModelProto *m = NULL;
	OnnxError err;
	ck_assert_msg(OnnxBinary_Read(original, len, &m, &err) == ONNXTXT_OK, "%s: OnnxBinary_Read: %s", name,
		      err.message);
	ck_assert_ptr_nonnull(m->graph);
	void *packed;
	size_t n;
	ck_assert_int_eq(OnnxBinary_Write(m, &packed, &n, &err), ONNXTXT_OK);
	same_bytes("OnnxBinary_Write", name, packed, n, original, len);
	free(packed);

	Onnx__ModelProto *f = NULL;
	ck_assert_msg(OnnxBinary_ReadFile(path, &f, &err) == ONNXTXT_OK, "%s: OnnxBinary_ReadFile: %s", name,
		      err.message);
	char out[4200];
	snprintf(out, sizeof out, "%s/model-%d.onnx", tmpdir, _i);
	ck_assert_msg(OnnxBinary_WriteFile(f, out, &err) == ONNXTXT_OK, "%s: OnnxBinary_WriteFile: %s", name,
		      err.message);
	size_t n2;
	char *written = tu_read(out, &n2);
	ck_assert_ptr_nonnull(written);
	same_bytes("OnnxBinary_WriteFile", name, written, n2, original, len);
	unlink(out);
	free(written);

	OnnxProto_Free(f);
	OnnxProto_Free(m);
	free(original);
}
END_TEST

START_TEST(models_found)
{
	ck_abort_msg("no model.onnx below %s", data_dir);
}
END_TEST

int main(void)
{
	snprintf(data_dir, sizeof data_dir, "%s", tu_path(tu_shared(), "onnx-backend-data"));
	struct stat st;
	if (stat(data_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		printf("1..0 # SKIP ../shared/onnx-backend-data not found\n");
		return 0;
	}
	tu_scratch_dir(tmpdir, "backend");
	models = tu_find(data_dir, "model.onnx");
	size_t count = 0;
	while (models[count])
		count++;
	names = calloc(count + 1, sizeof *names);
	Suite *s = suite_create("backend");
	size_t skip = strlen(data_dir) + 1;
	for (size_t i = 0; i < count; i++) {
		names[i] = strdup(models[i] + skip);
		TCase *tc = tcase_create(names[i]);
		tcase_set_timeout(tc, 120);
		_tcase_add_test(tc, round_trip, 0, 0, (int)i, (int)i + 1);
		suite_add_tcase(s, tc);
	}
	if (count == 0) {
		TCase *tc = tcase_create("models found");
		tcase_add_test(tc, models_found);
		suite_add_tcase(s, tc);
	}
	int rc = tu_run(s);
	tu_remove_tree(tmpdir);
	tu_free_list(models);
	tu_free_list(names);
	return rc;
}
