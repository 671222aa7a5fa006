/* SPDX-License-Identifier: MIT */
/*
 * Nsight Systems SQLite exports (`nsys export --type sqlite`) to profiles
 * with their whole-run timeline (include/gpuproj/import.h
 * gpuproj_import_nsys(), include/gpuproj/timeline.h). SQLite is libsqlite3's
 * (the file is read whole, within the input size limit, and opened in
 * memory, read-only: sqlite3_deserialize()); no parser of our own.
 *
 * **Tables and columns**, read by name (PRAGMA table_info): the export
 * schema adds and renames columns between Nsight Systems versions (2022.2,
 * schema 2.9.1, has CUPTI_ACTIVITY_KIND_RUNTIME.name and no greenContextId;
 * 2024.5, schema 3.13.2, the reverse), and leaves out a table of which
 * nothing was recorded (no CUPTI_ACTIVITY_KIND_MEMSET without a memset).
 * Needed: StringIds(id, value), CUPTI_ACTIVITY_KIND_KERNEL(start, end,
 * deviceId, streamId, correlationId, globalPid, gridX…Z, blockX…Z, and
 * mangledName or demangledName, string ids). Read when present:
 * the kernel's contextId, demangledName, shortName, registersPerThread,
 * staticSharedMemory, dynamicSharedMemory, graphNodeId;
 * CUPTI_ACTIVITY_KIND_RUNTIME (start, end, globalTid, correlationId,
 * nameId; eventClass, returnValue), _MEMCPY (bytes, copyKind, srcKind,
 * dstKind), _MEMSET (bytes), _SYNCHRONIZATION (syncType, eventId),
 * _CUDA_EVENT (eventId), with their start, end, deviceId, contextId,
 * streamId, correlationId, globalPid; TARGET_INFO_GPU (the GPU),
 * TARGET_INFO_CUDA_STREAM (which stream is a context's NULL stream),
 * PROCESSES (pid, name), META_DATA_EXPORT or, before schema 3,
 * EXPORT_META_DATA (product, version, schema).
 *
 * **Identifiers** (Nsight Systems documentation, "Exporter: SQLite
 * schema"): globalTid = globalPid + the thread id (the low 24 bits),
 * so a call's process is globalTid with those bits cleared; correlation
 * ids are CUPTI's, unique within a process, so a GPU record joins its call
 * by (globalPid, correlationId). deviceId is TARGET_INFO_GPU.id.
 * RUNTIME.eventClass 0 is the CUDA runtime, 1 the driver (the
 * ENUM_NSYS_EVENT_CLASS table of the 2024.5 export); other classes (67,
 * "CUDA backtrace", repeats every call with its call stack in 2022.2's) are
 * not calls of their own and are skipped. Without the column, every row
 * is a call.
 *
 * **Calls → nodes**, as libproj.so's recorder takes them (inject/
 * timeline-rec.c, take()): per thread in start order, a runtime call and
 * the driver calls nested in it are one call; its records (kernels,
 * copies, sets, a synchronisation, an event record) make it one node:
 * several kernels or a record with a graph node id a graph launch, else a
 * kernel, a copy (kind and pinned host memory from copyKind, srcKind and
 * dstKind, cupti_activity.h CUpti_ActivityMemcpyKind and
 * CUpti_ActivityMemoryKind), a set, a synchronisation or an event record.
 * A copy or set blocks the host unless its call's name has "Async" (the
 * export has no CUPTI flags) or the call returned before it ended (a
 * cudaMemcpy from pageable memory to the device returns once the data is
 * staged, "the DMA to final destination may not have completed": CUDA
 * Runtime API, "API synchronization behavior"; 254 of CloverLeaf's 279
 * copies, all of them so, end 2.2 to 43.3 us after their call returned,
 * and taken as blocking they made one epoch's replay 4.2 % longer than
 * measured; gpuproj_tl_copy_blocks(), libproj.so's rule too). A
 * synchronisation's kind comes from the
 * call's name (cudaDeviceSynchronize, cuCtxSynchronize: device;
 * …StreamSynchronize: stream; …EventSynchronize: event; …StreamWaitEvent:
 * a wait) and else from syncType (CUpti_ActivitySynchronizationType): the
 * 2024.5 export gives cudaDeviceSynchronize's records syncType 1, which
 * CUPTI calls EVENT_SYNCHRONIZE, with no stream and no event. A call that
 * failed (returnValue ≠ 0) expects nothing; one that expects a record
 * (gpuproj_tl_api_expects()) and has none makes its epoch incomplete. A
 * stream is the legacy default stream when TARGET_INFO_CUDA_STREAM's flag
 * is the NULL stream (CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL = 3).
 * Epochs close where the host waited and nothing it issued still runs,
 * or at GPUPROJ_TL_MAX_NODES calls (cut), as the recorder closes them; as
 * there, the next epoch carries the work a cut left running (a
 * GPUPROJ_TL_CARRY node per busy stream), and a thread's last epoch, when
 * its GPU work outlasts its calls, ends with that work (a device
 * synchronisation at its end: the wait of the process's exit).
 *
 * **GPUs and processes**: one profile per (globalPid, deviceId) with
 * kernels. A call goes to the GPU of its records; a call without records
 * to the GPU its thread used last (CUDA's current device is per thread),
 * and a thread's calls before its first record to the first GPU it uses
 * (a thread that never used one: the process's first GPU).
 *
 * **Times**: the traced wall time of a profile runs from its first call
 * or GPU record to its last; each thread's span from its first call to its
 * last epoch's end (their union is span_ns).
 *
 * Thread safety: reentrant; SQLite is opened per call.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>
#include <gpuproj/timeline.h>

#include "import-common.h"
#include "profile-private.h"
#include "util.h"

#ifndef GPUPROJ_HAVE_SQLITE

int
gpuproj_import_nsys(const char *path, const struct gpuproj_nsys_options *opt,
		    struct gpuproj_profile ***ret_profiles, size_t *ret_n,
		    struct gpuproj_import_summary *summary, struct gpuproj_nsys_join *join,
		    struct gpuproj_error *reterr)
{
	if (!path || !ret_profiles || !ret_n)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "no input");
	return error_set(reterr, GPUPROJ_E_UNSUPPORTED, path, 0, 0,
			 "this gpuproj was built without SQLite: install libsqlite3-dev "
			 "(scripts/setup-deps.sh), then `meson setup --reconfigure build` and "
			 "rebuild");
}

#else

#include <sqlite3.h>

/* CUPTI's values (cupti_activity.h), as the export stores them. */
enum {
	MEMCPY_HTOD = 1, MEMCPY_DTOH = 2, MEMCPY_HTOA = 3, MEMCPY_ATOH = 4, MEMCPY_HTOH = 9,
	MEMCPY_PTOP = 10,
	MEMKIND_PINNED = 1,
	SYNC_EVENT = 1, SYNC_WAIT = 2, SYNC_STREAM = 3, SYNC_CONTEXT = 4,
	STREAM_FLAG_NULL = 3,
	CLASS_RUNTIME = 0, CLASS_DRIVER = 1,
};
/* CUPTI's "invalid" stream or event id (CUPTI_SYNCHRONIZATION_INVALID_VALUE). */
#define INVALID_ID ((int64_t)0xffffffff)
/* The thread-id bits of a globalTid. */
#define TID_MASK ((int64_t)0xffffff)

enum op_kind { OP_KERNEL, OP_COPY, OP_MEMSET };

/* A GPU operation (kernel, copy, set). */
struct op {
	int64_t gpid, corr, dev, ctx, stream, graph;
	uint64_t start, end;
	enum op_kind kind;
	struct gpuproj_kernel *k;	/* OP_KERNEL: the record (set once the profile exists) */
	size_t ki;			/* OP_KERNEL: index into the kernel rows */
	enum gpuproj_copy_kind copy;
	bool pinned;
	uint64_t bytes;
};

/* A synchronisation or an event record. */
struct sync {
	int64_t gpid, corr, dev, ctx, stream, type, event;
	bool is_record;			/* CUDA_EVENT, not SYNCHRONIZATION */
};

/* A runtime or driver call. */
struct call {
	int64_t gtid, gpid, corr;
	uint64_t start, end;
	const char *name;		/* StringIds' (owned by the string table) */
	bool runtime, failed;
	int64_t dev;			/* its GPU, once known (-1: none) */
};

/* A kernel row's signature parts, before the profile exists. */
struct krow {
	const char *name, *demangled, *shortname;
	struct gpuproj_dim3 grid, block;
	uint32_t regs, smem_static, smem_dynamic;
};

struct strings {
	int64_t *ids;
	char **values;
	size_t n;
};

/* A (process, GPU) pair: one profile. */
struct pair {
	int64_t gpid, dev;
	uint64_t first;			/* its first kernel's start */
	struct gpuproj_profile *p;
	/* its kernels' aliases for the join: by profile index, the short name */
	const char **shortname;
	size_t n_short;
	uint64_t lo, hi;		/* traced span: first and last timestamp */
	bool any;
};

struct legacy_stream {
	int64_t pid, ctx, stream;
};

struct nsys {
	const char *path;
	struct gpuproj_error *err;
	struct gpuproj_import_summary *sum;
	sqlite3 *db;
	char *buf;
	char *version, *schema;
	int schema_major;
	struct strings str;
	struct krow *krows;
	struct op *ops;
	size_t n_ops, n_kernel_rows;
	struct sync *syncs;
	size_t n_syncs;
	struct call *calls;
	size_t n_calls;
	struct legacy_stream *legacy;
	size_t n_legacy;
	struct pair *pairs;
	size_t n_pairs;
	bool have_runtime;
	uint64_t orphans;
};

static int
oom(struct nsys *ns)
{
	return error_set(ns->err, GPUPROJ_E_NOMEM, ns->path, 0, 0, "out of memory");
}

