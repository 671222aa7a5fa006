/* SPDX-License-Identifier: MIT */
/*
 * Running statistics of launch durations (struct gpuproj_stats,
 * include/gpuproj/profile.h): Welford's update and Chan et al.'s merge of
 * two sets. Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>

#include <gpuproj/profile.h>

/* ---- statistics ---- */

void
gpuproj_stats_add(struct gpuproj_stats *s, double x)
{
	double d;

	if (s->n == 0) {
		s->min = s->max = x;
	} else {
		if (x < s->min)
			s->min = x;
		if (x > s->max)
			s->max = x;
	}
	s->n++;
	s->sum += x;
	d = x - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * (x - s->mean);
}

void
gpuproj_stats_merge(struct gpuproj_stats *a, const struct gpuproj_stats *b)
{
	double n, d;

	if (b->n == 0)
		return;
	if (a->n == 0) {
		*a = *b;
		return;
	}
	n = (double)a->n + (double)b->n;
	d = b->mean - a->mean;
	a->m2 += b->m2 + d * d * (double)a->n * (double)b->n / n;
	a->mean = (a->sum + b->sum) / n;
	a->sum += b->sum;
	if (b->min < a->min)
		a->min = b->min;
	if (b->max > a->max)
		a->max = b->max;
	a->n += b->n;
}

double
gpuproj_stats_stddev(const struct gpuproj_stats *s)
{
	if (s->n < 2)
		return 0.0;
	return sqrt(s->m2 / (double)(s->n - 1));
}

