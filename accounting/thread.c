/* SPDX-License-Identifier: MIT */
/*
 * thread.c: threads of accounting's own, which the collector never knows.
 *
 * The dump's writer is not a thread of the program and must stay unknown
 * to the collector: it never touches the GC heap, and a thread the
 * collector knows must answer its stop-the-world signals, which such a
 * thread blocks (all of them: no handler of the program, nor a
 * process-directed signal, ever lands on it, and a write past a file-
 * size limit or to a closed pipe gives it an error, not SIGXFSZ or
 * SIGPIPE).  And mutexes that note which thread holds them, so that a
 * path that must never hang (a dump's stop at exit) never waits on its
 * own thread.  Shared services (docs/design.md, "Layers").
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifndef GCA_WIN32  /* Windows: below, and gca_win.h */

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#if defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__)
# include <dlfcn.h>
#endif

/* On Linux bdwgc wraps pthread_create itself (GC_USE_DLOPEN_WRAP), so a  */
/* plain call from inside libgc would register the writer; take the next */
/* definition, the C library's, as bdwgc's own wrapper does.              */
typedef int (*thread_create_t)(pthread_t *, const pthread_attr_t *,
                                     void *(*)(void *), void *);

typedef int (*thread_join_t)(pthread_t, void **);

/* The C library's definition of name, or NULL (then the caller uses    */
/* the plain symbol: no wrapper exists to avoid).                        */
static void *thread_libc_symbol(const char *name)
{
# if defined(RTLD_NEXT)
    return dlsym(RTLD_NEXT, name);
# else
    (void)name;
    return NULL;
# endif
}

static int thread_real_create(pthread_t *t, const pthread_attr_t *a,
                                    void *(*fn)(void *), void *arg)
{
  static thread_create_t real = NULL;

  if (NULL == real) {
    /* POSIX's way to turn dlsym's void * into a function pointer.      */
    void *sym = thread_libc_symbol("pthread_create");

    memcpy(&real, &sym, sizeof(real));
  }
# ifdef pthread_create
#   undef pthread_create  /* the redirect macro: take the libc function */
# endif
  if (NULL == real) real = pthread_create;
  return real(t, a, fn, arg);
}

/* Likewise for the join: with the collector's wrappers in force         */
/* (per-file builds see gc_pthread_redirects.h), pthread_join would be    */
/* GC_pthread_join, which looks the writer up among the collector's       */
/* threads and does not find it.                                          */
static int thread_real_join(pthread_t t, void **ret)
{
  static thread_join_t real = NULL;

  if (NULL == real) {
    void *sym = thread_libc_symbol("pthread_join");

    memcpy(&real, &sym, sizeof(real));
  }
# ifdef pthread_join
#   undef pthread_join  /* the redirect macro: take the libc function */
# endif
  if (NULL == real) real = pthread_join;
  return real(t, ret);
}

GC_INNER int gca_thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
  sigset_t all, old;
  int err;

  (void)sigfillset(&all);
  (void)pthread_sigmask(SIG_SETMASK, &all, &old);
  err = thread_real_create(t, NULL, fn, arg);
  (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
  return err;
}

GC_INNER int gca_thread_join(pthread_t t)
{
  return thread_real_join(t, NULL);
}

#else /* GCA_WIN32 */

/* Windows: bdwgc's gc.h turns CreateThread into GC_CreateThread when   */
/* GC_THREADS is on (and _beginthreadex into GC_beginthreadex), which    */
/* would register the writer: call kernel32's.  A thread the collector */
/* does not know is never suspended by it, and must (and does) never   */
/* touch the GC heap.  No signals to block.  One start at a time       */
/* (writer.c's dump_ctl), so one slot carries the function.            */
# undef CreateThread
# undef _beginthreadex

static struct { void *(*fn)(void *); void *arg; } thread_win_start;

static DWORD WINAPI thread_win_main(LPVOID unused)
{
  (void)unused;
  (void)thread_win_start.fn(thread_win_start.arg);
  return 0;
}

GC_INNER int gca_thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
  thread_win_start.fn = fn;
  thread_win_start.arg = arg;
  t->h = CreateThread(NULL, 0, thread_win_main, NULL, 0, &t->id);
  if (NULL == t->h) return EAGAIN;
  return 0;
}

GC_INNER int gca_thread_join(pthread_t t)
{
  DWORD r = WaitForSingleObject(t.h, INFINITE);

  (void)CloseHandle(t.h);
  return WAIT_OBJECT_0 == r ? 0 : EINVAL;
}

#endif /* GCA_WIN32 */

/* ---- mutexes that note their holder ------------------------------------ */

GC_INNER int gca_noted_trylock(struct gca_noted_mutex *m)
{
  if (pthread_mutex_trylock(&m->mu) != 0) return 0;
  m->owner = pthread_self();
  GCA_STORE(&m->held, 1);
  return 1;
}

GC_INNER void gca_noted_lock(struct gca_noted_mutex *m)
{
  (void)pthread_mutex_lock(&m->mu);
  m->owner = pthread_self();
  GCA_STORE(&m->held, 1);
}

/* Never waits on a holder that may never let go: not at all if it is  */
/* this thread (a signal handler that called exit() interrupted it     */
/* inside), at most ms for another (or for this one caught between its */
/* lock and its note).                                                   */
GC_INNER int gca_noted_lock_bounded(struct gca_noted_mutex *m, unsigned ms)
{
  uint64_t deadline = gca_now_ns() + (uint64_t)ms * 1000000u;

  for (;;) {
    struct timespec nap = { 0, 200000 };

    if (gca_noted_trylock(m)) return 1;
    if (GCA_LOAD(&m->held) && pthread_equal(m->owner, pthread_self()))
      return 0;
    if (gca_now_ns() >= deadline) return 0;
    (void)nanosleep(&nap, NULL);
  }
}

GC_INNER void gca_noted_unlock(struct gca_noted_mutex *m)
{
  GCA_STORE(&m->held, 0);
  (void)pthread_mutex_unlock(&m->mu);
}

GC_INNER void gca_noted_reinit(struct gca_noted_mutex *m)
{
  (void)pthread_mutex_init(&m->mu, NULL);
  m->held = 0;
}

#endif
