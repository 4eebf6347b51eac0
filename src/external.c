/* External data: moving large tensors out of a model into a data file beside it, and
 * embedding them back. Locations are relative paths that must stay inside the model's
 * directory: no absolute paths, no "..", no symbolic link that leads elsewhere. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "file.h"
#include "onnxtxt/onnxtxt.h"
#include "text/tensor.h"
#include "types.h"


typedef int tensor_fn(Onnx__TensorProto *t, void *ctx);

static int each_in_graph(Onnx__GraphProto *g, tensor_fn *fn, void *ctx);

static int each_in_nodes(size_t n, Onnx__NodeProto **nodes, tensor_fn *fn, void *ctx)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nodes[i]->n_attribute; k++) {
			Onnx__AttributeProto *a = nodes[i]->attribute[k];
			if (a->t && !fn(a->t, ctx))
				return 0;
			for (size_t j = 0; j < a->n_tensors; j++)
				if (!fn(a->tensors[j], ctx))
					return 0;
			if (a->g && !each_in_graph(a->g, fn, ctx))
				return 0;
			for (size_t j = 0; j < a->n_graphs; j++)
				if (!each_in_graph(a->graphs[j], fn, ctx))
					return 0;
		}
	return 1;
}

static int each_in_graph(Onnx__GraphProto *g, tensor_fn *fn, void *ctx)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (!fn(g->initializer[i], ctx))
			return 0;
	return each_in_nodes(g->n_node, g->node, fn, ctx);
}

/* Calls fn on every tensor of the model's graphs and functions. */
static int each_tensor(Onnx__ModelProto *m, tensor_fn *fn, void *ctx)
{
	if (m->graph && !each_in_graph(m->graph, fn, ctx))
		return 0;
	for (size_t i = 0; i < m->n_functions; i++)
		if (!each_in_nodes(m->functions[i]->n_node, m->functions[i]->node, fn, ctx))
			return 0;
	return 1;
}

/* ---- locations ------------------------------------------------------------------------------ */

/* A location may only name a file inside the model's directory. */
bool ox_external_location_ok(const char *loc)
{
	if (!loc || !*loc || loc[0] == '/' || loc[strlen(loc) - 1] == '/')
		return 0;
	for (const char *p = loc; *p;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if ((n == 2 && p[0] == '.' && p[1] == '.') || n == 0)
			return 0;
		p += n + (slash != NULL);
	}
	return 1;
}

static char *dir_of(const char *model_path)
{
	const char *slash = model_path ? strrchr(model_path, '/') : NULL;
	if (!slash)
		return strdup(".");
	return strndup(model_path, slash == model_path ? 1 : (size_t)(slash - model_path));
}

static bool inside(const char *real_dir, const char *real)
{
	size_t n = strlen(real_dir);
	return strncmp(real, real_dir, n) == 0 && (real[n] == '/' || real[n] == '\0' || strcmp(real_dir, "/") == 0);
}

/* Whether path, with symbolic links resolved, stays inside real_dir: 1 inside, 0 not, -1
 * out of memory. A file that does not exist yet counts by its directory; a link that leads
 * nowhere never does. */
static int stays_inside(const char *real_dir, const char *path)
{
	char real[PATH_MAX];
	struct stat st;
	if (realpath(path, real))
		return inside(real_dir, real);
	if (lstat(path, &st) == 0) /* there, but not resolvable: a dangling or looping link */
		return 0;
	char *parent = strdup(path), *slash = parent ? strrchr(parent, '/') : NULL;
	if (!parent)
		return -1;
	if (!slash) {
		free(parent);
		return 0;
	}
	*slash = '\0';
	/* a missing directory is left to fail when the file is opened */
	int ok = !realpath(parent, real) ? errno == ENOENT : inside(real_dir, real);
	free(parent);
	return ok;
}

/* The file a location names, relative to dir unless absolute, with no check of where it
 * leads: for ONNXTXT_EXTERNAL_ANY_PATH. */