static bool
grow(void *pv, size_t *cap, size_t n, size_t size)
{
	void **p = pv;
	size_t c;
	void *q;

	if (n < *cap)
		return true;
	c = *cap ? 2 * *cap : 256;
	q = realloc(*p, c * size);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

/* ---- SQLite ---- */

static int
sql_fail(struct nsys *ns, const char *what)
{
	return error_set(ns->err, GPUPROJ_E_PARSE, ns->path, 0, 0, "SQLite cannot read %s: %s",
			 what, sqlite3_errmsg(ns->db));
}

static bool
table_exists(struct nsys *ns, const char *table)
{
	sqlite3_stmt *st = NULL;
	bool found = false;

	if (sqlite3_prepare_v2(ns->db, "SELECT 1 FROM sqlite_master WHERE type IN ('table', "
				       "'view') AND name = ?1", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC) == SQLITE_OK)
		found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* A column a query wants: its name, or several names of one meaning (first present wins). */
struct col {
	const char *names[3];
	bool required;
};

/*
 * SELECT rowid, the wanted columns (NULL for an absent optional one) FROM
 * table: columns by name from PRAGMA table_info. *ret NULL (and OK) when the
 * table is absent and not `required`.
 */
static int
select_cols(struct nsys *ns, const char *table, const struct col *cols, size_t n, bool required,
	    sqlite3_stmt **ret)
{
	struct strbuf q;
	sqlite3_stmt *info = NULL;
	char **have = NULL;
	size_t n_have = 0, cap = 0, i, j, k;
	int r = GPUPROJ_OK, rc;

	*ret = NULL;
	if (!table_exists(ns, table)) {
		if (!required)
			return GPUPROJ_OK;
		return error_set(ns->err, GPUPROJ_E_SCHEMA, ns->path, 0, 0,
				 "no %s table (Nsight Systems %s, export schema %s)", table,
				 ns->version ? ns->version : "?", ns->schema ? ns->schema : "?");
	}
	strbuf_init(&q);
	strbuf_printf(&q, "SELECT name FROM pragma_table_info('%s')", table);
	if (q.oom || sqlite3_prepare_v2(ns->db, q.buf, -1, &info, NULL) != SQLITE_OK) {
		r = q.oom ? oom(ns) : sql_fail(ns, table);
		goto out;
	}
	while ((rc = sqlite3_step(info)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(info, 0);

		if (!c)
			continue;
		if (!grow(&have, &cap, n_have, sizeof(*have)) || !(have[n_have] = strdup(c))) {
			r = oom(ns);
			goto out;
		}
		n_have++;
	}
	if (rc != SQLITE_DONE) {
		r = sql_fail(ns, table);
		goto out;
	}
	strbuf_free(&q);
	strbuf_init(&q);
	strbuf_append(&q, "SELECT rowid");
	for (i = 0; i < n; i++) {
		const char *found = NULL;

		for (j = 0; j < ARRAY_LENGTH(cols[i].names) && cols[i].names[j] && !found; j++) {
			for (k = 0; k < n_have && !found; k++) {
				if (strcmp(have[k], cols[i].names[j]) == 0)
					found = have[k];
			}
		}
		if (!found && cols[i].required) {
			r = error_set(ns->err, GPUPROJ_E_SCHEMA, ns->path, 0, 0,
				      "table %s has no column '%s'%s%s (Nsight Systems %s, export "
				      "schema %s)", table, cols[i].names[0],
				      cols[i].names[1] ? " or " : "",
				      cols[i].names[1] ? cols[i].names[1] : "",
				      ns->version ? ns->version : "?",
				      ns->schema ? ns->schema : "?");
			goto out;
		}
		if (found)
			strbuf_printf(&q, ", \"%s\"", found);
		else
			strbuf_append(&q, ", NULL");
	}
	strbuf_printf(&q, " FROM \"%s\"", table);
	if (q.oom) {
		r = oom(ns);
		goto out;
	}
	if (sqlite3_prepare_v2(ns->db, q.buf, -1, ret, NULL) != SQLITE_OK)
		r = sql_fail(ns, table);
out:
	sqlite3_finalize(info);
	for (i = 0; i < n_have; i++)
		free(have[i]);
	free(have);
	strbuf_free(&q);
	return r;
}

/* Where a bad value is: "table T row N column C". */
static int
bad_value(struct nsys *ns, const char *table, sqlite3_stmt *st, const char *column,
	  const char *fmt, ...) GPUPROJ_PRINTF(5, 6);

static int
bad_value(struct nsys *ns, const char *table, sqlite3_stmt *st, const char *column,
	  const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return error_set(ns->err, GPUPROJ_E_SCHEMA, ns->path, 0, 0, "table %s, row %lld: %s %s",
			 table, (long long)sqlite3_column_int64(st, 0), column, what);
}

/* An integer column (index i of the SELECT, 1-based after rowid); `def` when NULL. */
static bool
col_int(sqlite3_stmt *st, int i, int64_t def, int64_t *ret)
{
	int t = sqlite3_column_type(st, i);

	if (t == SQLITE_NULL) {
		*ret = def;
		return true;
	}
	if (t == SQLITE_INTEGER) {
		*ret = sqlite3_column_int64(st, i);
		return true;
	}
	if (t == SQLITE_FLOAT) {
		double d = sqlite3_column_double(st, i);

		if (d == floor(d) && fabs(d) < 9e15) {
			*ret = (int64_t)d;
			return true;
		}
	}
	return false;
}

/* A required, non-NULL integer in [lo, hi]. */
static int
need_int(struct nsys *ns, const char *table, sqlite3_stmt *st, int i, const char *name,
	 int64_t lo, int64_t hi, int64_t *ret)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return bad_value(ns, table, st, name, "is NULL");
	if (!col_int(st, i, 0, ret))
		return bad_value(ns, table, st, name, "'%s' is not an integer",
				 (const char *)sqlite3_column_text(st, i));
	if (*ret < lo || *ret > hi)
		return bad_value(ns, table, st, name,
				 "%" PRId64 " is outside [%" PRId64 ", %" PRId64 "]", *ret, lo, hi);
	return GPUPROJ_OK;
}

/* An optional integer (NULL: def) in [lo, hi]. */
static int
opt_int(struct nsys *ns, const char *table, sqlite3_stmt *st, int i, const char *name,
	int64_t lo, int64_t hi, int64_t def, int64_t *ret)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL) {
		*ret = def;
		return GPUPROJ_OK;
	}
	return need_int(ns, table, st, i, name, lo, hi, ret);
}

/* start and end (columns i, i + 1): ns ≥ 0, end ≥ start, a duration ≤ GPUPROJ_MAX_NS. */
static int
need_times(struct nsys *ns, const char *table, sqlite3_stmt *st, int i, uint64_t *start,
	   uint64_t *end)
{
	int64_t s, e;
	int r;

	if ((r = need_int(ns, table, st, i, "start", 0, INT64_MAX, &s)) ||
	    (r = need_int(ns, table, st, i + 1, "end", 0, INT64_MAX, &e)))
		return r;
	if (e < s)
		return bad_value(ns, table, st, "end", "%" PRId64 " is before its start %" PRId64,
				 e, s);
	if ((double)(e - s) > GPUPROJ_MAX_NS)
		return bad_value(ns, table, st, "end", "%" PRId64 " is more than %g ns after its "
				 "start", e, GPUPROJ_MAX_NS);
	*start = (uint64_t)s;
	*end = (uint64_t)e;
	return GPUPROJ_OK;
}

/* ---- strings ---- */

static int
cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static const char *
string_of(const struct strings *s, int64_t id)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ids[mid] < id)
			lo = mid + 1;
		else if (s->ids[mid] > id)
			hi = mid;
		else
			return s->values[mid];
	}
	return NULL;
}

static int
read_strings(struct nsys *ns)
{
	static const struct col cols[] = { { { "id" }, true }, { { "value" }, true } };
	sqlite3_stmt *st;
	size_t cap = 0;
	int r, rc;

	if ((r = select_cols(ns, "StringIds", cols, ARRAY_LENGTH(cols), true, &st)))
		return r;
	/* Sorted for the lookups: ORDER BY on the rowid alias is free, on anything else a sort. */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 2);
		int64_t id;

		if ((r = need_int(ns, "StringIds", st, 1, "id", INT64_MIN, INT64_MAX, &id)))
			goto out;
		if (!grow(&ns->str.ids, &cap, ns->str.n, sizeof(*ns->str.ids)) ||
		    !(ns->str.values = realloc(ns->str.values, cap * sizeof(*ns->str.values))) ||
		    !(ns->str.values[ns->str.n] = strdup(v ? v : ""))) {
			r = oom(ns);
			goto out;
		}
		ns->str.ids[ns->str.n++] = id;
	}
	if (rc != SQLITE_DONE) {
		r = sql_fail(ns, "StringIds");
		goto out;
	}
	/*
	 * Insertion sort is enough for the (nearly always) ordered table; check
	 * and sort otherwise.
	 */
	{
		size_t i;
		bool sorted = true;

		for (i = 1; i < ns->str.n && sorted; i++)
			sorted = ns->str.ids[i - 1] < ns->str.ids[i];
		if (!sorted) {
			size_t j;

			for (i = 1; i < ns->str.n; i++) {
				int64_t id = ns->str.ids[i];
				char *v = ns->str.values[i];

				for (j = i; j > 0 && ns->str.ids[j - 1] > id; j--) {
					ns->str.ids[j] = ns->str.ids[j - 1];
					ns->str.values[j] = ns->str.values[j - 1];
				}
				ns->str.ids[j] = id;
				ns->str.values[j] = v;
			}
			for (i = 1; i < ns->str.n; i++) {
				if (ns->str.ids[i - 1] == ns->str.ids[i]) {
					r = error_set(ns->err, GPUPROJ_E_SCHEMA, ns->path, 0, 0,
						      "table StringIds holds id %" PRId64 " twice",
						      ns->str.ids[i]);
					goto out;
				}
			}
		}
	}
out:
	sqlite3_finalize(st);
	return r;
}

/* A string id column: NULL allowed when !required (*ret NULL then). */
static int
need_string(struct nsys *ns, const char *table, sqlite3_stmt *st, int i, const char *name,
	    bool required, const char **ret)
{
	int64_t id;

	*ret = NULL;
	if (sqlite3_column_type(st, i) == SQLITE_NULL) {
		if (required)
			return bad_value(ns, table, st, name, "is NULL");
		return GPUPROJ_OK;
	}
	if (!col_int(st, i, 0, &id))
		return bad_value(ns, table, st, name, "'%s' is not a string id",
				 (const char *)sqlite3_column_text(st, i));
	*ret = string_of(&ns->str, id);
	if (!*ret)
		return bad_value(ns, table, st, name, "%" PRId64 " is not in StringIds", id);
	return GPUPROJ_OK;
}

/* ---- the export's identity ---- */

