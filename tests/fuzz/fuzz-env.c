/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the GPUPROJ_* environment of libproj.so
 * (inj_config_load(), inject/env.c, with inject/log.c; nothing else of
 * inject/ and no CUDA).
 *
 * Input: NUL-separated NAME=VALUE records, as in /proc/PID/environ. A name
 * that is not a GPUPROJ_* variable, an MPI rank variable (inj_mpi_rank())
 * or FUZZ_* (for %q{FUZZ_…} in output patterns) gets "GPUPROJ_" put in
 * front, so the fuzzer never changes the sanitizers' own variables.
 *
 * Oracle: the configuration is in its documented ranges (a valid output
 * pattern that expands, profiled launches ≤ 10^6, live interval 0 or in
 * [0.1, 86400] s, a known mode and log level, kernel regexes of at most
 * 1,024 bytes); its log lines safe on a terminal; written back as canonical
 * variables it loads as the same configuration; and the echoed variables,
 * kept as profile attributes (the injection writes them so), survive the
 * profile round trip byte for byte (fuzz_check_profile()).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>

#include <gpuproj/profile.h>

#include "env.h"
#include "fuzz-common.h"
#include "log.h"
#include "util.h"

extern char **environ;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const rank_vars[] = {
	"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK", "PALS_RANKID",
	"ALPS_APP_PE", "RANK", "SLURM_PROCID", "LOCAL_RANK",
};

static bool
allowed(const char *name)
{
	size_t i;

	if (strncmp(name, "GPUPROJ_", 8) == 0 || strncmp(name, "FUZZ_", 5) == 0)
		return true;
	for (i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]); i++) {
		if (strcmp(name, rank_vars[i]) == 0)
			return true;
	}
	return false;
}

/* Remove every variable the harness may have set. */
static void
clear_env(void)
{
	char **e;
	bool again = true;

	while (again) {
		again = false;
		for (e = environ; e && *e; e++) {
			const char *eq = strchr(*e, '=');
			char name[256];
			size_t len = eq ? (size_t)(eq - *e) : strlen(*e);

			if (len >= sizeof(name))
				continue;
			memcpy(name, *e, len);
			name[len] = '\0';
			if (allowed(name)) {
				unsetenv(name);
				again = true; /* environ changed under us */
				break;
			}
		}
	}
}

static void
config_free(struct inj_config *c)
{
	size_t i;

	free(c->targets);
	free(c->output);
	free(c->kernel_regex);
	free(c->kernel_exclude);
	free(c->keep_cubins);
	if (c->has_regex)
		regfree(&c->regex);
	if (c->has_exclude)
		regfree(&c->exclude);
	for (i = 0; i < c->n_echo; i++)
		free(c->echo[i].value);
	memset(c, 0, sizeof(*c));
}

/*
 * inj_config_load() with its warnings (one line per bad value) kept in a
 * memfd, not shown; they quote the values as given, so they must be safe
 * on a terminal (escaped by log.c).
 */
static int
load_quietly(struct inj_config *c)
{
	static int mem = -1;
	int saved = dup(STDERR_FILENO), r;
	char buf[1 << 16];
	ssize_t n;

	if (mem < 0)
		mem = memfd_create("gpuproj-fuzz-log", MFD_CLOEXEC);
	if (mem >= 0 && ftruncate(mem, 0) == 0 && lseek(mem, 0, SEEK_SET) == 0)
		dup2(mem, STDERR_FILENO);
	r = inj_config_load(c);
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	if (mem >= 0 && (n = pread(mem, buf, sizeof(buf), 0)) > 0)
		fuzz_check_terminal(buf, (size_t)n, "libproj.so's log lines");
	/* GPUPROJ_MAX_INPUT_SIZE sets the process's limit: back to the default for the next input. */
	file_set_input_limit(0);
	return r;
}