static char *resolve_anywhere(const char *dir, const char *loc, OnnxError *err)
{
	char *path = NULL;
	if (!loc || !*loc) {
		ox_error_set(err, ONNXTXT_ERR_VALUE, "external data location is empty");
		return NULL;
	}
	if (loc[0] == '/' ? !(path = strdup(loc)) : asprintf(&path, "%s/%s", dir, loc) < 0) {
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	return path;
}

/* The file a location names, after checking that, symbolic links resolved, it does not
 * leave dir. */
static char *resolve(const char *dir, const char *loc, OnnxError *err)
{
	char *path = NULL, real_dir[PATH_MAX];
	if (!ox_external_location_ok(loc)) {
		ox_error_set(err, ONNXTXT_ERR_VALUE,
			     "external data location \"%s\" must be a relative path inside the model's directory", loc);
		return NULL;
	}
	if (!realpath(dir, real_dir)) {
		int e = errno;
		ox_error_set(err, ONNXTXT_ERR_IO, "cannot resolve the model's directory %s: %s", dir, strerror(e));
		err->sys_errno = e;
		return NULL;
	}
	if (asprintf(&path, "%s/%s", dir, loc) < 0) {
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	int in = stays_inside(real_dir, path);
	if (in < 0) {
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		free(path);
		return NULL;
	}
	if (!in) {
		ox_error_set(err, ONNXTXT_ERR_VALUE,
			     "external data location \"%s\" leads outside the model's directory (through a symbolic link)",
			     loc);
		free(path);
		return NULL;
	}
	return path;
}

/* ---- moving data out ------------------------------------------------------------------------- */

static const char *external_value(const Onnx__TensorProto *t, const char *key);

/* The location of a tensor kept in a file, else NULL. */
static const char *external_location(const Onnx__TensorProto *t)
{
	bool external = t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	return external ? external_value(t, "location") : NULL;
}

typedef struct moved {
	Onnx__TensorProto *t;
	uint64_t offset, length;
} moved;

typedef struct externalize_job {
	OnnxError *err;
	Onnx__ModelProto *m;
	ox_arena *arena;
	size_t threshold;
	moved *list;
	size_t n, cap;
	uint64_t offset;
	FILE *f;
} externalize_job;

/* Bytes the tensor's data takes as raw data. */
static size_t raw_size(const Onnx__TensorProto *t)
{
	if (t->has_raw_data)
		return t->raw_data.len;
	int bits = ox_elem_bits(t->data_type);
	size_t int32_width = bits <= 8 ? 1 : (size_t)bits / 8;
	size_t uint64_width = t->data_type == OX_UINT32 ? 4 : 8;
	return t->n_int32_data * int32_width + 4 * t->n_float_data + 8 * (t->n_int64_data + t->n_double_data) +
	       uint64_width * t->n_uint64_data;
}

static bool movable(const Onnx__TensorProto *t, size_t threshold)
{
	bool external = t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	return !external && !t->n_string_data && t->data_type != OX_STRING && raw_size(t) >= threshold;
}

/* Records an out-of-memory error and returns 0, so that the write that failed reports it
 * rather than an I/O error. */
static int out_of_memory(OnnxError *err)
{
	ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
	return 0;
}

/* Writes a large tensor's little-endian bytes to the data file and remembers where. */
static int write_one(Onnx__TensorProto *t, void *ctx)
{
	externalize_job *job = ctx;
	if (!movable(t, job->threshold))
		return !ferror(job->f);
	/* the bytes come from a copy: the tensor changes only once the whole file is written */
	Onnx__TensorProto raw = *t;
	if (!ox_tensor_make_raw(job->arena, &raw))
		return out_of_memory(job->err);
	if (job->n == job->cap) {
		size_t cap = job->cap ? 2 * job->cap : 64;
		moved *l = realloc(job->list, cap * sizeof *l);
		if (!l)
			return out_of_memory(job->err);
		job->list = l;
		job->cap = cap;
	}
	job->list[job->n++] = (moved){t, job->offset, raw.raw_data.len};
	job->offset += raw.raw_data.len;
	return fwrite(raw.raw_data.data, 1, raw.raw_data.len, job->f) == raw.raw_data.len;
}

/* "Continue" while no tensor would move; each_tensor stops at the first that would. */
static int any_movable(Onnx__TensorProto *t, void *ctx)
{
	return !movable(t, ((externalize_job *)ctx)->threshold);
}

static int write_data_file(FILE *f, void *ctx, OnnxError *err)
{
	externalize_job *job = ctx;
	job->err = err;
	job->f = f;
	return each_tensor(job->m, write_one, job);
}

static Onnx__StringStringEntryProto *entry(ox_arena *a, const char *key, const char *value)
{
	Onnx__StringStringEntryProto *e = ox_arena_alloc(a, sizeof *e);
	if (e) {
		onnx__string_string_entry_proto__init(e);
		e->key = ox_arena_strndup(a, key, strlen(key));
		e->value = ox_arena_strndup(a, value, strlen(value));
	}
	return e && e->key && e->value ? e : NULL;
}

/* Points a tensor at its bytes in the data file instead of holding them. */
static int point_to_file(ox_arena *a, const moved *mv, const char *location)
{
	char num[2][24];
	snprintf(num[0], sizeof num[0], "%llu", (unsigned long long)mv->offset);
	snprintf(num[1], sizeof num[1], "%llu", (unsigned long long)mv->length);
	Onnx__StringStringEntryProto **e = ox_arena_alloc(a, 3 * sizeof *e);
	if (!e || !(e[0] = entry(a, "location", location)) || !(e[1] = entry(a, "offset", num[0])) ||
	    !(e[2] = entry(a, "length", num[1])))
		return 0;
	Onnx__TensorProto *t = mv->t;
	t->has_raw_data = 0;
	t->raw_data = (ProtobufCBinaryData){0, NULL};
	t->n_float_data = t->n_int32_data = t->n_int64_data = t->n_double_data = t->n_uint64_data = 0;
	t->float_data = NULL;
	t->int32_data = NULL;
	t->int64_data = NULL;
	t->double_data = NULL;
	t->uint64_data = NULL;
	t->n_external_data = 3;
	t->external_data = e;
	t->has_data_location = 1;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	return 1;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* path with its directory resolved ("/real/dir/name"), or NULL when the directory cannot
 * be: a name for the file that links in the directory part cannot disguise. *nomem is set
 * when memory ran out. */
static char *resolved_name(const char *path, bool *nomem)
{
	char *dir = dir_of(path), real[PATH_MAX], *full = NULL;
	const char *slash = strrchr(path, '/');
	if (!dir || (realpath(dir, real) && asprintf(&full, "%s/%s", real, slash ? slash + 1 : path) < 0)) {
		full = NULL;
		*nomem = true;
	}
	free(dir);
	return full;
}

typedef struct used_job {
	const struct stat *file;
	char *dir;
	const char *location; /* the one being written, for a cheap first test */
} used_job;

/* "Continue" while the tensor does not keep its data in the file about to be written. */
static int not_in_file(Onnx__TensorProto *t, void *ctx)
{
	const used_job *job = ctx;
	struct stat st;
	const char *loc = external_location(t);
	if (!loc)
		return 1;
	if (strcmp(loc, job->location) == 0)
		return 0;
	char *path = NULL;
	bool same = ox_external_location_ok(loc) && asprintf(&path, "%s/%s", job->dir, loc) >= 0 && stat(path, &st) == 0 &&
		    same_file(&st, job->file);
	free(path);
	return !same;
}

OnnxStatus OnnxModel_ExternalizeData(Onnx__ModelProto *m, const char *model_path, const char *location,
				     size_t threshold, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	ox_arena *a = m ? ox_root_arena(m) : NULL;
	if (!a || !location) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: a model from onnxtxt and a location are needed");
		return err->code;
	}
	char *dir = dir_of(model_path), *path = dir ? resolve(dir, location, err) : NULL;
	if (!path) {
		free(dir);
		return err->code ? err->code : (ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory"), err->code);
	}
	externalize_job job = {err, m, a, threshold ? threshold : 1, NULL, 0, 0, 0, NULL};
	struct stat data;
	used_job used = {&data, dir, location};
	bool nomem = false;
	char *model_name = model_path ? resolved_name(model_path, &nomem) : NULL,
	     *data_name = resolved_name(path, &nomem);
	if (nomem)
		out_of_memory(err);
	else if (model_name && data_name && strcmp(model_name, data_name) == 0)
		ox_error_set(err, ONNXTXT_ERR_VALUE, "external data location \"%s\" is the model file itself", location);
	else if (stat(path, &data) == 0 && !each_tensor(m, not_in_file, &used))
		ox_error_set(err, ONNXTXT_ERR_VALUE,
			     "tensors already keep their data in \"%s\": writing it again would lose it (embed the "
			     "data first)",
			     location);
	else if (!each_tensor(m, any_movable, &job)) /* nothing to move: no file */
		ox_write_atomic(path, write_data_file, &job, err);
	free(model_name);
	free(data_name);
	free(dir);
	OnnxStatus st = err->code;
	for (size_t i = 0; st == ONNXTXT_OK && i < job.n; i++)
		if (!point_to_file(a, &job.list[i], location))
			ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory"), st = err->code;
	free(job.list);
	free(path);
	return st;
}

/* ---- embedding -------------------------------------------------------------------------------- */

typedef struct embed_job {
	ox_arena *arena;
	const char *dir;
	unsigned flags;
	OnnxError *err;
} embed_job;

static const char *external_value(const Onnx__TensorProto *t, const char *key)
{
	for (size_t i = 0; i < t->n_external_data; i++)
		if (t->external_data[i]->key && strcmp(t->external_data[i]->key, key) == 0)
			return t->external_data[i]->value;
	return NULL;
}

static int number(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = s && *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
	if (!s || !(*s >= '0' && *s <= '9') || *end || errno)
		return 0;
	*v = x;
	return 1;
}

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "a special file";
}

/* Opens a data file for reading, refusing anything but a regular file. Non-blocking, so
 * that a FIFO (or a device) named by a hostile model cannot block open() forever; the
 * flag means nothing for regular files. */
static FILE *open_data(const char *path, struct stat *st, OnnxError *err, const char *tensor)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, st) != 0) {
		int e = errno;
		ox_error_set(err, ONNXTXT_ERR_IO, "external data of '%s': cannot open %s: %s", tensor, path, strerror(e));
		err->sys_errno = e;
	} else if (!S_ISREG(st->st_mode)) {
		ox_error_set(err, ONNXTXT_ERR_IO, "external data of '%s': %s is %s, not a regular file", tensor, path,
			     file_kind(st->st_mode));
		err->sys_errno = EINVAL;
	} else {
		FILE *f = fdopen(fd, "rb");
		if (f)
			return f;
		out_of_memory(err);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* Reads [offset, offset + length) of the file, checked against its real size. */
static int read_range(const char *path, uint64_t offset, uint64_t *length, bool whole, void **data, ox_arena *a,
		      OnnxError *err, const char *tensor)
{
	struct stat st;
	FILE *f = open_data(path, &st, err, tensor);
	if (!f)
		return 0;
	uint64_t size = (uint64_t)st.st_size;
	if (whole)
		*length = offset <= size ? size - offset : 0;
	if (offset > size || *length > size - offset) {
		ox_error_set(err, ONNXTXT_ERR_VALUE, "external data of '%s': bytes %llu..%llu are beyond the end of %s (%llu bytes)",
			     tensor, (unsigned long long)offset, (unsigned long long)(offset + *length), path,
			     (unsigned long long)size);
		fclose(f);
		return 0;
	}
	*data = ox_arena_alloc(a, *length ? *length : 1);
	errno = 0;
	int ok = *data && fseeko(f, (off_t)offset, SEEK_SET) == 0 && fread(*data, 1, *length, f) == *length;
	if (!ok && !*data) {
		out_of_memory(err);
	} else if (!ok) {
		int e = errno ? errno : EIO;
		ox_error_set(err, ONNXTXT_ERR_IO, "external data of '%s': cannot read %s: %s", tensor, path, strerror(e));
		err->sys_errno = e;
	}
	fclose(f);
	return ok;
}

/* The bytes of raw data the tensor's type and shape call for; false when its type has no
 * raw form (strings, unknown types) or its shape no size. */
static bool raw_bytes_expected(const Onnx__TensorProto *t, uint64_t *bytes)
{
	int bits = t->has_data_type ? ox_elem_bits(t->data_type) : 0;
	uint64_t n = 1;
	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0 || (t->dims[i] && n > UINT64_MAX / 64 / (uint64_t)t->dims[i]))
			return false;
		n *= (uint64_t)t->dims[i];
	}
	*bytes = (n * (uint64_t)bits + 7) / 8;
	return bits > 0;
}

