/* SPDX-License-Identifier: MIT */
/*
 * test_stale_context.c: the collector does not take the words an
 * earlier call left on the stack for registers (issue 36, the heap's
 * drift; bdwgc/patches/0005-clear-register-context.patch).
 *
 * Before it scans the collecting thread's stack the collector saves the
 * registers there, in a ucontext_t that getcontext() fills only in part
 * (on Linux/x86_64 some 90 of its 120 words are left as they were).  The
 * test collects once with a collection-event callback that, as marking
 * starts, fills 32 KiB of stack below the collector's frame with the
 * addresses of as many objects, one word each, that nothing else refers
 * to (their disappearing links are in malloc's memory, which is not
 * scanned), and returns: the frames that save the registers and scan
 * the stack come next, in that stack.  Words of those frames that
 * nobody writes keep their objects; a conservative collector keeps some
 * (its frames' padding and unused slots: 30 on Linux/x86_64 with the
 * fix), but not the whole unwritten context (130 without it).  At most
 * LIMIT may be kept.
 */
#include "../check.h"

#include <stdlib.h>

#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"

#define K 4096          /* words of stack filled, one object each */
#define LIMIT 64

static void **links;    /* malloc'd: not a root */

static void __attribute__((noinline)) make(void)
{
  int i;

  for (i = 0; i < K; i++) {
    void *p = GC_MALLOC(32);

    if (!CHECK(p != NULL)) exit(1);
    links[i] = p;
    if (!CHECK(GC_general_register_disappearing_link(&links[i], p)
               == GC_SUCCESS)) exit(1);
  }
}

/* Leaves the objects' addresses in the stack below the caller's frame. */
static void __attribute__((noinline)) fill(void)
{
  void *volatile buf[K];
  int i;

  for (i = 0; i < K; i++) buf[i] = links[i];
}

static void on_event(GC_EventType e)
{
  if (GC_EVENT_MARK_START == e) fill();
}

int main(void)
{
  int i, kept = 0;

  GC_INIT();
  links = malloc(sizeof(void *) * K);
  if (!CHECK(links != NULL)) return check_done("test_stale_context");
  make();
  GC_set_on_collection_event(on_event);
  GC_gcollect();
  GC_set_on_collection_event(0);
  for (i = 0; i < K; i++)
    if (links[i] != NULL) kept++;
  printf("%d of %d objects whose addresses were left on the stack"
         " kept\n", kept, K);
  if (!CHECK(kept <= LIMIT))
    fprintf(stderr, "test_stale_context: the collector scans %d stale"
            " stack words as roots (at most %d expected)\n", kept, LIMIT);
  return check_done("test_stale_context");
}