static int
read_meta(struct nsys *ns)
{
	const char *table = table_exists(ns, "META_DATA_EXPORT") ? "META_DATA_EXPORT"
			    : table_exists(ns, "EXPORT_META_DATA") ? "EXPORT_META_DATA" : NULL;
	sqlite3_stmt *st = NULL;
	char *product = NULL, *q;
	int r = GPUPROJ_OK, rc;

	if (!table)
		return error_set(ns->err, GPUPROJ_E_SCHEMA, ns->path, 0, 0,
				 "an SQLite database, but not an Nsight Systems export: it has no "
				 "META_DATA_EXPORT (or, before export schema 3, EXPORT_META_DATA) "
				 "table");
	q = xasprintf("SELECT name, value FROM %s", table);
	if (!q)
		return oom(ns);
	if (sqlite3_prepare_v2(ns->db, q, -1, &st, NULL) != SQLITE_OK) {
		free(q);
		return sql_fail(ns, table);
	}
	free(q);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);
		char **dst = NULL;

		if (!n || !v)
			continue;
		if (strcmp(n, "EXPORT_PRODUCT_NAME") == 0)
			dst = &product;
		else if (strcmp(n, "EXPORT_PRODUCT_VERSION") == 0)
			dst = &ns->version;
		else if (strcmp(n, "EXPORT_SCHEMA_VERSION") == 0)
			dst = &ns->schema;
		if (dst && !*dst && !(*dst = strdup(v))) {
			r = oom(ns);
			goto out;
		}
	}
	if (rc != SQLITE_DONE) {
		r = sql_fail(ns, table);
		goto out;
	}
	if (!product || !strstr(product, "Nsight Systems")) {
		r = error_set(ns->err, GPUPROJ_E_SCHEMA, ns->path, 0, 0,
			      "an SQLite database, but not an Nsight Systems export: %s says the "
			      "product is %s%s%s", table, product ? "'" : "", product ? product
			      : "not named (no EXPORT_PRODUCT_NAME)", product ? "'" : "");
		goto out;
	}
	if (!ns->schema || sscanf(ns->schema, "%d", &ns->schema_major) != 1) {
		r = error_set(ns->err, GPUPROJ_E_SCHEMA, ns->path, 0, 0,
			      "%s has no readable EXPORT_SCHEMA_VERSION%s%s", table,
			      ns->schema ? ": " : "", ns->schema ? ns->schema : "");
		goto out;
	}
	if (ns->schema_major > GPUPROJ_NSYS_SCHEMA_MAX ||
	    ns->schema_major < GPUPROJ_NSYS_SCHEMA_MIN)
		r = error_set(ns->err, GPUPROJ_E_SCHEMA, ns->path, 0, 0,
			      "Nsight Systems %s wrote export schema %s, %s than this gpuproj "
			      "knows (majors %d to %d): its tables may mean something else; "
			      "export it with an Nsight Systems whose schema major is %d to %d",
			      ns->version ? ns->version : "?", ns->schema,
			      ns->schema_major > GPUPROJ_NSYS_SCHEMA_MAX ? "newer" : "older",
			      GPUPROJ_NSYS_SCHEMA_MIN, GPUPROJ_NSYS_SCHEMA_MAX,
			      GPUPROJ_NSYS_SCHEMA_MIN, GPUPROJ_NSYS_SCHEMA_MAX);
out:
	free(product);
	sqlite3_finalize(st);
	return r;
}

/* ---- records ---- */

#define U32 ((int64_t)UINT32_MAX)

static int
read_kernels(struct nsys *ns)
{
	static const char *const T = "CUPTI_ACTIVITY_KIND_KERNEL";
	static const struct col cols[] = {
		{ { "start" }, true }, { { "end" }, true }, { { "deviceId" }, true },
		{ { "contextId" }, false }, { { "streamId" }, true },
		{ { "correlationId" }, true }, { { "globalPid" }, true },
		{ { "mangledName", "demangledName" }, true }, { { "demangledName" }, false },
		{ { "shortName" }, false },
		{ { "gridX" }, true }, { { "gridY" }, true }, { { "gridZ" }, true },
		{ { "blockX" }, true }, { { "blockY" }, true }, { { "blockZ" }, true },
		{ { "registersPerThread" }, false }, { { "staticSharedMemory" }, false },
		{ { "dynamicSharedMemory" }, false }, { { "graphNodeId" }, false },
	};
	static const char *const dims[] = { "gridX", "gridY", "gridZ", "blockX", "blockY",
					     "blockZ" };
	sqlite3_stmt *st;
	size_t cap = 0, kcap = 0;
	int r, rc;

	if (!table_exists(ns, T))
		return error_set(ns->err, GPUPROJ_E_NOTFOUND, ns->path, 0, 0,
				 "no %s table: the report holds no CUDA kernel (was it taken with "
				 "`nsys profile --trace=cuda`?)", T);
	if ((r = select_cols(ns, T, cols, ARRAY_LENGTH(cols), true, &st)))
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct op o = { .kind = OP_KERNEL };
		struct krow kr = { 0 };
		int64_t v[6], regs, ss, ds;
		int i;

		if (!grow(&ns->ops, &cap, ns->n_ops, sizeof(*ns->ops)) ||
		    !grow(&ns->krows, &kcap, ns->n_kernel_rows, sizeof(*ns->krows))) {
			r = oom(ns);
			goto out;
		}
		if ((r = need_times(ns, T, st, 1, &o.start, &o.end)) ||
		    (r = need_int(ns, T, st, 3, "deviceId", 0, INT32_MAX, &o.dev)) ||
		    (r = opt_int(ns, T, st, 4, "contextId", 0, INT64_MAX, 0, &o.ctx)) ||
		    (r = need_int(ns, T, st, 5, "streamId", 0, INT64_MAX, &o.stream)) ||
		    (r = need_int(ns, T, st, 6, "correlationId", 0, INT64_MAX, &o.corr)) ||
		    (r = need_int(ns, T, st, 7, "globalPid", 0, INT64_MAX, &o.gpid)) ||
		    (r = need_string(ns, T, st, 8, "mangledName", true, &kr.name)) ||
		    (r = need_string(ns, T, st, 9, "demangledName", false, &kr.demangled)) ||
		    (r = need_string(ns, T, st, 10, "shortName", false, &kr.shortname)))
			goto out;
		if (!*kr.name) {
			r = bad_value(ns, T, st, "mangledName", "is an empty name");
			goto out;
		}
		for (i = 0; i < 6; i++) {
			if ((r = need_int(ns, T, st, 11 + i, dims[i], 1, U32, &v[i])))
				goto out;
		}
		if ((r = opt_int(ns, T, st, 17, "registersPerThread", 0, U32, 0, &regs)) ||
		    (r = opt_int(ns, T, st, 18, "staticSharedMemory", 0, U32, 0, &ss)) ||
		    (r = opt_int(ns, T, st, 19, "dynamicSharedMemory", 0, U32, 0, &ds)) ||
		    (r = opt_int(ns, T, st, 20, "graphNodeId", INT64_MIN, INT64_MAX, 0, &o.graph)))
			goto out;
		kr.grid = (struct gpuproj_dim3){ (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2] };
		kr.block = (struct gpuproj_dim3){ (uint32_t)v[3], (uint32_t)v[4], (uint32_t)v[5] };
		kr.regs = (uint32_t)regs;
		kr.smem_static = (uint32_t)ss;
		kr.smem_dynamic = (uint32_t)ds;
		o.ki = ns->n_kernel_rows;
		ns->krows[ns->n_kernel_rows++] = kr;
		ns->ops[ns->n_ops++] = o;
		if (ns->sum)
			ns->sum->rows++;
	}
	if (rc != SQLITE_DONE)
		r = sql_fail(ns, T);
	else if (!ns->n_kernel_rows)
		r = error_set(ns->err, GPUPROJ_E_NOTFOUND, ns->path, 0, 0,
			      "%s is empty: the report holds no CUDA kernel launch", T);
out:
	sqlite3_finalize(st);
	return r;
}

static enum gpuproj_copy_kind
copy_kind(int64_t k)
{
	/* As libproj.so folds them (inject/cupti/cupti-timeline.c copy_kind()). */
	switch (k) {
	case MEMCPY_HTOD:
	case MEMCPY_HTOA:
		return GPUPROJ_COPY_H2D;
	case MEMCPY_DTOH:
	case MEMCPY_ATOH:
		return GPUPROJ_COPY_D2H;
	case MEMCPY_HTOH:
		return GPUPROJ_COPY_H2H;
	case MEMCPY_PTOP:
		return GPUPROJ_COPY_P2P;
	default:
		return GPUPROJ_COPY_D2D;
	}
}

/* MEMCPY (memset false) or MEMSET. */
static int
read_copies(struct nsys *ns, bool memset)
{
	const char *T = memset ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
	static const struct col cols[] = {
		{ { "start" }, true }, { { "end" }, true }, { { "deviceId" }, true },
		{ { "contextId" }, false }, { { "streamId" }, true },
		{ { "correlationId" }, true }, { { "globalPid" }, true }, { { "bytes" }, true },
		{ { "graphNodeId" }, false },
		/* MEMCPY only (the query on MEMSET stops before them) */
		{ { "copyKind" }, true }, { { "srcKind" }, false }, { { "dstKind" }, false },
	};
	size_t cap = ns->n_ops, nc = memset ? 9 : ARRAY_LENGTH(cols);
	sqlite3_stmt *st;
	int r, rc;

	/* cap: the array holds at least n_ops; grow() reallocates from there, enough. */
	if ((r = select_cols(ns, T, cols, nc, false, &st)) || !st)
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct op o = { .kind = memset ? OP_MEMSET : OP_COPY };
		int64_t b, k = 0, sk, dk;

		if (!grow(&ns->ops, &cap, ns->n_ops, sizeof(*ns->ops))) {
			r = oom(ns);
			goto out;
		}
		if ((r = need_times(ns, T, st, 1, &o.start, &o.end)) ||
		    (r = need_int(ns, T, st, 3, "deviceId", 0, INT32_MAX, &o.dev)) ||
		    (r = opt_int(ns, T, st, 4, "contextId", 0, INT64_MAX, 0, &o.ctx)) ||
		    (r = need_int(ns, T, st, 5, "streamId", 0, INT64_MAX, &o.stream)) ||
		    (r = need_int(ns, T, st, 6, "correlationId", 0, INT64_MAX, &o.corr)) ||
		    (r = need_int(ns, T, st, 7, "globalPid", 0, INT64_MAX, &o.gpid)) ||
		    (r = need_int(ns, T, st, 8, "bytes", 0, (int64_t)GPUPROJ_TL_MAX_BYTES, &b)) ||
		    (r = opt_int(ns, T, st, 9, "graphNodeId", INT64_MIN, INT64_MAX, 0, &o.graph)))
			goto out;
		if (!memset &&
		    ((r = need_int(ns, T, st, 10, "copyKind", 0, 255, &k)) ||
		     (r = opt_int(ns, T, st, 11, "srcKind", 0, 255, 0, &sk)) ||
		     (r = opt_int(ns, T, st, 12, "dstKind", 0, 255, 0, &dk))))
			goto out;
		o.bytes = (uint64_t)b;
		if (!memset) {
			o.copy = copy_kind(k);
			/* The host side's memory: the source of H2D, the destination of D2H. */
			o.pinned = (k == MEMCPY_DTOH || k == MEMCPY_ATOH ? dk : sk) ==
				   MEMKIND_PINNED;
		}
		ns->ops[ns->n_ops++] = o;
		if (ns->sum)
			ns->sum->rows++;
	}
	if (rc != SQLITE_DONE)
		r = sql_fail(ns, T);
out:
	sqlite3_finalize(st);
	return r;
}