static int embed_one(Onnx__TensorProto *t, void *ctx)
{
	embed_job *job = ctx;
	if (!t->has_data_location || t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		return 1;
	const char *name = t->name ? t->name : "";
	uint64_t expected;
	if (!raw_bytes_expected(t, &expected)) {
		ox_error_set(job->err, ONNXTXT_ERR_VALUE,
			     "external data of '%s': a tensor of this type or shape cannot hold raw data", name);
		return 0;
	}
	const char *loc = external_value(t, "location"), *off = external_value(t, "offset"),
		   *len = external_value(t, "length");
	uint64_t offset = 0, length = 0;
	if (!loc || (off && !number(off, &offset)) || (len && !number(len, &length))) {
		ox_error_set(job->err, ONNXTXT_ERR_VALUE, "external data of '%s' needs a location and numeric offset and length",
			     name);
		return 0;
	}
	char *path = job->flags & ONNXTXT_EXTERNAL_ANY_PATH ? resolve_anywhere(job->dir, loc, job->err)
							     : resolve(job->dir, loc, job->err);
	void *data;
	int ok = path && read_range(path, offset, &length, !len, &data, job->arena, job->err, name);
	free(path);
	if (!ok)
		return 0;
	if (length != expected) {
		ox_error_set(job->err, ONNXTXT_ERR_VALUE,
			     "external data of '%s': %llu bytes where its type and shape need %llu", name,
			     (unsigned long long)length, (unsigned long long)expected);
		return 0;
	}
	t->raw_data = (ProtobufCBinaryData){(size_t)length, data};
	t->has_raw_data = 1;
	t->n_external_data = 0;
	t->external_data = NULL;
	t->has_data_location = 0;
	t->data_location = 0;
	return 1;
}

OnnxStatus OnnxModel_EmbedExternalDataWith(Onnx__ModelProto *m, const char *model_path, unsigned flags,
					   OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	ox_arena *a = m ? ox_root_arena(m) : NULL;
	if (!a || (flags & ~ONNXTXT_EXTERNAL_ANY_PATH)) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: %s", a ? "unknown flags" : "a model from onnxtxt is needed");
		return err->code;
	}
	char *dir = dir_of(model_path);
	embed_job job = {a, dir, flags, err};
	if (!dir)
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
	else
		each_tensor(m, embed_one, &job);
	free(dir);
	return err->code;
}

OnnxStatus OnnxModel_EmbedExternalData(Onnx__ModelProto *m, const char *model_path, OnnxError *err)
{
	return OnnxModel_EmbedExternalDataWith(m, model_path, 0, err);
}
