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
 * The profile oracle: `p` (accepted by a parser) passes
 * gpuproj_profile_validate(), is written as JSON, loads back, and the
 * loaded profile equals `p` (every string byte for byte, every count and
 * duration exactly, metric and extra-metric means to within 4 units in the
 * last place: they are kept as sums, docs/formats/profile.md); writing the
 * loaded profile and loading that again gives identical text.
 */
void fuzz_check_profile(const struct gpuproj_profile *p, const char *what);

#endif