/* SYNCHRONIZATION (record false) or CUDA_EVENT. */
static int
read_syncs(struct nsys *ns, bool record)
{
	const char *T = record ? "CUPTI_ACTIVITY_KIND_CUDA_EVENT"
			       : "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
	const struct col cols[] = {
		{ { "deviceId" }, false }, { { "contextId" }, false }, { { "streamId" }, !record },
		{ { "correlationId" }, true }, { { "globalPid" }, true },
		{ { "eventId" }, record }, { { "syncType" }, !record },
	};
	size_t c = ns->n_syncs; /* grow() reallocates from the count: enough */
	sqlite3_stmt *st;
	int r, rc;

	if ((r = select_cols(ns, T, cols, ARRAY_LENGTH(cols), false, &st)) || !st)
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct sync y = { .is_record = record };

		if (!grow(&ns->syncs, &c, ns->n_syncs, sizeof(*ns->syncs))) {
			r = oom(ns);
			goto out;
		}
		if ((r = opt_int(ns, T, st, 1, "deviceId", 0, INT32_MAX, -1, &y.dev)) ||
		    (r = opt_int(ns, T, st, 2, "contextId", 0, INT64_MAX, 0, &y.ctx)) ||
		    (r = opt_int(ns, T, st, 3, "streamId", 0, INT64_MAX, INVALID_ID, &y.stream)) ||
		    (r = need_int(ns, T, st, 4, "correlationId", 0, INT64_MAX, &y.corr)) ||
		    (r = need_int(ns, T, st, 5, "globalPid", 0, INT64_MAX, &y.gpid)) ||
		    (r = opt_int(ns, T, st, 6, "eventId", 0, INT64_MAX, INVALID_ID, &y.event)) ||
		    (r = opt_int(ns, T, st, 7, "syncType", 0, 255, 0, &y.type)))
			goto out;
		ns->syncs[ns->n_syncs++] = y;
		if (ns->sum)
			ns->sum->rows++;
	}
	if (rc != SQLITE_DONE)
		r = sql_fail(ns, T);
out:
	sqlite3_finalize(st);
	return r;
}

/* The eventClass ids of runtime and driver calls (ENUM_NSYS_EVENT_CLASS, else 0 and 1). */
static void
call_classes(struct nsys *ns, int64_t *rt, int64_t *drv)
{
	sqlite3_stmt *st = NULL;

	*rt = CLASS_RUNTIME;
	*drv = CLASS_DRIVER;
	if (!table_exists(ns, "ENUM_NSYS_EVENT_CLASS") ||
	    sqlite3_prepare_v2(ns->db, "SELECT id, name FROM ENUM_NSYS_EVENT_CLASS", -1, &st,
			       NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 1);

		if (n && strcmp(n, "TRACE_PROCESS_EVENT_CUDA_RUNTIME") == 0)
			*rt = sqlite3_column_int64(st, 0);
		else if (n && strcmp(n, "TRACE_PROCESS_EVENT_CUDA_DRIVER") == 0)
			*drv = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
}

static int
read_calls(struct nsys *ns)
{
	static const char *const T = "CUPTI_ACTIVITY_KIND_RUNTIME";
	static const struct col cols[] = {
		{ { "start" }, true }, { { "end" }, true }, { { "globalTid" }, true },
		{ { "correlationId" }, true }, { { "nameId" }, true },
		{ { "eventClass" }, false }, { { "returnValue" }, false },
	};
	size_t cap = 0;
	int64_t rt, drv;
	sqlite3_stmt *st;
	int r, rc;

	if ((r = select_cols(ns, T, cols, ARRAY_LENGTH(cols), false, &st)))
		return r;
	if (!st)
		return import_summary_warn(ns->sum, "%s: no %s table: kernels only, no whole-run "
					   "timeline (take the report with `nsys profile "
					   "--trace=cuda`)", ns->path, T) ? oom(ns) : GPUPROJ_OK;
	ns->have_runtime = true;
	call_classes(ns, &rt, &drv);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct call c = { .dev = -1 };
		int64_t cls, ret;

		if ((r = need_times(ns, T, st, 1, &c.start, &c.end)) ||
		    (r = need_int(ns, T, st, 3, "globalTid", 0, INT64_MAX, &c.gtid)) ||
		    (r = need_int(ns, T, st, 4, "correlationId", 0, INT64_MAX, &c.corr)) ||
		    (r = need_string(ns, T, st, 5, "nameId", true, &c.name)) ||
		    (r = opt_int(ns, T, st, 6, "eventClass", INT64_MIN, INT64_MAX, rt, &cls)) ||
		    (r = opt_int(ns, T, st, 7, "returnValue", INT64_MIN, INT64_MAX, 0, &ret)))
			goto out;
		if (cls != rt && cls != drv)
			continue;
		if (!grow(&ns->calls, &cap, ns->n_calls, sizeof(*ns->calls))) {
			r = oom(ns);
			goto out;
		}
		c.gpid = c.gtid & ~TID_MASK;
		c.runtime = cls == rt;
		c.failed = ret != 0;
		ns->calls[ns->n_calls++] = c;
		if (ns->sum)
			ns->sum->rows++;
	}
	if (rc != SQLITE_DONE)
		r = sql_fail(ns, T);
out:
	sqlite3_finalize(st);
	return r;
}

static int
read_streams(struct nsys *ns)
{
	static const char *const T = "TARGET_INFO_CUDA_STREAM";
	static const struct col cols[] = {
		{ { "streamId" }, true }, { { "processId" }, true }, { { "contextId" }, false },
		{ { "flag" }, true },
	};
	int64_t null_flag = STREAM_FLAG_NULL;
	size_t cap = 0;
	sqlite3_stmt *st;
	int r, rc;

	if ((r = select_cols(ns, T, cols, ARRAY_LENGTH(cols), false, &st)) || !st)
		return r;
	/* The NULL stream's flag by name where the export has the enum table. */
	if (table_exists(ns, "ENUM_CUPTI_STREAM_TYPE")) {
		sqlite3_stmt *e = NULL;

		if (sqlite3_prepare_v2(ns->db, "SELECT id FROM ENUM_CUPTI_STREAM_TYPE WHERE name = "
					       "'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL'", -1, &e,
				       NULL) == SQLITE_OK && sqlite3_step(e) == SQLITE_ROW)
			null_flag = sqlite3_column_int64(e, 0);
		sqlite3_finalize(e);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct legacy_stream l;
		int64_t flag;

		if ((r = need_int(ns, T, st, 1, "streamId", 0, INT64_MAX, &l.stream)) ||
		    (r = need_int(ns, T, st, 2, "processId", 0, INT64_MAX, &l.pid)) ||
		    (r = opt_int(ns, T, st, 3, "contextId", 0, INT64_MAX, 0, &l.ctx)) ||
		    (r = opt_int(ns, T, st, 4, "flag", INT64_MIN, INT64_MAX, 0, &flag)))
			goto out;
		if (flag != null_flag)
			continue;
		if (!grow(&ns->legacy, &cap, ns->n_legacy, sizeof(*ns->legacy))) {
			r = oom(ns);
			goto out;
		}
		ns->legacy[ns->n_legacy++] = l;
	}
	if (rc != SQLITE_DONE)
		r = sql_fail(ns, T);
out:
	sqlite3_finalize(st);
	return r;
}

static int64_t
pid_of(int64_t gpid)
{
	return (gpid >> 24) & TID_MASK;
}

static bool
is_legacy(const struct nsys *ns, int64_t gpid, int64_t ctx, int64_t stream)
{
	size_t i;

	for (i = 0; i < ns->n_legacy; i++) {
		if (ns->legacy[i].pid == pid_of(gpid) && ns->legacy[i].stream == stream &&
		    (!ns->legacy[i].ctx || !ctx || ns->legacy[i].ctx == ctx))
			return true;
	}
	return false;
}

/* ---- ordering and lookups ---- */

static int
cmp_op(const void *a, const void *b)
{
	const struct op *x = a, *y = b;
	int c = cmp_i64(x->gpid, y->gpid);

	if (!c)
		c = cmp_i64(x->corr, y->corr);
	if (!c)
		c = (x->start > y->start) - (x->start < y->start);
	return c;
}

static int
cmp_sync(const void *a, const void *b)
{
	const struct sync *x = a, *y = b;
	int c = cmp_i64(x->gpid, y->gpid);

	return c ? c : cmp_i64(x->corr, y->corr);
}

/*
 * Calls: by thread, then start, then correlation id (a call before the
 * driver calls nested in it).
 */
static int
cmp_call(const void *a, const void *b)
{
	const struct call *x = a, *y = b;
	int c = cmp_i64(x->gtid, y->gtid);

	if (!c)
		c = (x->start > y->start) - (x->start < y->start);
	if (!c)
		c = cmp_i64(x->corr, y->corr);
	return c;
}