static void
check_ranges(const struct inj_config *c)
{
	char bad[8];
	char *path;

	if (!c->output || !inj_pattern_check(c->output, bad))
		fuzz_fail("output pattern '%s' is not valid", c->output ? c->output : "(null)");
	path = inj_pattern_expand(c->output, 4242, "host", inj_mpi_rank());
	if (!path)
		fuzz_fail("output pattern '%s' does not expand", c->output);
	free(path);
	if (c->profile_launches > 1000000)
		fuzz_fail("GPUPROJ_PROFILE_LAUNCHES %u", c->profile_launches);
	if (!(c->live_s == 0 || (c->live_s >= INJ_MIN_LIVE_S && c->live_s <= 86400)))
		fuzz_fail("GPUPROJ_LIVE %g", c->live_s);
	if (c->kernel_regex && strlen(c->kernel_regex) > 1024)
		fuzz_fail("GPUPROJ_KERNEL_REGEX of %zu bytes accepted", strlen(c->kernel_regex));
	if (c->kernel_exclude && strlen(c->kernel_exclude) > 1024)
		fuzz_fail("GPUPROJ_KERNEL_EXCLUDE of %zu bytes accepted", strlen(c->kernel_exclude));
	if (c->mode != INJ_MODE_FULL && c->mode != INJ_MODE_TIMING && c->mode != INJ_MODE_OFF)
		fuzz_fail("GPUPROJ_MODE %d", (int)c->mode);
	if (c->log_level < INJ_LOG_DEBUG || c->log_level > INJ_LOG_ERROR)
		fuzz_fail("GPUPROJ_LOG %d", c->log_level);
	if (c->has_regex != (c->kernel_regex != NULL))
		fuzz_fail("GPUPROJ_KERNEL_REGEX compiled but not kept, or the other way round");
}

/* The configuration as canonical variables. */
static void
export_canonical(const struct inj_config *c)
{
	static const char *const levels[] = { "debug", "info", "warn", "error" };
	char buf[64];

	setenv("GPUPROJ_MODE", inj_mode_name(c->mode), 1);
	snprintf(buf, sizeof(buf), "%u", c->profile_launches);
	setenv("GPUPROJ_PROFILE_LAUNCHES", buf, 1);
	if (c->live_s > 0) {
		snprintf(buf, sizeof(buf), "%.17g", c->live_s);
		setenv("GPUPROJ_LIVE", buf, 1);
	}
	setenv("GPUPROJ_LOG", levels[c->log_level], 1);
	setenv("GPUPROJ_OUTPUT", c->output, 1);
	if (c->kernel_regex)
		setenv("GPUPROJ_KERNEL_REGEX", c->kernel_regex, 1);
	if (c->targets)
		setenv("GPUPROJ_TARGETS", c->targets, 1);
	if (c->keep_cubins)
		setenv("GPUPROJ_KEEP_CUBINS", *c->keep_cubins ? c->keep_cubins : "1", 1);
	setenv("GPUPROJ_SIGNALS", c->signals ? "1" : "0", 1);
	setenv("GPUPROJ_PRELOAD", c->preload ? "1" : "0", 1);
}


static void
compare(const struct inj_config *a, const struct inj_config *b)
{
	if (!fuzz_same_str(a->targets, b->targets) || !fuzz_same_str(a->output, b->output) ||
	    !fuzz_same_str(a->kernel_regex, b->kernel_regex) || a->has_regex != b->has_regex ||
	    a->profile_launches != b->profile_launches || a->mode != b->mode ||
	    a->live_s != b->live_s || a->log_level != b->log_level ||
	    !fuzz_same_str(a->keep_cubins, b->keep_cubins) || a->signals != b->signals ||
	    a->preload != b->preload)
		fuzz_fail("the configuration, written back as variables, loads differently");
}

/* The echoed variables as the injection keeps them: "env.NAME" attributes of the profile. */
static void
check_echo(const struct inj_config *c)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	size_t i;

	if (!p)
		return;
	for (i = 0; i < c->n_echo; i++) {
		char key[64];

		snprintf(key, sizeof(key), "env.%s", c->echo[i].name);
		if (gpuproj_profile_set_attr(p, key, c->echo[i].value)) {
			gpuproj_profile_free(p);
			return;
		}
	}
	fuzz_check_profile(p, "environment echo");
	gpuproj_profile_free(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inj_config a, b;
	const char *p = (const char *)data, *end = p + size;

	clear_env();
	while (p < end) {
		const char *rec_end = memchr(p, '\0', (size_t)(end - p));
		size_t len = rec_end ? (size_t)(rec_end - p) : (size_t)(end - p);
		const char *eq = memchr(p, '=', len);

		if (eq && eq > p && (size_t)(eq - p) < 200) {
			char name[256], *value = strndup(eq + 1, len - (size_t)(eq - p) - 1);

			snprintf(name, sizeof(name), "%.*s", (int)(eq - p), p);
			if (!allowed(name))
				snprintf(name, sizeof(name), "GPUPROJ_%.*s", (int)(eq - p), p);
			if (value && !strchr(name, '='))
				setenv(name, value, 1);
			free(value);
		}
		p += len + 1;
	}
	if (load_quietly(&a)) {
		config_free(&a);
		clear_env();
		return 0;
	}
	check_ranges(&a);
	check_echo(&a);
	clear_env();
	export_canonical(&a);
	if (load_quietly(&b) == 0) {
		check_ranges(&b);
		compare(&a, &b);
	}
	config_free(&a);
	config_free(&b);
	clear_env();
	return 0;
}
