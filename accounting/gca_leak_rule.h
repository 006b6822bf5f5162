/* SPDX-License-Identifier: MIT */
/*
 * gca_leak_rule.h: the constants of `gcacc leaks`'s rules (the reader,
 * tools/gcacc/leaks.c, rules 1-9 at its top) that the collector's
 * GC_ACC_RETAIN=auto (accounting/retain_auto.c) applies too, in one
 * place: the two cannot share code (the collector does not link the
 * reader), so they share these.  Only #defines: the reader includes it.
 */
#ifndef GCA_LEAK_RULE_H
#define GCA_LEAK_RULE_H

#define GCA_LEAK_WINDOWS 10             /* W = min(10, censuses)        */
#define GCA_LEAK_MIN_GROWTH (64 * 1024ULL)      /* rule 3, bytes        */
#define GCA_LEAK_MIN_OLD_SHARE 0.25     /* rule 6                       */
#define GCA_LEAK_OLD_BIN 3              /* rule 6: age bins 4-7 and up  */
#define GCA_LEAK_MIN_RISES_PCT 70       /* rule 4: of the W - 1 steps   */
#define GCA_LEAK_MIN_COLLECTIONS 10     /* no verdict below (default)   */

#endif