/* The first index of (gpid, corr) in a sorted array of `n` elements of `size`, or n. */
static size_t
lower(const void *base, size_t n, size_t size, int64_t gpid, int64_t corr, size_t off_gpid,
      size_t off_corr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *e = (const char *)base + mid * size;
		int64_t g, c;

		memcpy(&g, e + off_gpid, sizeof(g));
		memcpy(&c, e + off_corr, sizeof(c));
		if (g < gpid || (g == gpid && c < corr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t
ops_of(const struct nsys *ns, int64_t gpid, int64_t corr)
{
	return lower(ns->ops, ns->n_ops, sizeof(*ns->ops), gpid, corr, offsetof(struct op, gpid),
		     offsetof(struct op, corr));
}

static size_t
syncs_of(const struct nsys *ns, int64_t gpid, int64_t corr)
{
	return lower(ns->syncs, ns->n_syncs, sizeof(*ns->syncs), gpid, corr,
		     offsetof(struct sync, gpid), offsetof(struct sync, corr));
}

static struct pair *
pair_of(struct nsys *ns, int64_t gpid, int64_t dev)
{
	size_t i;

	for (i = 0; i < ns->n_pairs; i++) {
		if (ns->pairs[i].gpid == gpid && ns->pairs[i].dev == dev)
			return &ns->pairs[i];
	}
	return NULL;
}

/* ---- profiles: GPUs, processes, kernels ---- */

static int
set_gpu(struct nsys *ns, struct pair *pr)
{
	static const struct col cols[] = {
		{ { "id" }, true }, { { "name" }, false }, { { "chipName" }, false },
		{ { "computeMajor" }, false }, { { "computeMinor" }, false },
		{ { "smCount" }, false }, { { "clockRate" }, false },
		{ { "l2CacheSize" }, false }, { { "totalMemory" }, false },
		{ { "maxWarpsPerSm" }, false }, { { "threadsPerWarp" }, false },
		{ { "maxThreadsPerBlock" }, false }, { { "maxBlocksPerSm" }, false },
		{ { "maxRegistersPerSm" }, false }, { { "maxRegistersPerBlock" }, false },
		{ { "maxShmemPerSm" }, false }, { { "maxShmemPerBlockOptin" }, false },
	};
	static const char *const T = "TARGET_INFO_GPU";
	sqlite3_stmt *st;
	int r, rc;

	if ((r = select_cols(ns, T, cols, ARRAY_LENGTH(cols), false, &st)) || !st)
		return r;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id, cma, cmi, sms, v[10];
		double clock = NAN;
		const char *name = (const char *)sqlite3_column_text(st, 2);
		const char *chip = (const char *)sqlite3_column_text(st, 3);
		int i;

		if (!col_int(st, 1, -1, &id) || id != pr->dev)
			continue;
		if (!col_int(st, 4, 0, &cma) || !col_int(st, 5, 0, &cmi) || cma < 0 || cma > 99 ||
		    cmi < 0 || cmi > 9 || (cma == 0 && cmi != 0))
			cma = cmi = 0;
		if (!col_int(st, 6, 0, &sms) || sms < 0 || sms > GPUPROJ_MAX_SMS)
			sms = 0;
		if (sqlite3_column_type(st, 7) != SQLITE_NULL) {
			clock = sqlite3_column_double(st, 7);
			if (!(clock > 0 && clock <= GPUPROJ_MAX_CLOCK_HZ))
				clock = NAN;
		}
		if (gpuproj_profile_set_device(pr->p, name && *name ? name : NULL, NULL,
					       chip && *chip ? chip : NULL, (int)cma, (int)cmi,
					       (int)sms, clock)) {
			r = oom(ns);
			goto out;
		}
		for (i = 0; i < 10; i++) {
			if (!col_int(st, 8 + i, 0, &v[i]))
				v[i] = 0;
		}
		/* Driver attributes the export reports; a value out of range is left out. */
		{
			const struct { enum gpuproj_driver_attr a; double v; } attrs[] = {
				{ GPUPROJ_DRV_L2_BYTES, (double)v[0] },
				{ GPUPROJ_DRV_MEMORY_BYTES, (double)v[1] },
				{ GPUPROJ_DRV_THREADS_PER_SM, (double)v[2] * (double)v[3] },
				{ GPUPROJ_DRV_WARP_SIZE, (double)v[3] },
				{ GPUPROJ_DRV_THREADS_PER_BLOCK, (double)v[4] },
				{ GPUPROJ_DRV_BLOCKS_PER_SM, (double)v[5] },
				{ GPUPROJ_DRV_REGS_PER_SM, (double)v[6] },
				{ GPUPROJ_DRV_REGS_PER_BLOCK, (double)v[7] },
				{ GPUPROJ_DRV_SMEM_PER_SM_BYTES, (double)v[8] },
				{ GPUPROJ_DRV_SMEM_PER_BLOCK_OPTIN_BYTES, (double)v[9] },
			};
			size_t a;

			for (a = 0; a < ARRAY_LENGTH(attrs); a++) {
				if (attrs[a].v > 0)
					(void)gpuproj_profile_set_driver_attr(pr->p, attrs[a].a,
									      attrs[a].v);
			}
		}
		break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		r = sql_fail(ns, T);
out:
	sqlite3_finalize(st);
	return r;
}

static int
set_process(struct nsys *ns, struct pair *pr)
{
	sqlite3_stmt *st = NULL;
	char *app = NULL;
	int64_t pid = pid_of(pr->gpid);
	int r = GPUPROJ_OK;

	if (table_exists(ns, "PROCESSES") &&
	    sqlite3_prepare_v2(ns->db, "SELECT pid, name FROM PROCESSES WHERE globalPid = ?1", -1,
			       &st, NULL) == SQLITE_OK &&
	    sqlite3_bind_int64(st, 1, pr->gpid) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 1);
		int64_t v;

		if (col_int(st, 0, pid, &v) && v >= 0)
			pid = v;
		if (n && *n && !(app = strdup(n)))
			r = oom(ns);
	}
	sqlite3_finalize(st);
	if (!r && gpuproj_profile_set_process(pr->p, app, NULL, pid, -1, NULL))
		r = oom(ns);
	free(app);
	return r;
}

/* Kernel rows into the pairs' profiles (in order of first launch). */
static int
build_profiles(struct nsys *ns, const char *path)
{
	size_t i, cap = 0;
	int r;

	/* Pairs in order of their first kernel; kernel records in order of first launch. */
	for (i = 0; i < ns->n_ops; i++) {
		struct op *o = &ns->ops[i];
		struct pair *pr;

		if (o->kind != OP_KERNEL)
			continue;
		pr = pair_of(ns, o->gpid, o->dev);
		if (!pr) {
			if (!grow(&ns->pairs, &cap, ns->n_pairs, sizeof(*ns->pairs)))
				return oom(ns);
			pr = &ns->pairs[ns->n_pairs++];
			memset(pr, 0, sizeof(*pr));
			pr->gpid = o->gpid;
			pr->dev = o->dev;
			pr->first = o->start;
		} else if (o->start < pr->first) {
			pr->first = o->start;
		}
	}
	/* Stable order: by first kernel, ties by (process, GPU). */
	for (i = 1; i < ns->n_pairs; i++) {
		struct pair t = ns->pairs[i];
		size_t j;

		for (j = i; j > 0 && (ns->pairs[j - 1].first > t.first ||
				      (ns->pairs[j - 1].first == t.first &&
				       (ns->pairs[j - 1].gpid > t.gpid ||
					(ns->pairs[j - 1].gpid == t.gpid &&
					 ns->pairs[j - 1].dev > t.dev)))); j--)
			ns->pairs[j] = ns->pairs[j - 1];
		ns->pairs[j] = t;
	}
	for (i = 0; i < ns->n_pairs; i++) {
		struct pair *pr = &ns->pairs[i];

		if (!(pr->p = gpuproj_profile_new()))
			return oom(ns);
		if (gpuproj_profile_set_attr(pr->p, "origin", "nsys-import") ||
		    gpuproj_profile_set_attr(pr->p, "import.file", path) ||
		    gpuproj_profile_set_attr(pr->p, "import.format", "nsys export --type sqlite") ||
		    gpuproj_profile_set_attr(pr->p, "nsys.version", ns->version) ||
		    gpuproj_profile_set_attr(pr->p, "nsys.schema", ns->schema) ||
		    gpuproj_profile_set_attr(pr->p, "tool_version", GPUPROJ_VERSION))
			return oom(ns);
		if ((r = set_gpu(ns, pr)) || (r = set_process(ns, pr)))
			return r;
	}
	/* Kernel rows in start order, so records come in order of first launch. */
	{
		size_t *order = malloc((ns->n_ops ? ns->n_ops : 1) * sizeof(*order)), n = 0, j;

		if (!order)
			return oom(ns);
		for (i = 0; i < ns->n_ops; i++) {
			if (ns->ops[i].kind == OP_KERNEL)
				order[n++] = i;
		}
		/* Shell sort by start (the rows are nearly in order already). */
		for (j = n / 2; j > 0; j /= 2) {
			for (i = j; i < n; i++) {
				size_t t = order[i], k;

				for (k = i; k >= j &&
					    ns->ops[order[k - j]].start > ns->ops[t].start;
				     k -= j)
					order[k] = order[k - j];
				order[k] = t;
			}
		}
		for (j = 0; j < n; j++) {
			struct op *o = &ns->ops[order[j]];
			const struct krow *kr = &ns->krows[o->ki];
			struct pair *pr = pair_of(ns, o->gpid, o->dev);
			struct gpuproj_signature sig = {
				.name = kr->name, .tag = "", .grid = kr->grid, .block = kr->block,
				.smem_dynamic = kr->smem_dynamic, .device = (int)o->dev,
			};
			struct gpuproj_kernel *k;
			size_t before = gpuproj_profile_count(pr->p);

			if (gpuproj_profile_kernel(pr->p, &sig, &k)) {
				free(order);
				return oom(ns);
			}
			if (gpuproj_profile_count(pr->p) != before) {
				const char **v;

				k->smem_static = kr->smem_static;
				k->regs_per_thread = kr->regs;
				if (kr->demangled && *kr->demangled &&
				    profile_kernel_set_demangled(k, kr->demangled)) {
					free(order);
					return oom(ns);
				}
				v = realloc(pr->shortname, (before + 1) * sizeof(*v));
				if (!v) {
					free(order);
					return oom(ns);
				}
				pr->shortname = v;
				v[before] = kr->shortname;
				pr->n_short = before + 1;
			}
			/* A duration outside the profile's range was refused by need_times(). */
			(void)gpuproj_kernel_add_duration(k, (double)(o->end - o->start));
			o->k = k;
			if (ns->sum)
				ns->sum->launches++;
		}
		free(order);
	}
	return GPUPROJ_OK;
}

/* ---- the timeline of one (process, GPU) ---- */

#define STREAM_SLOTS 256
#define EVENT_SLOTS 256
#define GRAPH_POOL 1024

/* One thread's epoch being built (as inject/timeline-rec.c's struct thr). */
struct epoch {
	struct gpuproj_tl_raw raw[GPUPROJ_TL_MAX_NODES];
	struct gpuproj_tl_node nodes[GPUPROJ_TL_MAX_NODES];
	size_t n_raw;
	bool open, incomplete;
	uint64_t start, outstanding;
	/*
	 * The epoch's streams by slot, and when each one's work ends: kept
	 * across a cut, so that the next epoch begins with the work still
	 * running (GPUPROJ_TL_CARRY nodes) on the same slots.
	 */
	struct { int64_t ctx, stream; uint64_t ready; bool legacy; } streams[STREAM_SLOTS];
	size_t n_streams;
	bool carry;		/* the epoch was cut: the next one carries its streams' work */
	int64_t events[EVENT_SLOTS];
	size_t n_events;
	struct gpuproj_tl_graph_kernel gpool[GRAPH_POOL];
	size_t n_gpool;
	uint32_t index;
	uint64_t last;
};

static uint16_t
stream_slot(struct epoch *h, int64_t ctx, int64_t stream)
{
	size_t i;

	for (i = 0; i < h->n_streams; i++) {
		if (h->streams[i].ctx == ctx && h->streams[i].stream == stream)
			return (uint16_t)i;
	}
	if (h->n_streams == STREAM_SLOTS)
		return STREAM_SLOTS - 1; /* as the recorder: folded into the last slot */
	h->streams[h->n_streams].ctx = ctx;
	h->streams[h->n_streams].stream = stream;
	h->streams[h->n_streams].ready = 0;
	h->streams[h->n_streams].legacy = false;
	return (uint16_t)h->n_streams++;
}

static uint16_t
event_slot(struct epoch *h, int64_t id, bool add)
{
	size_t i;

	if (id == INVALID_ID || id < 0)
		return GPUPROJ_TL_NONE;
	for (i = 0; i < h->n_events; i++) {
		if (h->events[i] == id)
			return (uint16_t)i;
	}
	if (!add || h->n_events == EVENT_SLOTS)
		return GPUPROJ_TL_NONE;
	h->events[h->n_events] = id;
	return (uint16_t)h->n_events++;
}

static int
close_epoch(struct nsys *ns, struct gpuproj_timeline *tl, struct epoch *h, uint64_t end, bool cut)
{
	double wall;
	int r = GPUPROJ_OK;

	if (!h->open)
		return GPUPROJ_OK;
	if (end < h->start)
		end = h->start;
	wall = (double)(end - h->start);
	/* Cut with work still running: the next epoch carries it (nothing spilled). */
	if (h->incomplete || !h->n_raw) {
		tl->unexplained[GPUPROJ_TL_WHY_INCOMPLETE].epochs++;
		tl->unexplained[GPUPROJ_TL_WHY_INCOMPLETE].ns += wall;
	} else {
		struct gpuproj_tl_pattern pat;

		r = gpuproj_tl_epoch_fold_into(h->raw, h->n_raw, h->start, end, h->nodes, &pat);
		if (!r) {
			pat.thread = h->index;
			pat.cut = cut;
			r = gpuproj_timeline_add(tl, &pat, GPUPROJ_NSYS_MAX_PATTERNS,
						 GPUPROJ_NSYS_MAX_NODES, NULL);
		}
		if (r)
			r = oom(ns);
	}
	h->open = false;
	h->incomplete = false;
	h->n_raw = 0;
	/* Cut while work runs: the streams (slots, ready times) and that work go on. */
	h->carry = cut && h->outstanding > end;
	if (!h->carry) {
		h->n_streams = 0;
		h->outstanding = 0;
	}
	h->n_events = 0;
	h->n_gpool = 0;
	h->start = end;
	h->last = end;
	return r;
}

/*
 * Open the thread's next epoch (inject/timeline-rec.c open_epoch()): after
 * a cut, one carried node per stream still busy, on its slot, from the
 * epoch's start to when its work ends (room left for at least one call).
 */
static void
open_epoch(struct epoch *h)
{
	size_t s;

	h->open = true;
	h->incomplete = false;
	for (s = 0; h->carry && s < h->n_streams && h->n_raw + 2 < GPUPROJ_TL_MAX_NODES; s++) {
		struct gpuproj_tl_raw *r;

		if (h->streams[s].ready <= h->start)
			continue;
		r = &h->raw[h->n_raw++];
		memset(r, 0, sizeof(*r));
		r->op = GPUPROJ_TL_CARRY;
		r->stream = (uint16_t)s;
		r->event = GPUPROJ_TL_NONE;
		r->legacy = h->streams[s].legacy;
		r->call_start = r->call_end = r->op_start = h->start;
		r->op_end = h->streams[s].ready;
	}
	h->carry = false;
}

/*
 * The thread's last epoch, whose calls came after its last wait
 * (inject/timeline-rec.c close_last_epoch()): when its GPU work outlasts
 * them (a thread that never synchronises), the epoch ends with that work,
 * by a device synchronisation at its end, the wait the process's exit
 * makes; else that work would be time outside any epoch.
 */
static int
close_last_epoch(struct nsys *ns, struct gpuproj_timeline *tl, struct epoch *h)
{
	uint64_t end;

	if (!h->open && h->carry && h->outstanding > h->start)
		open_epoch(h);
	if (!h->open || !h->n_raw)
		return GPUPROJ_OK;
	end = h->raw[h->n_raw - 1].call_end;
	if (h->outstanding > end && h->n_raw < GPUPROJ_TL_MAX_NODES) {
		struct gpuproj_tl_raw *r = &h->raw[h->n_raw++];

		memset(r, 0, sizeof(*r));
		r->op = GPUPROJ_TL_SYNC_DEVICE;
		r->stream = r->event = GPUPROJ_TL_NONE;
		r->call_start = end;
		r->call_end = end = h->outstanding;
	}
	return close_epoch(ns, tl, h, end, false);
}

/* What one call's records are (inject/timeline-rec.c struct took). */
struct took {
	size_t n_ops, n_kernels, n_copies, n_memsets;
	const struct op *first;
	uint64_t op_start, op_end, bytes;
	bool graph;
	const struct sync *sync, *event;
	struct gpuproj_tl_graph_kernel *gk;
	size_t n_gk;
};

static void
took_op(struct epoch *h, struct took *w, const struct op *o)
{
	size_t i;

	if (!w->n_ops++) {
		w->first = o;
		w->op_start = o->start;
		w->op_end = o->end;
		w->gk = h->gpool + h->n_gpool;
	}
	if (o->start < w->op_start)
		w->op_start = o->start;
	if (o->end > w->op_end)
		w->op_end = o->end;
	w->graph |= o->graph != 0;
	w->bytes += o->bytes;
	if (o->kind == OP_COPY)
		w->n_copies++;
	else if (o->kind == OP_MEMSET)
		w->n_memsets++;
	if (o->kind != OP_KERNEL || !o->k)
		return;
	w->n_kernels++;
	for (i = 0; i < w->n_gk; i++) {
		if (w->gk[i].kernel == o->k)
			break;
	}
	if (i == w->n_gk) {
		if (w->n_gk == GPUPROJ_TL_MAX_GRAPH_KERNELS || h->n_gpool + 1 > GRAPH_POOL)
			return; /* kept unscaled, inside the span (as the recorder) */
		memset(&w->gk[i], 0, sizeof(w->gk[i]));
		w->gk[i].kernel = o->k;
		w->n_gk++;
		h->n_gpool++;
	}
	w->gk[i].launches++;
	if (!w->gk[i].ns.n)
		w->gk[i].ns.n = 1;
	w->gk[i].ns.sum += (double)(o->end - o->start);
	w->gk[i].ns.mean = w->gk[i].ns.min = w->gk[i].ns.max = w->gk[i].ns.sum;
}

/* The synchronisation a call is, by its name (see the file comment); -1 when none. */
static int
sync_by_name(const char *name)
{
	if (!name)
		return -1;
	if (strstr(name, "DeviceSynchronize") || strstr(name, "CtxSynchronize"))
		return GPUPROJ_TL_SYNC_DEVICE;
	if (strstr(name, "StreamSynchronize"))
		return GPUPROJ_TL_SYNC_STREAM;
	if (strstr(name, "EventSynchronize"))
		return GPUPROJ_TL_SYNC_EVENT;
	if (strstr(name, "StreamWaitEvent"))
		return GPUPROJ_TL_EVENT_WAIT;
	return -1;
}

/*
 * One call group c[0, n) (a runtime call and the driver calls nested in
 * it): one node of the thread's epoch (inject/timeline-rec.c take()).
 */
static int
take(struct nsys *ns, struct gpuproj_timeline *tl, struct epoch *h, const struct call *c,
     size_t n, int64_t dev)
{
	struct gpuproj_tl_raw *r;
	struct took w = { 0 };
	unsigned expect = 0;
	bool blocking = false, async = false;
	int sync_kind = -1;
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (!c[i].failed)
			expect |= gpuproj_tl_api_expects(c[i].name);
		async |= c[i].name && strstr(c[i].name, "Async") != NULL;
		if (sync_kind < 0)
			sync_kind = sync_by_name(c[i].name);
		for (j = ops_of(ns, c[i].gpid, c[i].corr);
		     j < ns->n_ops && ns->ops[j].gpid == c[i].gpid && ns->ops[j].corr == c[i].corr;
		     j++) {
			if (ns->ops[j].dev == dev)
				took_op(h, &w, &ns->ops[j]);
		}
		for (j = syncs_of(ns, c[i].gpid, c[i].corr); j < ns->n_syncs &&
		     ns->syncs[j].gpid == c[i].gpid && ns->syncs[j].corr == c[i].corr; j++) {
			const struct sync *y = &ns->syncs[j];

			if (y->is_record && !w.event)
				w.event = y;
			else if (!y->is_record && !w.sync)
				w.sync = y;
		}
	}
	if (!h->open)
		open_epoch(h);
	if (((expect & GPUPROJ_TL_EXPECT_OP) && !w.n_ops) ||
	    ((expect & GPUPROJ_TL_EXPECT_SYNC) && !w.sync && sync_kind != GPUPROJ_TL_SYNC_DEVICE))
		h->incomplete = true;
	r = &h->raw[h->n_raw];
	memset(r, 0, sizeof(*r));
	r->stream = r->event = GPUPROJ_TL_NONE;
	r->call_start = c[0].start;
	r->call_end = c[0].end;
	if (w.n_ops) {
		const struct op *o = w.first;

		r->stream = stream_slot(h, o->ctx, o->stream);
		r->legacy = is_legacy(ns, o->gpid, o->ctx, o->stream);
		r->op_start = w.op_start;
		r->op_end = w.op_end;
		if (w.graph || (w.n_ops > 1 && w.n_kernels)) {
			r->op = GPUPROJ_TL_GRAPH;
			r->graph = w.gk;
			r->n_graph = w.n_gk;
		} else if (w.n_kernels) {
			r->op = GPUPROJ_TL_KERNEL;
			r->kernel = o->k;
		} else if (w.n_copies && o->kind == OP_COPY) {
			r->op = GPUPROJ_TL_COPY;
			r->copy = o->copy;
			r->pinned = o->pinned;
			r->bytes = w.bytes;
			r->blocking = blocking = gpuproj_tl_copy_blocks(async, w.op_end, c[0].end);
		} else if (w.n_memsets) {
			r->op = GPUPROJ_TL_MEMSET;
			r->bytes = w.bytes;
			r->blocking = blocking = gpuproj_tl_copy_blocks(async, w.op_end, c[0].end);
		} else {
			r->op = GPUPROJ_TL_CALL;
			r->stream = GPUPROJ_TL_NONE;
		}
		if (r->op != GPUPROJ_TL_CALL && w.op_end > h->outstanding)
			h->outstanding = w.op_end;
		if (r->op != GPUPROJ_TL_CALL && r->stream != GPUPROJ_TL_NONE) {
			if (w.op_end > h->streams[r->stream].ready)
				h->streams[r->stream].ready = w.op_end;
			h->streams[r->stream].legacy = r->legacy;
		}
	} else if (w.sync || sync_kind >= 0) {
		const struct sync *y = w.sync;
		int kind = sync_kind;

		if (kind < 0) {
			kind = y->type == SYNC_EVENT ? GPUPROJ_TL_SYNC_EVENT
			       : y->type == SYNC_WAIT ? GPUPROJ_TL_EVENT_WAIT
			       : y->type == SYNC_STREAM ? GPUPROJ_TL_SYNC_STREAM
							: GPUPROJ_TL_SYNC_DEVICE;
		}
		blocking = kind != GPUPROJ_TL_EVENT_WAIT;
		r->op = (enum gpuproj_tl_op)kind;
		switch (kind) {
		case GPUPROJ_TL_SYNC_STREAM:
		case GPUPROJ_TL_EVENT_WAIT:
			if (y && y->stream != INVALID_ID) {
				r->stream = stream_slot(h, y->ctx, y->stream);
				r->legacy = is_legacy(ns, y->gpid, y->ctx, y->stream);
			} else {
				/* Without its stream the node cannot be replayed. */
				h->incomplete = true;
				r->op = GPUPROJ_TL_CALL;
			}
			if (kind == GPUPROJ_TL_EVENT_WAIT && y)
				r->event = event_slot(h, y->event, false);
			break;
		case GPUPROJ_TL_SYNC_EVENT:
			r->event = y ? event_slot(h, y->event, false) : GPUPROJ_TL_NONE;
			break;
		default:
			break;
		}
	} else if (w.event) {
		r->op = GPUPROJ_TL_EVENT_RECORD;
		r->stream = stream_slot(h, w.event->ctx, w.event->stream);
		r->legacy = is_legacy(ns, w.event->gpid, w.event->ctx, w.event->stream);
		r->event = event_slot(h, w.event->event, true);
	} else {
		r->op = GPUPROJ_TL_CALL;
	}
	h->n_raw++;
	if (blocking && h->outstanding <= c[0].end)
		return close_epoch(ns, tl, h, c[0].end, false);
	if (h->n_raw == GPUPROJ_TL_MAX_NODES)
		return close_epoch(ns, tl, h, c[0].end, true);
	return GPUPROJ_OK;
}

/* The GPU of a call group by its records; -1 when it has none. */
static int64_t
group_device(const struct nsys *ns, const struct call *c, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		j = ops_of(ns, c[i].gpid, c[i].corr);
		if (j < ns->n_ops && ns->ops[j].gpid == c[i].gpid && ns->ops[j].corr == c[i].corr)
			return ns->ops[j].dev;
		for (j = syncs_of(ns, c[i].gpid, c[i].corr); j < ns->n_syncs &&
		     ns->syncs[j].gpid == c[i].gpid && ns->syncs[j].corr == c[i].corr; j++) {
			if (ns->syncs[j].dev >= 0)
				return ns->syncs[j].dev;
		}
	}
	return -1;
}

