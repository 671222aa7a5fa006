/* SPDX-License-Identifier: MIT */
/*
 * What the libFuzzer harnesses of tests/fuzz share (docs/internals/fuzzing.md):
 * feeding bytes to parsers that take a path, and the oracle of everything
 * that builds a profile: whatever a parser accepts must be a profile that
 * gpuproj writes, that loads back, and that means the same thing.
 *
 * An oracle failure prints why and abort()s, which libFuzzer reports as a
 * crash and saves as a reproducer.
 */
#ifndef GPUPROJ_FUZZ_COMMON_H
#define GPUPROJ_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuproj/profile.h>

/* Print "fuzz oracle: " and the message to stderr, then abort(). */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Equal strings, both NULL included; equal numbers, both NaN included. */
bool fuzz_same_str(const char *a, const char *b);
bool fuzz_same_num(double a, double b);

/*
 * A path that reads back `data` (a memfd, /proc/self/fd/N, rewritten on
 * each call): the parsers under test open files by name, and the disk
 * must not slow fuzzing down. The path stays valid until the next call.
 */
const char *fuzz_file(const uint8_t *data, size_t size);

/*
 * `len` bytes of text for a terminal or a log hold no control
 * character but the line feed (C0, DEL, C1) and no bidirectional control.
 */
void fuzz_check_terminal(const char *text, size_t len, const char *what);
/*
 * No cell of the first `n_text_columns` columns of a CSV text
 * begins, as a spreadsheet reads it, with = + - @ TAB or CR (a formula).
 */
void fuzz_check_csv(const char *text, size_t len, size_t n_text_columns, const char *what);

/*
 * Fail unless two profiles are the same (the equality of
 * fuzz_check_profile()); `round_trip`: b is a written and reloaded, which
 * gets gpuproj's tool version where a had none.
 */
void fuzz_compare_profiles(const struct gpuproj_profile *a, const struct gpuproj_profile *b,
			   bool round_trip, const char *what);

/*
 * The profile oracle: `p` (accepted by a parser) passes
 * gpuproj_profile_validate(), is written as JSON, loads back, and the
 * loaded profile equals `p` (every string byte for byte, every count and
 * duration exactly, metric and extra-metric means to within 4 units in the
 * last place: they are kept as sums, docs/formats/profile.md); writing the
 * loaded profile and loading that again gives identical text. And, projected
 * between two built-in GPUs, its table passes fuzz_check_terminal() and its
 * CSV's kernel and tag cells fuzz_check_csv().
 */
void fuzz_check_profile(const struct gpuproj_profile *p, const char *what);

struct gpuproj_targets;
/*
 * The oracle of the analytic importers (xla-matmul,
 * kerneltuner) besides the round trip: every launch of every kernel has
 * its time (launches = timed launches), every time is inside
 * [IMPORT_MIN_DURATION_NS, IMPORT_MAX_DURATION_NS], every launch inside
 * CUDA's limits (import_launch_ok()), and the FLOP of each precision over
 * the kernel's shortest time no faster than import_rate_bound() allows.
 */
void fuzz_check_analytic(const struct gpuproj_profile *p, const struct gpuproj_targets *targets,
			 const char *what);

struct gpuproj_error;
struct gpuproj_profile;
/* A data-set importer: gpuproj_import_gpuperfpredict() and its siblings (import.h). */
typedef int (*fuzz_import_fn)(const char *const *paths, size_t n_paths,
			      const struct gpuproj_targets *targets,
			      struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			      struct gpuproj_error *reterr);
/*
 * One fuzz input through `import` as one file: every profile of an
 * accepted file passes fuzz_check_profile() and, with `analytic`,
 * fuzz_check_analytic(); a refused file is fine. Frees what it imported.
 */
void fuzz_import_file(fuzz_import_fn import, const uint8_t *data, size_t size,
		      const struct gpuproj_targets *targets, bool analytic, const char *what);

#endif
