/* SPDX-License-Identifier: MIT */
/*
 * GPUPROJ_* environment variables of libproj.so: parsing, validation with
 * one message per bad value, output path patterns and the MPI rank.
 *
 * Thread safety: inj_config_load() is called once under pthread_once; the
 * other functions are reentrant.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "env.h"
#include "log.h"
#include "util.h"

extern char **environ;

static const char *const known_vars[] = {
	"GPUPROJ_TARGETS", "GPUPROJ_OUTPUT", "GPUPROJ_KERNEL_REGEX",
	"GPUPROJ_PROFILE_LAUNCHES", "GPUPROJ_MODE", "GPUPROJ_LIVE", "GPUPROJ_LOG",
	"GPUPROJ_KEEP_CUBINS", "GPUPROJ_SIGNALS", "GPUPROJ_PRELOAD", "GPUPROJ_WAIT",
	"GPUPROJ_KERNEL_EXCLUDE", "GPUPROJ_MAX_INPUT_SIZE", "GPUPROJ_TENSOR",
	"GPUPROJ_RUN_MARK", /* set by `gpuproj run` (entry.c mark_run()) */
};

const char *
inj_mode_name(enum inj_mode mode)
{
	switch (mode) {
	case INJ_MODE_FULL: return "full";
	case INJ_MODE_TIMING: return "timing";
	case INJ_MODE_OFF: return "off";
	}
	return "?";
}

/* The value of a variable if set (empty counts as set), remembered for the profile. */
static const char *
get(struct inj_config *cfg, const char *name)
{
	const char *v = getenv(name);

	if (v && cfg->n_echo < ARRAY_LENGTH(cfg->echo)) {
		char *dup = strdup(v);

		if (dup) {
			cfg->echo[cfg->n_echo].name = name;
			cfg->echo[cfg->n_echo].value = dup;
			cfg->n_echo++;
		}
	}
	return v;
}

int
inj_parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off", "" };
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
	}
	for (i = 0; i < ARRAY_LENGTH(no); i++) {
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	}
	return -1;
}

static void
load_log(struct inj_config *cfg)
{
	static const char *const names[] = { "debug", "info", "warn", "error" };
	const char *v = get(cfg, "GPUPROJ_LOG");
	size_t i;

	cfg->log_level = INJ_LOG_INFO;
	inj_log_set_level(INJ_LOG_INFO);
	if (!v)
		return;
	for (i = 0; i < ARRAY_LENGTH(names); i++) {
		if (strcasecmp(v, names[i]) == 0) {
			cfg->log_level = (int)i;
			inj_log_set_level((enum inj_log_level)i);
			return;
		}
	}
	if (strcasecmp(v, "warning") == 0) {
		cfg->log_level = INJ_LOG_WARN;
		inj_log_set_level(INJ_LOG_WARN);
		return;
	}
	inj_warn("GPUPROJ_LOG='%s' is not one of debug, info, warn, error; using info", v);
}

static void
load_mode(struct inj_config *cfg)
{
	const char *v = get(cfg, "GPUPROJ_MODE");

	cfg->mode = INJ_MODE_FULL;
	if (!v)
		return;
	if (strcasecmp(v, "full") == 0)
		cfg->mode = INJ_MODE_FULL;
	else if (strcasecmp(v, "timing") == 0)
		cfg->mode = INJ_MODE_TIMING;
	else if (strcasecmp(v, "off") == 0)
		cfg->mode = INJ_MODE_OFF;
	else
		inj_warn("GPUPROJ_MODE='%s' is not one of full, timing, off; using full", v);
}

/* GPUPROJ_TENSOR: which tensor counters (include/gpuproj/tensor.h). */
static void
load_tensor(struct inj_config *cfg)
{
	const char *v = get(cfg, "GPUPROJ_TENSOR");

	cfg->tensor = GPUPROJ_TENSOR_OPS;
	if (v && gpuproj_tensor_mode_from_name(v, &cfg->tensor) != 0) {
		cfg->tensor = GPUPROJ_TENSOR_OPS;
		inj_warn("GPUPROJ_TENSOR='%s' is not one of ops, inst, off; using ops", v);
	}
}

static void
load_launches(struct inj_config *cfg)
{
	const char *v = get(cfg, "GPUPROJ_PROFILE_LAUNCHES");
	int64_t n;

	cfg->profile_launches = INJ_DEFAULT_PROFILE_LAUNCHES;
	if (!v)
		return;
	if (!parse_int64(v, &n) || n < 0 || n > 1000000) {
		inj_warn("GPUPROJ_PROFILE_LAUNCHES='%s' is not a non-negative integer "
			 "(at most 1000000); using %d", v, INJ_DEFAULT_PROFILE_LAUNCHES);
		return;
	}
	cfg->profile_launches = (unsigned)n;
}

