/* SPDX-License-Identifier: MIT */
/*
 * test_sample_math.c: the two functions sampling draws on (base.c),
 * against the loops they replaced, on seeded streams.
 *
 * gca_rng_exp (the bytes to the next sample point: -ln u times the mean,
 * truncated) evaluates its series by Horner's rule now, which rounds
 * differently from the loop's divisions by an ulp or two: the countdowns
 * it draws must be the loop's, to the byte, for every draw of the
 * streams below, and -ln u within 4 ulps (of 1 below 1).  gca_one_minus_exp_neg (a
 * sample's weight 1 / (1 - e^-x)) stops its series at the first term
 * too small to change the sum: its results, and the weights the records
 * print (objects rounded at random, bytes to the nearest), must be the
 * loop's bit for bit.  Built with the collector's private headers and
 * base.c itself.
 */
#include "../../accounting/base.c"

#include <string.h>
#include "../check.h"

/* The earlier loops, as they were.                                     */
static double old_neg_log(double u)
{
  union { double d; unsigned long long b; } v;
  double m, t, t2, sum, term;
  int e, k;

  v.d = u;
  e = (int)((v.b >> 52) & 0x7ff) - 1023;
  v.b = (v.b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
  m = v.d;
  t = (m - 1) / (m + 1);
  t2 = t * t;
  sum = 0;
  term = t;
  for (k = 1; k <= 25; k += 2) {
    sum += term / k;
    term *= t2;
  }
  return -(e * 0.69314718055994530942 + 2 * sum);
}

static double old_one_minus_exp_neg(double x)
{
  double sum = 0, term = x;
  int k;

  if (x >= 0.5) return gca_one_minus_exp_neg(x);        /* unchanged */
  for (k = 1; k <= 16; k++) {
    sum += term;
    term *= -x / (k + 1);
  }
  return sum;
}

static signed_word old_rng_exp(unsigned long long *st, word mean)
{
  double lim = (double)(~(word)0 >> 3);
  double d = old_neg_log(gca_rng_unit(st)) * (double)mean;

  return d >= lim ? (signed_word)lim : (signed_word)d;
}

static int same_bits(double a, double b)
{
  return 0 == memcmp(&a, &b, sizeof(a));
}

/* Countdowns of n draws at each mean, from one seed for both.          */
static void draws(unsigned long long seed, word mean, unsigned long n)
{
  unsigned long long a = seed, b = seed, c = seed;
  unsigned long i, differ = 0, far = 0;

  for (i = 0; i < n; i++) {
    double u = gca_rng_unit(&c);
    double lo = base_neg_log(u), ref = old_neg_log(u);
    /* 4 ulps of the larger of the result and e ln 2 (for u just under  */
    /* a power of two both cancel: e ln 2 against the series).           */
    double tol = 4 * 2.220446049250313e-16 * (ref > 1 ? ref : 1);

    if (gca_rng_exp(&a, mean) != old_rng_exp(&b, mean)) differ++;
    if (lo - ref > tol || ref - lo > tol) far++;
  }
  CHECK_EQ(differ, 0);
  CHECK_EQ(far, 0);
  CHECK_EQ(a, b);                       /* the streams stayed together */
}

/* Edge values of u: 1 (-ln 1 = 0), the smallest the stream gives,     */
/* powers of two and their neighbours (the reduction's ends).            */
static void edges(void)
{
  double u;
  int e;

  CHECK(same_bits(base_neg_log(1.0), old_neg_log(1.0)));
  CHECK(base_neg_log(1.0) == 0);
  u = 1.0 / 9007199254740992.0;
  CHECK(base_neg_log(u) - old_neg_log(u) < 1e-13
        && old_neg_log(u) - base_neg_log(u) < 1e-13);
  for (e = 1; e < 53; e++) {
    union { double d; unsigned long long b; } v;
    double ref;

    v.d = 1.0;
    v.b -= (unsigned long long)e << 52;         /* 2^-e                  */
    ref = old_neg_log(v.d);
    CHECK(base_neg_log(v.d) - ref < 4e-16 * ref
          && ref - base_neg_log(v.d) < 4e-16 * ref);
    v.b--;                                      /* just under            */
    ref = old_neg_log(v.d);
    CHECK(base_neg_log(v.d) - ref < 4e-16 * ref
          && ref - base_neg_log(v.d) < 4e-16 * ref);
  }
}

/* A sample's weights as samples.c forms them, new and old, from one  */
/* stream: granted bytes s at rate.                                      */
static void weights(unsigned long long seed, word rate, unsigned long n)
{
  unsigned long long st = seed;
  unsigned long i, differ = 0, objs = 0, bytes = 0;

  for (i = 0; i < n; i++) {
    /* Granted bytes: granules of every small size, then large ones.   */
    word s = i % 4 != 3 ? 16 * (1 + gca_rng_next(&st) % 128)
                        : 4096 * (1 + gca_rng_next(&st) % 4096);
    double x = (double)s / (double)rate;
    double f = gca_one_minus_exp_neg(x), g = old_one_minus_exp_neg(x);
    double w = 1.0 / f, v = 1.0 / g, coin = gca_rng_unit(&st);
    word wo = (word)w, vo = (word)v;

    if (!same_bits(f, g)) differ++;
    if (coin <= w - (double)wo) wo++;
    if (coin <= v - (double)vo) vo++;
    if (wo != vo) objs++;
    if ((word)((double)s * w + 0.5) != (word)((double)s * v + 0.5)) bytes++;
  }
  CHECK_EQ(differ, 0);
  CHECK_EQ(objs, 0);
  CHECK_EQ(bytes, 0);
}

/* x spread over (0, 0.5), bit patterns at random: every term count.    */
static void small_x(unsigned long long seed, unsigned long n)
{
  unsigned long long st = seed;
  unsigned long i, differ = 0;

  for (i = 0; i < n; i++) {
    double x = 0.5 * gca_rng_unit(&st);
    int sh = (int)(gca_rng_next(&st) % 60);

    while (sh-- > 0) x *= 0.5;
    if (!same_bits(gca_one_minus_exp_neg(x), old_one_minus_exp_neg(x)))
      differ++;
  }
  CHECK_EQ(differ, 0);
  CHECK(same_bits(gca_one_minus_exp_neg(0.49999999999999994),
                  old_one_minus_exp_neg(0.49999999999999994)));
  CHECK(same_bits(gca_one_minus_exp_neg(0x1p-1074),
                  old_one_minus_exp_neg(0x1p-1074)));
}

int main(void)
{
  static const word means[] = { 512 * 1024, 4096, 64 * 1024 * 1024, 1, 16 };
  unsigned i;

  for (i = 0; i < sizeof(means) / sizeof(means[0]); i++)
    draws(0x9E3779B97F4A7C15ULL + i, means[i], 1000000);
  edges();
  for (i = 0; i < sizeof(means) / sizeof(means[0]); i++)
    weights(0xD1B54A32D192ED03ULL + i, means[i], 300000);
  small_x(0x2545F4914F6CDD1DULL, 1000000);
  return check_done("test_sample_math");
}
