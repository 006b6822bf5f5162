/* SPDX-License-Identifier: MIT */
/*
 * stat_bound.h: how far a sampled byte estimate may fall from the truth
 * by chance, so that a test comparing the two fails by chance less than
 * once in a given number of runs (issue 34: a fixed tolerance, "within
 * 35%", failed a clean `make check`).
 *
 * The derivation.  The samplers (samples.c for the sampled profile,
 * sites.c for GC_ACC_STACKS=sample=R) draw exponential countdowns of mean
 * R bytes: the sample points form a Poisson process of rate 1/R along
 * the bytes a thread allocates.  An object of s bytes holds a point with
 * probability p = 1 - exp(-s/R), independently of every other object
 * (disjoint stretches of a Poisson process), and a sampled object stands
 * for s/p bytes (its weight, w = 1/p).  So the estimate of B bytes is a
 * sum of independent X_i = (s_i/p_i) [object i sampled], each with mean
 * s_i (unbiased), variance s_i^2 (1 - p_i) / p_i, and |X_i - s_i| at most
 * M = max s_i/p_i <= max s_i + R.  Bernstein's inequality bounds the
 * sum's deviation t, with V the sum of the variances:
 *
 *     P(|estimate - B| >= t) <= 2 exp(-t^2 / (2 (V + M t / 3)))
 *
 * and solving 2 exp(...) = P for t gives
 *
 *     t = L M / 3 + sqrt((L M / 3)^2 + 2 L V),   L = ln(2 / P).
 *
 * No normal approximation: it holds for a handful of samples as for
 * thousands.  Since (1 - p)/p <= R/s, V <= B R: with n = B/R samples
 * expected, t/B is about sqrt(2 L / n) (at P = 1e-9, L = 21.4: 6.5 /
 * sqrt(n), 16% at 1,600 samples).  Two small terms are added: the
 * countdowns count whole granules (samples.c draws exp(R)/16 and takes
 * the sample when the count goes below zero), which moves the mean gap
 * by less than a granule, a bias of less than 16/R of B; and each
 * sample's weight in bytes is rounded to an integer, half a byte at
 * most of the R bytes or more a sample stands for (s/p >= R): less than
 * 1/R of B, with room for the deviation.
 *
 * A test divides its budget P over the figures it judges (a union
 * bound): every judged figure at P / figures, and the whole run fails by
 * chance with probability below P.
 */
#ifndef GCACC_STAT_BOUND_H
#define GCACC_STAT_BOUND_H

#include <math.h>

#define SB_GRANULE 16.0         /* the countdowns' unit (granule bytes)  */

struct sb_sum {
  double bytes;                 /* the truth, B                         */
  double var;                   /* V                                    */
  double max;                   /* M                                    */
  double objs;                  /* objects behind the figure             */
};

/* n objects of s bytes each, behind a figure sampled at mean rate R.  */
static inline void sb_add_n(struct sb_sum *a, double s, double n, double r)
{
  double p, m;

  if (s <= 0 || n <= 0) return;
  p = -expm1(-s / r);
  m = s / p;
  a->bytes += n * s;
  a->var += n * s * s * exp(-s / r) / p;
  if (m > a->max) a->max = m;
  a->objs += n;
}

static inline void sb_add(struct sb_sum *a, double s, double r)
{
  sb_add_n(a, s, 1, r);
}

/* The deviation the estimate exceeds with probability below p_fail.   */
static inline double sb_bound(const struct sb_sum *a, double r,
                              double p_fail)
{
  double l = log(2 / p_fail), b = l * a->max / 3;

  return b + sqrt(b * b + 2 * l * a->var)
         + a->bytes * (SB_GRANULE + 1) / r;
}

#endif