static void
load_live(struct inj_config *cfg)
{
	const char *v = get(cfg, "GPUPROJ_LIVE");
	double s;

	cfg->live_s = 0;
	if (!v || !*v)
		return;
	/*
	 * At least 0.1 s: each refresh projects the profile and writes an
	 * fsync'ed snapshot; an interval of nanoseconds asked for hundreds of
	 * them a second.
	 */
	if (!parse_double(v, &s) || !isfinite(s) || s < INJ_MIN_LIVE_S || s > 86400) {
		inj_warn("GPUPROJ_LIVE='%s' is not a number of seconds from %g to 86400; "
			 "live projection off", v, INJ_MIN_LIVE_S);
		return;
	}
	cfg->live_s = s;
}

static void
load_wait(struct inj_config *cfg)
{
	const char *v = get(cfg, "GPUPROJ_WAIT");
	double s;

	cfg->wait_s = INJ_DEFAULT_WAIT_S;
	if (!v)
		return;
	if (!parse_double(v, &s) || !isfinite(s) || s <= 0 || s > 3600) {
		inj_warn("GPUPROJ_WAIT='%s' is not a positive number of seconds (at most 3600); "
			 "using %g", v, INJ_DEFAULT_WAIT_S);
		return;
	}
	cfg->wait_s = s;
}

/*
 * GPUPROJ_MAX_INPUT_SIZE bounds the files libproj.so reads (GPUPROJ_TARGETS),
 * as it bounds the command's; the built-in targets.yaml is not a file and
 * never bounded. A bad value is one line, and the default is kept (util.c
 * would otherwise refuse every file read, the application's environment
 * deciding what gpuproj can do).
 */
static void
load_max_input(struct inj_config *cfg)
{
	const char *v = get(cfg, "GPUPROJ_MAX_INPUT_SIZE");
	uint64_t n;
	char buf[32];

	if (!v || !*v)
		return;
	if (!parse_byte_size(v, &n)) {
		inj_warn("GPUPROJ_MAX_INPUT_SIZE='%s' is not a size in bytes (a positive integer, "
			 "optionally with K, M, G or T); using %s", v,
			 format_bytes(GPUPROJ_INPUT_LIMIT_DEFAULT, buf, sizeof(buf)));
		n = GPUPROJ_INPUT_LIMIT_DEFAULT;
	}
	file_set_input_limit(n);
}

static int
load_output(struct inj_config *cfg)
{
	const char *v = get(cfg, "GPUPROJ_OUTPUT");
	char bad[8];

	if (v && !*v) {
		inj_warn("GPUPROJ_OUTPUT is empty; using %s", INJ_DEFAULT_OUTPUT);
		v = NULL;
	} else if (v && strcmp(v, "-") == 0) {
		inj_warn("GPUPROJ_OUTPUT='-' would write into the application's standard output; "
			 "using %s", INJ_DEFAULT_OUTPUT);
		v = NULL;
	} else if (v && !inj_pattern_check(v, bad)) {
		inj_warn("GPUPROJ_OUTPUT='%s' has an unknown or incomplete pattern '%s' (known: %%p "
			 "%%h %%r %%q{VAR} %%%%); using %s", v, bad, INJ_DEFAULT_OUTPUT);
		v = NULL;
	}
	cfg->output = strdup(v ? v : INJ_DEFAULT_OUTPUT);
	return cfg->output ? 0 : -1;
}

/*
 * What glibc's regcomp() and regexec() would make of a pattern before they
 * see it: back-references (a glibc extension in extended
 * expressions) make matching exponential in the name, and repetition
 * counts multiply ((x{1000}){1000} is a million copies of x: gigabytes at
 * start-up). An estimate of the compiled size: every atom counts 1, x{m,n}
 * counts x max(m, n) times (x{m,} m + 1 times), * + ? and | one more, and a
 * group the sum of what is in it. Without back-references glibc matches in
 * time proportional to the name's length times that size (a set of states
 * per character), so the bound on the size bounds the time of a match too.
 * Returns NULL when the pattern is acceptable, else why not, in `why`.
 */
#define REGEX_MAX_LEN 1024
#define REGEX_MAX_SIZE 4096