/* The size of the call group at c[0] of the thread's calls c[0, n). */
static size_t
group_size(const struct call *c, size_t n)
{
	size_t g = 1;

	while (c[0].runtime && g < n && !c[g].runtime && c[g].start >= c[0].start &&
	       c[g].end <= c[0].end)
		g++;
	return g;
}

/*
 * Every thread's call groups get their GPU (see the file comment): their
 * records', else the thread's last, else its first; a thread that never
 * used one, the process's first GPU. Calls are sorted by thread already.
 */
static int
assign_devices(struct nsys *ns)
{
	size_t i = 0;

	while (i < ns->n_calls) {
		size_t end = i, g, k;
		int64_t last = -1, first = -1;
		bool several = false;

		while (end < ns->n_calls && ns->calls[end].gtid == ns->calls[i].gtid)
			end++;
		for (k = i; k < end; k += g) {
			int64_t d;

			g = group_size(&ns->calls[k], end - k);
			d = group_device(ns, &ns->calls[k], g);
			if (d >= 0 && first < 0)
				first = d;
			if (d >= 0 && last >= 0 && d != last)
				several = true;
			if (d >= 0)
				last = d;
			ns->calls[k].dev = d >= 0 ? d : last;
		}
		if (first < 0) {
			size_t p;

			for (p = 0; p < ns->n_pairs; p++) {
				if (ns->pairs[p].gpid == ns->calls[i].gpid) {
					first = ns->pairs[p].dev;
					break;
				}
			}
		}
		for (k = i; k < end; k += g) {
			g = group_size(&ns->calls[k], end - k);
			if (ns->calls[k].dev < 0)
				ns->calls[k].dev = first;
		}
		if (several && import_summary_warn(ns->sum, "thread %" PRId64 " of process %" PRId64
						   " called CUDA for several GPUs: each GPU's "
						   "timeline holds its own calls, the others' time "
						   "counted as host time between them",
						   ns->calls[i].gtid & TID_MASK,
						   pid_of(ns->calls[i].gpid)))
			return oom(ns);
		i = end;
	}
	return GPUPROJ_OK;
}

