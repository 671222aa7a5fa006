/* SPDX-License-Identifier: MIT */
/*
 * Configuration of libproj.so from GPUPROJ_* environment variables
 * (docs/libproj.md "Environment"). A bad value never stops anything: it
 * prints one line naming the variable and the default that is kept.
 *
 * Thread safety: inj_config_load() runs once (under pthread_once); the
 * result is read-only afterwards.
 */
#ifndef INJ_ENV_H
#define INJ_ENV_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/tensor.h>

/** What libproj.so collects (GPUPROJ_MODE). */
enum inj_mode {
	INJ_MODE_FULL = 0,	/* time every launch, profile the first N of each signature */
	INJ_MODE_TIMING = 1,	/* time every launch, collect no metrics */
	INJ_MODE_OFF = 2,	/* do nothing */
};

/** Default output pattern (GPUPROJ_OUTPUT). */
#define INJ_DEFAULT_OUTPUT "gpuproj-%p.json"
/** Default of GPUPROJ_WAIT, seconds. */
#define INJ_DEFAULT_WAIT_S 10.0
/** Shortest interval of GPUPROJ_LIVE, seconds. */
#define INJ_MIN_LIVE_S 0.1
/** Default number of profiled launches per signature (GPUPROJ_PROFILE_LAUNCHES). */
#define INJ_DEFAULT_PROFILE_LAUNCHES 1

/** One GPUPROJ_* variable as found in the environment (for the profile attributes). */
struct inj_env_echo {
	const char *name;	/* static: "GPUPROJ_MODE" */
	char *value;		/* the raw value as given (owned) */
};

struct inj_config {
	char *targets;		/* GPUPROJ_TARGETS file, NULL = built-in targets.yaml */
	char *output;		/* GPUPROJ_OUTPUT pattern (validated), never NULL */
	char *kernel_regex;	/* GPUPROJ_KERNEL_REGEX as given, NULL = every kernel */
	regex_t regex;		/* compiled kernel_regex (valid when has_regex) */
	bool has_regex;
	char *kernel_exclude;	/* GPUPROJ_KERNEL_EXCLUDE as given, NULL = none */
	regex_t exclude;	/* compiled kernel_exclude (valid when has_exclude) */
	bool has_exclude;
	unsigned profile_launches; /* GPUPROJ_PROFILE_LAUNCHES (0 = timing only) */
	enum inj_mode mode;	/* GPUPROJ_MODE */
	enum gpuproj_tensor_mode tensor; /* GPUPROJ_TENSOR */
	double live_s;		/* GPUPROJ_LIVE seconds, 0 = off */
	double wait_s;		/* GPUPROJ_WAIT: longest wait for a window or the GPU, seconds */
	int log_level;		/* enum inj_log_level from GPUPROJ_LOG */
	char *keep_cubins;	/* GPUPROJ_KEEP_CUBINS directory, "" = next to the output, NULL = off */
	bool signals;		/* GPUPROJ_SIGNALS=1: report on SIGTERM/SIGINT */
	bool preload;		/* GPUPROJ_PRELOAD=1: start from the LD_PRELOAD constructor */
	struct inj_env_echo echo[16]; /* variables that were set, for "env.GPUPROJ_*" attributes */
	size_t n_echo;
};

/*
 * Read every GPUPROJ_* variable. Bad values print one warning line each
 * (naming the variable, the value and the default kept) and keep the
 * default. Also warns about unknown GPUPROJ_* names close to a known one.
 * GPUPROJ_LOG is applied to the log sink before anything else is parsed.
 *
 * @return 0, or -1 when out of memory (defaults are then in place)
 */
int inj_config_load(struct inj_config *cfg);


/*
 * Whether a kernel is never profiled, whatever GPUPROJ_KERNEL_REGEX says:
 * GPUPROJ_KERNEL_EXCLUDE matches its mangled name, or it is one of NCCL's
 * (their kernels wait for other GPUs and ranks: under kernel replay, which
 * serialises the GPU, they would hang). `*why` (may be NULL) says which.
 */
bool inj_never_profiled(const struct inj_config *cfg, const char *name, const char **why);

/*
 * Whether `name` matches a pattern compiled from GPUPROJ_KERNEL_REGEX or
 * GPUPROJ_KERNEL_EXCLUDE, in the C locale (whatever locale the application
 * set, the pattern means what it meant when it was compiled).
 */
bool inj_regex_match(const regex_t *re, const char *name);

/* "full", "timing" or "off". */
const char *inj_mode_name(enum inj_mode mode);

/*
 * Expand an output pattern: %p pid, %h host name, %r MPI rank ("0" when no
 * rank variable is set), %q{VAR} the value of VAR ("" when unset), %% a
 * percent sign. When `rank` >= 0 and the pattern has neither %r nor %p,
 * ".<rank>" is inserted before the extension so ranks never share a file.
 *
 * @param pattern a pattern accepted by inj_pattern_check()
 * @return a malloc'd path, or NULL when out of memory
 */
char *inj_pattern_expand(const char *pattern, long pid, const char *host, long rank);

/*
 * Validate a pattern.
 * @param[out] bad on failure, the offending directive ("%z", "%q{") in a
 *             static-size buffer of 8 bytes
 * @return true when every % directive is known and complete
 */
bool inj_pattern_check(const char *pattern, char bad[8]);

/* "a/b.json" → "a/b<infix>.json"; no extension: "a/b<infix>". NULL on ENOMEM. */
char *inj_path_infix(const char *path, const char *infix);

/* GPUPROJ_* booleans: 1 for 1/yes/true/on, 0 for 0/no/false/off/"", -1 otherwise. */
int inj_parse_bool(const char *s);

/*
 * The rank of this process in its job, from the first of
 * OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK (MPICH, Intel MPI), PMIX_RANK,
 * MV2_COMM_WORLD_RANK (MVAPICH2), PALS_RANKID (Cray PALS), ALPS_APP_PE (Cray
 * ALPS), RANK (torchrun), SLURM_PROCID, LOCAL_RANK (torchrun, one node)
 * that holds a non-negative integer; -1 if none. A variable set to
 * anything else (RANK=abc) is ignored with one line naming it and its
 * value, and the next one is looked at; an empty one is taken as unset.
 */
long inj_mpi_rank(void);

#endif