static size_t
sat_mul(size_t a, size_t b)
{
	return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

static size_t
sat_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static const char *
regex_refusal(const char *p, char *why, size_t size)
{
	struct { size_t total, last; } st[64];
	size_t depth = 0, i, len = strlen(p);

	if (len > REGEX_MAX_LEN) {
		snprintf(why, size, "it is longer than %d bytes", REGEX_MAX_LEN);
		return why;
	}
	st[0].total = st[0].last = 0;
	for (i = 0; i < len; i++) {
		size_t atom = 1;

		switch (p[i]) {
		case '\\':
			if (p[i + 1] >= '1' && p[i + 1] <= '9') {
				snprintf(why, size, "it has a back-reference (\\%c), which POSIX "
					 "extended expressions do not have and whose matching can "
					 "take time exponential in the name", p[i + 1]);
				return why;
			}
			if (p[i + 1])
				i++;
			break;
		case '[':
			/* A bracket expression is one atom ("]" first is literal; [: :] nest). */
			i++;
			if (p[i] == '^')
				i++;
			if (p[i] == ']')
				i++;
			while (p[i] && p[i] != ']') {
				char close = p[i + 1];

				if (p[i] == '[' && (close == ':' || close == '.' || close == '=')) {

					i += 2;
					while (p[i] && !(p[i] == close && p[i + 1] == ']'))
						i++;
					if (p[i])
						i++;
				}
				if (p[i])
					i++;
			}
			if (!p[i])
				i--; /* unterminated: regcomp() says so */
			break;
		case '(':
			if (depth + 1 >= ARRAY_LENGTH(st)) {
				snprintf(why, size, "it nests groups more than %zu deep",
					 ARRAY_LENGTH(st) - 1);
				return why;
			}
			depth++;
			st[depth].total = st[depth].last = 0;
			continue;
		case ')':
			if (!depth)
				break; /* unmatched: regcomp() decides */
			atom = sat_add(st[depth].total, 1);
			depth--;
			break;
		case '|':
			st[depth].total = sat_add(st[depth].total, 1);
			st[depth].last = 0;
			continue;
		case '*':
		case '+':
		case '?':
			st[depth].total = sat_add(st[depth].total, 1);
			continue;
		case '{': {
			char *end;
			unsigned long m, n;

			if (!isdigit((unsigned char)p[i + 1]))
				break; /* a literal brace, or regcomp()'s error */
			m = strtoul(p + i + 1, &end, 10);
			n = m + 1;
			if (*end == ',') {
				if (isdigit((unsigned char)end[1]))
					n = strtoul(end + 1, &end, 10);
				else
					end++;
			} else {
				n = m;
			}
			if (*end != '}')
				break;
			if (n < m)
				n = m;
			/* The preceding atom, n times in all. */
			st[depth].total = sat_add(st[depth].total,
						  sat_mul(st[depth].last, n ? n - 1 : 0));
			st[depth].last = sat_mul(st[depth].last, n);
			i = (size_t)(end - p);
			if (st[depth].total > REGEX_MAX_SIZE)
				goto too_big;
			continue;
		}
		default:
			break;
		}
		st[depth].total = sat_add(st[depth].total, atom);
		st[depth].last = atom;
		if (st[depth].total > REGEX_MAX_SIZE)
			goto too_big;
	}
	while (depth > 0) { /* unclosed groups: regcomp() says so; count what is there */
		size_t t = st[depth--].total;

		st[depth].total = sat_add(st[depth].total, t);
	}
	if (st[0].total <= REGEX_MAX_SIZE)
		return NULL;
too_big:
	snprintf(why, size, "it has more than %d elements once its repetitions are expanded "
		 "(counts multiply: (x{100}){100} is x 10000 times), too large to compile and to "
		 "match quickly", REGEX_MAX_SIZE);
	return why;
}

/*
 * Compile GPUPROJ_KERNEL_REGEX or GPUPROJ_KERNEL_EXCLUDE. false, after one
 * line ending in `fallback`, when the pattern is refused.
 */
static bool
compile_regex(const char *var, const char *v, regex_t *re, const char *fallback)
{
	char why[256];
	int r;

	if (regex_refusal(v, why, sizeof(why))) {
		inj_warn("%s='%s' is refused: %s; %s", var, v, why, fallback);
		return false;
	}
	r = regcomp(re, v, REG_EXTENDED | REG_NOSUB);
	if (r != 0) {
		char msg[256];

		regerror(r, re, msg, sizeof(msg));
		regfree(re);
		inj_warn("%s='%s' is not a POSIX extended regular expression (%s); %s", var, v, msg,
			 fallback);
		return false;
	}
	return true;
}

static int
load_regex(struct inj_config *cfg)
{
	const char *v = get(cfg, "GPUPROJ_KERNEL_REGEX");

	if (!v || !*v)
		return 0;
	if (!compile_regex("GPUPROJ_KERNEL_REGEX", v, &cfg->regex, "profiling every kernel"))
		return 0;
	cfg->has_regex = true;
	cfg->kernel_regex = strdup(v);
	return cfg->kernel_regex ? 0 : -1;
}

static int
load_exclude(struct inj_config *cfg)
{
	const char *v = get(cfg, "GPUPROJ_KERNEL_EXCLUDE");

	if (!v || !*v)
		return 0;
	if (!compile_regex("GPUPROJ_KERNEL_EXCLUDE", v, &cfg->exclude,
			   "no kernel is excluded by name (NCCL's still are)"))
		return 0;
	cfg->has_exclude = true;
	cfg->kernel_exclude = strdup(v);
	return cfg->kernel_exclude ? 0 : -1;
}

bool
inj_regex_match(const regex_t *re, const char *name)
{
	locale_t c = c_locale(), old = c ? uselocale(c) : (locale_t)0;
	bool m = regexec(re, name, 0, NULL, 0) == 0;

	if (c)
		uselocale(old);
	return m;
}

bool
inj_never_profiled(const struct inj_config *cfg, const char *name, const char **why)
{
	/*
	 * NCCL's kernels: ncclKernel_* (NCCL < 2.19) and ncclDevKernel_* (the
	 * generated declarations of NCCL 2.19+, e.g. ncclDevKernel_AllReduce_
	 * Sum_f32_RING_LL), mangled or not.
	 */
	if (strstr(name, "ncclKernel") || strstr(name, "ncclDevKernel")) {
		if (why)
			*why = "NCCL";
		return true;
	}
	if (cfg->has_exclude && inj_regex_match(&cfg->exclude, name)) {
		if (why)
			*why = "GPUPROJ_KERNEL_EXCLUDE";
		return true;
	}
	return false;
}

static void
load_bool(struct inj_config *cfg, const char *name, bool *ret)
{
	const char *v = get(cfg, name);
	int b;

	*ret = false;
	if (!v)
		return;
	b = inj_parse_bool(v);
	if (b < 0) {
		inj_warn("%s='%s' is not a boolean (1 or 0); using 0", name, v);
		return;
	}
	*ret = b == 1;
}

static int
load_cubins(struct inj_config *cfg)
{
	const char *v = get(cfg, "GPUPROJ_KEEP_CUBINS");
	int b;

	if (!v || !*v)
		return 0;
	b = inj_parse_bool(v);
	if (b == 0)
		return 0;
	cfg->keep_cubins = strdup(b == 1 ? "" : v);
	return cfg->keep_cubins ? 0 : -1;
}

static int
load_targets(struct inj_config *cfg)
{
	const char *v = get(cfg, "GPUPROJ_TARGETS");

	if (!v || !*v)
		return 0;
	cfg->targets = strdup(v);
	return cfg->targets ? 0 : -1;
}

/* Warn about GPUPROJ_* names that look like a misspelt known one. */
static void
check_unknown(void)
{
	char **e;
	size_t i;

	for (e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char name[64];
		size_t len, best_d = SIZE_MAX;
		const char *best = NULL;
		bool known = false;

		if (strncmp(*e, "GPUPROJ_", 8) != 0 || !eq)
			continue;
		len = (size_t)(eq - *e);
		if (len >= sizeof(name))
			continue;
		memcpy(name, *e, len);
		name[len] = '\0';
		for (i = 0; i < ARRAY_LENGTH(known_vars); i++) {
			size_t d;

			if (strcmp(name, known_vars[i]) == 0) {
				known = true;
				break;
			}
			d = str_distance(name, known_vars[i], 8);
			if (d < best_d) {
				best_d = d;
				best = known_vars[i];
			}
		}
		/* Other GPUPROJ_* variables belong to the gpuproj command and scripts. */
		if (!known && best && best_d <= 2)
			inj_warn("%s is not a libproj.so variable and is ignored; did you mean %s?",
				 name, best);
	}
}

int
inj_config_load(struct inj_config *cfg)
{
	int r = 0;

	memset(cfg, 0, sizeof(*cfg));
	/* GPUPROJ_LOG first, so it governs the messages about the others. */
	load_log(cfg);
	load_mode(cfg);
	load_tensor(cfg);
	load_launches(cfg);
	load_live(cfg);
	load_wait(cfg);
	load_max_input(cfg);
	r |= load_output(cfg);
	r |= load_regex(cfg);
	r |= load_exclude(cfg);
	r |= load_targets(cfg);
	r |= load_cubins(cfg);
	load_bool(cfg, "GPUPROJ_SIGNALS", &cfg->signals);
	load_bool(cfg, "GPUPROJ_PRELOAD", &cfg->preload);
	check_unknown();
	if (!cfg->output)
		cfg->output = strdup(INJ_DEFAULT_OUTPUT);
	return r || !cfg->output ? -1 : 0;
}

bool
inj_pattern_check(const char *p, char bad[8])
{
	for (; *p; p++) {
		if (*p != '%')
			continue;
		switch (p[1]) {
		case 'p':
		case 'h':
		case 'r':
		case '%':
			p++;
			break;
		case 'q':
			if (p[2] != '{' || !strchr(p + 3, '}') || p[3] == '}') {
				snprintf(bad, 8, "%%q");
				return false;
			}
			p = strchr(p + 3, '}');
			break;
		case '\0':
			snprintf(bad, 8, "%%");
			return false;
		default:
			snprintf(bad, 8, "%%%c", p[1]);
			return false;
		}
	}
	return true;
}

char *
inj_pattern_expand(const char *pattern, long pid, const char *host, long rank)
{
	struct strbuf sb;
	const char *p;
	bool has_rank_or_pid = false;

	strbuf_init(&sb);
	for (p = pattern; *p; p++) {
		if (*p != '%') {
			strbuf_appendn(&sb, p, 1);
			continue;
		}
		switch (p[1]) {
		case 'p':
			strbuf_printf(&sb, "%ld", pid);
			has_rank_or_pid = true;
			p++;
			break;
		case 'h':
			strbuf_append(&sb, host ? host : "localhost");
			p++;
			break;
		case 'r':
			strbuf_printf(&sb, "%ld", rank >= 0 ? rank : 0L);
			has_rank_or_pid = true;
			p++;
			break;
		case '%':
			strbuf_append(&sb, "%");
			p++;
			break;
		case 'q': {
			const char *end = strchr(p + 3, '}');
			char name[256];
			const char *val;
			size_t len = end ? (size_t)(end - (p + 3)) : 0;

			if (p[2] != '{' || !end || len == 0 || len >= sizeof(name)) {
				strbuf_appendn(&sb, p, 1); /* checked before; keep it literal */
				break;
			}
			memcpy(name, p + 3, len);
			name[len] = '\0';
			val = getenv(name);
			strbuf_append(&sb, val ? val : "");
			p = end;
			break;
		}
		default:
			strbuf_appendn(&sb, p, 1);
			break;
		}
	}
	if (rank >= 0 && !has_rank_or_pid && !sb.oom) {
		/* Several ranks would write one file: insert the rank before the extension. */
		char infix[24], *r;

		snprintf(infix, sizeof(infix), ".%ld", rank);
		r = inj_path_infix(sb.buf ? sb.buf : "", infix);
		strbuf_free(&sb);
		return r;
	}
	if (sb.oom) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_steal(&sb);
}

char *
inj_path_infix(const char *path, const char *infix)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');

	if (!dot || dot == base)
		return xasprintf("%s%s", path, infix);
	return xasprintf("%.*s%s%s", (int)(dot - path), path, infix, dot);
}

long
inj_mpi_rank(void)
{
	/*
	 * The launchers' own variables first (Open MPI, MPICH/Intel MPI's PMI,
	 * PMIx, MVAPICH2, Cray PALS and ALPS), then torchrun's RANK (one process
	 * per GPU under a launcher that may itself be srun), then Slurm's task
	 * number, and torchrun's LOCAL_RANK last (unique on one node only).
	 */
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK",
		"PALS_RANKID", "ALPS_APP_PE", "RANK", "SLURM_PROCID", "LOCAL_RANK",
	};
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(vars); i++) {
		const char *v = getenv(vars[i]);
		int64_t r;

		if (!v || !*v)
			continue;
		if (parse_int64(v, &r) && r >= 0 && r <= LONG_MAX)
			return (long)r;
		/* Said, not skipped in silence (%r would then expand to 0 unexplained). */
		inj_warn("%s='%s' is not an MPI rank (an integer from 0): ignored", vars[i], v);
	}
	return -1;
}
