/* SPDX-License-Identifier: MIT */
/*
 * gca_win.h: the few POSIX thread, time and process calls of the dump
 * (thread.c, writer.c, header.c), on Win32's own primitives, for
 * Windows (not Cygwin) with any compiler: mingw-w64 gcc, clang, MSVC.
 * No winpthreads (MSVC has none): a mutex is an SRW lock, a condition a
 * CONDITION_VARIABLE, a thread its handle and id.
 *
 * Included by gca_priv.h on Windows only.  It includes every system
 * header that declares one of the names it maps first, and the amalgam
 * includes accounting after all of the collector, so its macros rename
 * only accounting's own calls.
 */
#ifndef GCA_WIN_H
#define GCA_WIN_H

#ifndef WIN32_LEAN_AND_MEAN
# define WIN32_LEAN_AND_MEAN 1
#endif
#include <windows.h>
#include <errno.h>
#include <process.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>

#ifndef ETIMEDOUT
# define ETIMEDOUT 138
#endif
#ifndef CLOCK_REALTIME
# define CLOCK_REALTIME 0
#endif
#if !defined(__MINGW32__) && !defined(__CYGWIN__)
  typedef int gca_win_pid_t;
# define pid_t gca_win_pid_t
#endif

typedef SRWLOCK gca_win_mutex_t;
typedef CONDITION_VARIABLE gca_win_cond_t;
/* h: the handle a create returns (joined, then closed); NULL for       */
/* pthread_self's.  Threads are the same when their ids are.             */
typedef struct { HANDLE h; DWORD id; } gca_win_thread_t;
struct gca_win_timespec { long long tv_sec; long tv_nsec; };

#define pthread_mutex_t gca_win_mutex_t
#define pthread_cond_t gca_win_cond_t
#define pthread_t gca_win_thread_t
#define PTHREAD_MUTEX_INITIALIZER SRWLOCK_INIT
#define PTHREAD_COND_INITIALIZER CONDITION_VARIABLE_INIT
#define pthread_mutex_init(m, a) (InitializeSRWLock(m), 0)
#define pthread_mutex_lock(m) (AcquireSRWLockExclusive(m), 0)
#define pthread_mutex_trylock(m) (TryAcquireSRWLockExclusive(m) ? 0 : EBUSY)
#define pthread_mutex_unlock(m) (ReleaseSRWLockExclusive(m), 0)
#define pthread_cond_init(c, a) (InitializeConditionVariable(c), 0)
#define pthread_cond_signal(c) (WakeConditionVariable(c), 0)
#define pthread_cond_broadcast(c) (WakeAllConditionVariable(c), 0)
#define pthread_cond_timedwait(c, m, ts) gca_win_cond_timedwait(c, m, ts)
#define pthread_self() gca_win_self()
#define pthread_equal(a, b) ((a).id == (b).id)
/* timespec: our own (MSVC's and mingw's differ in tv_sec's width).   */
#define timespec gca_win_timespec
#define clock_gettime(clk, ts) gca_win_realtime(ts)
#define nanosleep(req, rem) gca_win_nanosleep(req)
#define getpid() ((pid_t)GetCurrentProcessId())

/* The wall clock, as CLOCK_REALTIME (writer.c's timed waits count     */
/* against it); 0.                                                       */
GC_INLINE int gca_win_realtime(struct gca_win_timespec *ts)
{
  FILETIME ft;
  unsigned long long t;

  GetSystemTimeAsFileTime(&ft);
  t = ((unsigned long long)ft.dwHighDateTime << 32 | ft.dwLowDateTime)
      - 116444736000000000ULL;        /* 1601 to 1970, in 100 ns */
  ts->tv_sec = (long long)(t / 10000000u);
  ts->tv_nsec = (long)(t % 10000000u) * 100;
  return 0;
}

GC_INLINE int gca_win_nanosleep(const struct gca_win_timespec *req)
{
  long long ms = req->tv_sec * 1000 + (req->tv_nsec + 999999) / 1000000;

  Sleep(ms > 0 ? (DWORD)ms : 0);
  return 0;
}

/* 0 when woken, ETIMEDOUT when the wall-clock deadline *ts passed.     */
GC_INLINE int gca_win_cond_timedwait(gca_win_cond_t *c,
                                            gca_win_mutex_t *m,
                                            const struct gca_win_timespec *ts)
{
  struct gca_win_timespec now;
  long long ms;

  (void)gca_win_realtime(&now);
  ms = (ts->tv_sec - now.tv_sec) * 1000
       + (ts->tv_nsec - now.tv_nsec) / 1000000;
  if (ms <= 0) return ETIMEDOUT;
  return SleepConditionVariableSRW(c, m, (DWORD)ms, 0) ? 0 : ETIMEDOUT;
}

GC_INLINE gca_win_thread_t gca_win_self(void)
{
  gca_win_thread_t t;

  t.h = NULL;
  t.id = GetCurrentThreadId();
  return t;
}

/* Stacks: Windows' own unwinder, RtlCaptureStackBackTrace (the unwind */
/* tables, .pdata, every x64 image has, frame pointers or not), under   */
/* the names of libgcc's <unwind.h> that unwind_cfi.c's libgcc walker   */
/* calls, so that it serves MSVC builds (no <unwind.h>) and mingw-w64's */
/* alike.  Both GC_ACC_UNWIND settings take it on Windows: the frame-   */
/* pointer walk needs the thread's stack bounds, not known there.       */
/* gca_win_backtrace (base.c) hands fn each return address, innermost   */
/* first, until fn returns other than _URC_NO_REASON.                   */
#define GCA_HAVE_UNWIND_H 1
struct gca_win_unw_context { word ip; };
typedef int (*gca_win_unw_fn)(struct gca_win_unw_context *, void *);
#define _Unwind_Reason_Code int
#define _URC_NO_REASON 0
#define _URC_END_OF_STACK 5
#define _Unwind_Context gca_win_unw_context
#define _Unwind_GetIP(ctx) ((ctx)->ip)
#define _Unwind_Backtrace(fn, arg) gca_win_backtrace(fn, arg)
GC_INNER int gca_win_backtrace(gca_win_unw_fn fn, void *arg);

#endif /* GCA_WIN_H */