static int
cmp_span(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

static int
build_timeline(struct nsys *ns, struct pair *pr, struct epoch *h)
{
	struct gpuproj_timeline *tl = gpuproj_timeline_new();
	uint64_t (*spans)[2] = NULL, lo = UINT64_MAX, hi = 0;
	size_t i = 0, n_spans = 0, cap = 0, k;
	uint32_t threads = 0;
	double span = 0, cur_lo = 0, cur_hi = 0;
	int r = GPUPROJ_OK;

	if (!tl)
		return oom(ns);
	/* The GPU's records: the traced wall time's ends. */
	for (k = 0; k < ns->n_ops; k++) {
		const struct op *o = &ns->ops[k];

		if (o->gpid != pr->gpid || o->dev != pr->dev)
			continue;
		lo = o->start < lo ? o->start : lo;
		hi = o->end > hi ? o->end : hi;
	}
	while (i < ns->n_calls && !r) {
		size_t end = i, g;
		bool seen = false;
		uint64_t first = 0;

		while (end < ns->n_calls && ns->calls[end].gtid == ns->calls[i].gtid)
			end++;
		if (ns->calls[i].gpid != pr->gpid) {
			i = end;
			continue;
		}
		for (k = i; k < end && !r; k += g) {
			g = group_size(&ns->calls[k], end - k);
			if (ns->calls[k].dev != pr->dev)
				continue;
			if (!seen) {
				seen = true;
				memset(h, 0, offsetof(struct epoch, index));
				h->index = threads++;
				h->start = first = ns->calls[k].start;
				h->last = first;
			}
			r = take(ns, tl, h, &ns->calls[k], g, pr->dev);
			if (!h->open)
				continue;
			/*
			 * The thread's last calls, after its last wait: an epoch ending
			 * with them.
			 */
			h->last = ns->calls[k].end > h->last ? ns->calls[k].end : h->last;
		}
		if (seen && !r) {
			r = close_last_epoch(ns, tl, h);
			if (!grow(&spans, &cap, n_spans, sizeof(*spans))) {
				r = oom(ns);
				break;
			}
			spans[n_spans][0] = first;
			spans[n_spans][1] = h->last;
			n_spans++;
			lo = first < lo ? first : lo;
			hi = h->last > hi ? h->last : hi;
		}
		i = end;
	}
	if (r) {
		free(spans);
		gpuproj_timeline_free(tl);
		return r;
	}
	if (n_spans)
		qsort(spans, n_spans, sizeof(*spans), cmp_span);
	for (k = 0; k < n_spans; k++) {
		if (k == 0 || (double)spans[k][0] > cur_hi) {
			span += cur_hi - cur_lo;
			cur_lo = (double)spans[k][0];
			cur_hi = (double)spans[k][1];
		} else if ((double)spans[k][1] > cur_hi) {
			cur_hi = (double)spans[k][1];
		}
	}
	span += cur_hi - cur_lo;
	free(spans);
	/*
	 * The profile keeps a node time's mean and spread, not its extremes
	 * (docs/formats/profile.md "timeline"): the import holds what it
	 * writes, so that it loads back the same (fuzz-nsys found a pattern
	 * whose latencies varied come back with min = max = mean).
	 */
	for (k = 0; k < tl->n_patterns; k++) {
		struct gpuproj_tl_pattern *pat = &tl->patterns[k];
		size_t j, g;

		for (j = 0; j < pat->n_nodes; j++) {
			struct gpuproj_tl_node *nd = &pat->nodes[j];
			struct gpuproj_stats *st[] = { &nd->gap_ns, &nd->call_ns, &nd->lat_ns,
						       &nd->dur_ns };

			for (g = 0; g < ARRAY_LENGTH(st); g++)
				st[g]->min = st[g]->max = st[g]->mean;
			for (g = 0; g < nd->n_graph; g++)
				nd->graph[g].ns.min = nd->graph[g].ns.max = nd->graph[g].ns.mean;
		}
	}
	tl->threads = threads;
	tl->span_ns = span;
	tl->wall_ns = hi >= lo && lo != UINT64_MAX ? (double)(hi - lo) : 0;
	if (tl->wall_ns < span)
		tl->wall_ns = span;
	pr->lo = lo;
	pr->hi = hi;
	gpuproj_profile_run_info_mut(pr->p)->wall_ns = tl->wall_ns;
	if (threads || tl->n_patterns)
		gpuproj_profile_set_timeline(pr->p, tl);
	else
		gpuproj_timeline_free(tl);
	return GPUPROJ_OK;
}

/* Calls by (gtid holding the gpid, correlation id), for count_orphans(). */
static int
cmp_call_corr(const void *a, const void *b)
{
	const struct call *x = a, *y = b;
	int c = cmp_i64(x->gtid, y->gtid);

	return c ? c : cmp_i64(x->corr, y->corr);
}

/* GPU records whose call the export lacks (or that a filtered class made): counted, warned. */
static int
count_orphans(struct nsys *ns)
{
	size_t i, n = 0;

	if (!ns->have_runtime || !ns->n_calls) {
		ns->orphans = ns->have_runtime ? ns->n_ops : 0;
		if (ns->orphans && import_summary_warn(ns->sum, "%zu GPU record%s had no CUDA call "
						       "in the export (their time is in the "
						       "kernels, not in the timeline)", ns->n_ops,
						       ns->n_ops == 1 ? "" : "s"))
			return oom(ns);
		return GPUPROJ_OK;
	}
	/* Mark: the calls by (gpid, corr), sorted, then each op looked up. */
	{
		struct call *byc = malloc((ns->n_calls ? ns->n_calls : 1) * sizeof(*byc));

		if (!byc)
			return oom(ns);
		memcpy(byc, ns->calls, ns->n_calls * sizeof(*byc));
		for (i = 0; i < ns->n_calls; i++) {
			/* reuse gtid as the sort key's first part */
			byc[i].gtid = byc[i].gpid;
		}
		qsort(byc, ns->n_calls, sizeof(*byc), cmp_call_corr);
		for (i = 0; i < ns->n_ops; i++) {
			size_t j = lower(byc, ns->n_calls, sizeof(*byc), ns->ops[i].gpid,
					 ns->ops[i].corr, offsetof(struct call, gtid),
					 offsetof(struct call, corr));

			if (j == ns->n_calls || byc[j].gtid != ns->ops[i].gpid ||
			    byc[j].corr != ns->ops[i].corr)
				n++;
		}
		free(byc);
	}
	ns->orphans = n;
	if (n && import_summary_warn(ns->sum, "%zu GPU record%s had no CUDA call in the export "
				     "(their time is in the kernels, not in the timeline)", n,
				     n == 1 ? "" : "s"))
		return oom(ns);
	return GPUPROJ_OK;
}

/* ---- counters from Nsight Compute exports ---- */

/* Whether counter kernel c names kernel k (mangled, demangled or short name). */
static bool
same_name(const struct gpuproj_kernel *c, const struct gpuproj_kernel *k, const char *shortname)
{
	return strcmp(c->name, k->name) == 0 ||
	       (k->demangled && strcmp(c->name, k->demangled) == 0) ||
	       (shortname && strcmp(c->name, shortname) == 0) ||
	       (c->demangled && k->demangled && strcmp(c->demangled, k->demangled) == 0);
}

static bool
same_dim(struct gpuproj_dim3 a, struct gpuproj_dim3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

/* Copy the counters of c into k: per-launch means as measured there (k's launches are its own). */
static int
join_kernel(struct gpuproj_kernel *k, const struct gpuproj_kernel *c)
{
	size_t i;

	memcpy(k->metric_sum, c->metric_sum, sizeof(k->metric_sum));
	memcpy(k->metric_n, c->metric_n, sizeof(k->metric_n));
	/* No launch of this run was profiled: the counters come from Nsight Compute's. */
	k->profiled = 0;
	if (!k->regs_per_thread)
		k->regs_per_thread = c->regs_per_thread;
	if (!k->smem_static)
		k->smem_static = c->smem_static;
	for (i = 0; i < c->n_extra; i++) {
		if (c->extra[i].n &&
		    gpuproj_kernel_add_extra(k, c->extra[i].name, c->extra[i].unit,
					     c->extra[i].sum / (double)c->extra[i].n))
			return GPUPROJ_E_NOMEM;
	}
	return GPUPROJ_OK;
}

struct cand {
	const struct gpuproj_kernel *k;
	size_t used;		/* the pair's join round that used it, 0: none */
};

/*
 * One pair's kernels against the counter kernels (gpuproj_import_nsys():
 * exact signature, then grid and block, then name alone for counters
 * without geometry; several signatures for one counter kernel: the first
 * launched).
 */
static int
join_pair(struct nsys *ns, struct pair *pr, struct cand *cands, size_t n_cands, bool *ever,
	  struct gpuproj_nsys_join *out)
{
	size_t nk = gpuproj_profile_count(pr->p), i, j, level;
	bool *done = calloc(nk ? nk : 1, sizeof(*done));

	if (!done)
		return oom(ns);
	for (j = 0; j < n_cands; j++)
		cands[j].used = 0;
	out->kernels += nk;
	for (level = 0; level < 3; level++) {
		for (j = 0; j < n_cands; j++) {
			const struct gpuproj_kernel *c = cands[j].k;
			bool geometry = gpuproj_kernel_geometry_known(c);
			size_t matches = 0, first = SIZE_MAX;

			if (cands[j].used || (level == 2) == geometry)
				continue;
			for (i = 0; i < nk; i++) {
				const struct gpuproj_kernel *k = gpuproj_profile_at(pr->p, i);

				if (done[i] || !same_name(c, k, i < pr->n_short ? pr->shortname[i]
										 : NULL))
					continue;
				if (level < 2 && (!same_dim(c->grid, k->grid) ||
						  !same_dim(c->block, k->block)))
					continue;
				if (level == 0 && c->smem_dynamic != k->smem_dynamic)
					continue;
				if (!matches++)
					first = i; /* records are in order of first launch */
			}
			if (!matches)
				continue;
			if (join_kernel(gpuproj_profile_at(pr->p, first), c)) {
				free(done);
				return oom(ns);
			}
			done[first] = true;
			cands[j].used = level + 1;
			ever[j] = true;
			out->joined++;
			out->by_launch_order += matches > 1;
		}
	}
	free(done);
	return GPUPROJ_OK;
}

static int
join_counters(struct nsys *ns, const struct gpuproj_nsys_options *opt,
	      struct gpuproj_nsys_join *out)
{
	struct cand *cands = NULL;
	bool *ever = NULL;
	size_t n = 0, i, j;
	int r = GPUPROJ_OK;

	memset(out, 0, sizeof(*out));
	for (i = 0; opt && i < opt->n_counters; i++)
		n += opt->counters[i] ? gpuproj_profile_count(opt->counters[i]) : 0;
	if (!n) {
		for (i = 0; i < ns->n_pairs; i++)
			out->kernels += gpuproj_profile_count(ns->pairs[i].p);
		return GPUPROJ_OK;
	}
	cands = calloc(n, sizeof(*cands));
	ever = calloc(n, sizeof(*ever));
	if (!cands || !ever) {
		r = oom(ns);
		goto out;
	}
	n = 0;
	for (i = 0; i < opt->n_counters; i++) {
		for (j = 0; opt->counters[i] && j < gpuproj_profile_count(opt->counters[i]); j++)
			cands[n++].k = gpuproj_profile_at(opt->counters[i], j);
	}
	for (i = 0; i < ns->n_pairs && !r; i++)
		r = join_pair(ns, &ns->pairs[i], cands, n, ever, out);
	for (j = 0; j < n; j++)
		out->unjoined_ncu += !ever[j];
out:
	free(cands);
	free(ever);
	return r;
}

/* ---- the import ---- */

static void
nsys_clear(struct nsys *ns)
{
	size_t i;

	if (ns->db)
		sqlite3_close(ns->db);
	free(ns->buf);
	free(ns->version);
	free(ns->schema);
	for (i = 0; i < ns->str.n; i++)
		free(ns->str.values[i]);
	free(ns->str.ids);
	free(ns->str.values);
	free(ns->krows);
	free(ns->ops);
	free(ns->syncs);
	free(ns->calls);
	free(ns->legacy);
	for (i = 0; i < ns->n_pairs; i++) {
		gpuproj_profile_free(ns->pairs[i].p);
		free(ns->pairs[i].shortname);
	}
	free(ns->pairs);
}

/* The first 16 bytes of every SQLite 3 database (sqlite.org/fileformat.html, 1.3). */
static const char sqlite_magic[16] = "SQLite format 3";

static int
open_db(struct nsys *ns, size_t len)
{
	unsigned char *b = (unsigned char *)ns->buf;

	if (len < 100 || memcmp(b, sqlite_magic, sizeof(sqlite_magic)) != 0)
		return error_set(ns->err, GPUPROJ_E_PARSE, ns->path, 0, 0,
				 "not an SQLite database (an Nsight Systems report is exported "
				 "with `nsys export --type sqlite REPORT.nsys-rep`)");
	/*
	 * Bytes 18-19 are the write and read versions, 2 for a WAL database;
	 * a database in memory has no WAL file, so it is read as a rollback
	 * journal one (the same pages; an un-checkpointed -wal file beside the
	 * export is not read).
	 */
	if (b[18] == 2)
		b[18] = 1;
	if (b[19] == 2)
		b[19] = 1;
	if (sqlite3_open_v2(":memory:", &ns->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		return ns->db ? sql_fail(ns, "an in-memory database") : oom(ns);
	if (sqlite3_deserialize(ns->db, "main", b, (sqlite3_int64)len, (sqlite3_int64)len,
				SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
		return sql_fail(ns, "the file");
	if (sqlite3_exec(ns->db, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(ns, "the file");
	/*
	 * A damaged or cut file fails here, in one message, not as a table
	 * that seems to be missing later: quick_check reads every page once
	 * (linear in the file; the structure, not the indexes' contents).
	 */
	{
		sqlite3_stmt *st = NULL;
		const char *res;
		int r = GPUPROJ_OK;

		if (sqlite3_prepare_v2(ns->db, "PRAGMA quick_check(1)", -1, &st,
				       NULL) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW)
			r = sql_fail(ns, "the file");
		else if ((res = (const char *)sqlite3_column_text(st, 0)) && strcmp(res, "ok") != 0)
			r = error_set(ns->err, GPUPROJ_E_PARSE, ns->path, 0, 0,
				      "SQLite cannot read the file: it is damaged or cut short "
				      "(quick_check: %s)", res);
		sqlite3_finalize(st);
		return r;
	}
}

int
gpuproj_import_nsys(const char *path, const struct gpuproj_nsys_options *opt,
		    struct gpuproj_profile ***ret_profiles, size_t *ret_n,
		    struct gpuproj_import_summary *summary, struct gpuproj_nsys_join *join,
		    struct gpuproj_error *reterr)
{
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_nsys_join jn = { 0 };
	struct nsys ns = { .path = path, .err = reterr, .sum = &sum };
	struct gpuproj_profile **out = NULL;
	struct epoch *h = NULL;
	size_t len = 0, i;
	int r;

	if (!path || !ret_profiles || !ret_n)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "no input");
	if ((r = file_read_limited(path, 0, "an Nsight Systems export", &ns.buf, &len, reterr)))
		goto out;
	if ((r = open_db(&ns, len)) || (r = read_meta(&ns)) || (r = read_strings(&ns)) ||
	    (r = read_kernels(&ns)) || (r = read_copies(&ns, false)) ||
	    (r = read_copies(&ns, true)) || (r = read_syncs(&ns, false)) ||
	    (r = read_syncs(&ns, true)) || (r = read_calls(&ns)) || (r = read_streams(&ns)))
		goto out;
	/* (qsort() and memcpy() are not for NULL arrays, even of no element.) */
	if (ns.n_ops)
		qsort(ns.ops, ns.n_ops, sizeof(*ns.ops), cmp_op);
	if (ns.n_syncs)
		qsort(ns.syncs, ns.n_syncs, sizeof(*ns.syncs), cmp_sync);
	if (ns.n_calls)
		qsort(ns.calls, ns.n_calls, sizeof(*ns.calls), cmp_call);
	if ((r = build_profiles(&ns, path)) || (r = assign_devices(&ns)) ||
	    (r = count_orphans(&ns)))
		goto out;
	if (ns.have_runtime && !(h = malloc(sizeof(*h)))) {
		r = oom(&ns);
		goto out;
	}
	for (i = 0; i < ns.n_pairs; i++) {
		struct pair *pr = &ns.pairs[i];

		if (h && (r = build_timeline(&ns, pr, h)))
			goto out;
		gpuproj_profile_run_info_mut(pr->p)->gpu_ns = gpuproj_profile_kernel_time_ns(pr->p);
	}
	if ((r = join_counters(&ns, opt, &jn)))
		goto out;
	/* Checked as the writer will check them, so an import that succeeds can be written. */
	for (i = 0; i < ns.n_pairs; i++) {
		if ((r = gpuproj_profile_validate(ns.pairs[i].p, path, reterr)))
			goto out;
	}
	if ((r = import_summary_finish(&sum, ns.pairs[0].p))) {
		r = oom(&ns);
		goto out;
	}
	sum.kernels = jn.kernels;
	out = calloc(ns.n_pairs, sizeof(*out));
	if (!out) {
		r = oom(&ns);
		goto out;
	}
	for (i = 0; i < ns.n_pairs; i++) {
		out[i] = ns.pairs[i].p;
		ns.pairs[i].p = NULL;
	}
	*ret_profiles = out;
	*ret_n = ns.n_pairs;
	if (summary) {
		*summary = sum;
		memset(&sum, 0, sizeof(sum));
	}
	if (join)
		*join = jn;
out:
	free(h);
	gpuproj_import_summary_clear(&sum);
	nsys_clear(&ns);
	return r;
}

#endif /* GPUPROJ_HAVE_SQLITE */
