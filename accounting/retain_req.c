/* SPDX-License-Identifier: MIT */
/*
 * retain_req.c: a retention request (GC_acc_retain_request,
 * GC_acc_retain_site, GC_ACC_RETAIN=type:NAME): what it asks for and
 * at which collection, and at that collection's end the walk that
 * answers it (retain.c).  GC_ACC_RETAIN=auto's requests are
 * retain_auto.c's.  Lock held.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include "gca_retain.h"

#include <string.h>

#define RETAIN_NAME_MAX GCA_RETAIN_NAME_MAX

static int retain_pending = 0;
static word retain_at_gc = 0;           /* 0: the next collection       */
static char retain_name[RETAIN_NAME_MAX];
static word retain_cookie = 0;          /* when retain_name is ""       */
static int retain_wait_type = 0;        /* GC_ACC_RETAIN: until it exists */
static int retain_site = 0;             /* retain_cookie is a site id  */

/* At a collection's mark begin: its marking records parents if the   */
/* request will be answered at its end (retain_mark.c).                */
GC_INNER void gca_retain_mark_begin(void)
{
  word cookies[GCA_RETAIN_MAX_COOKIES];

  if (EXPECT(!retain_pending, TRUE)) return;
  if (retain_at_gc != 0 && GC_gc_no + 1 < retain_at_gc) return;
  if (!gca_dump_is_open()) return;
  if (retain_name[0] != '\0' && retain_wait_type
      && 0 == gca_types_named(retain_name, cookies, GCA_RETAIN_MAX_COOKIES))
    return;
  gca_rmark_begin();
}

static void retain_answer(void)
{
  word cookies[GCA_RETAIN_MAX_COOKIES];
  unsigned n;

  if (retain_at_gc != 0 && GC_gc_no < retain_at_gc) return;
  if (!gca_dump_is_open()) {
    if (!retain_wait_type) retain_pending = 0;
    return;
  }
  n = retain_name[0] != '\0'
      ? gca_types_named(retain_name, cookies, GCA_RETAIN_MAX_COOKIES)
      : (cookies[0] = retain_cookie, 1);
  /* The environment's request waits for its type to be counted.      */
  if (0 == n && retain_wait_type) return;
  retain_pending = 0;
  retain_wait_type = 0;
  gca_retain_walk(retain_name[0] != '\0' ? retain_name : NULL,
                  retain_cookie, cookies, n, retain_site ? 2 : 0);
}

GC_INNER void gca_retain_collection_end(void)
{
  gca_rmark_stop();             /* a recording (if any) is this one's */
  if (EXPECT(retain_pending, FALSE)) retain_answer();
  gca_rmark_release();
}

GC_INNER int gca_retain_set(const char *name, word cookie, word at_gc,
                            int flags)
{
  size_t n = name != NULL ? strlen(name) : 0;

  if (name != NULL ? 0 == n || n >= RETAIN_NAME_MAX : 0 == cookie) return 0;
  if (name != NULL) BCOPY(name, retain_name, n + 1);
  else retain_name[0] = '\0';
  retain_cookie = name != NULL ? 0 : cookie;
  retain_at_gc = at_gc;
  retain_pending = 1;
  retain_wait_type = (flags & GCA_RETAIN_WAIT) != 0;
  retain_site = (flags & GCA_RETAIN_SITE) != 0;
  return 1;
}

GC_INNER word gca_retain_requests(void)        /* 1: one waits       */
{
  return (word)retain_pending;
}

#endif /* !GC_ACC_DISABLE */
