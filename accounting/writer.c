/* SPDX-License-Identifier: MIT */
/*
 * writer.c: the dump file (docs/design.md, "Dump file and crash safety").
 *
 * Keeps the one open dump of this process: a gzip stream of JSON Lines,
 * one record per line, each record followed by a zlib sync flush so that a
 * process killed at any moment leaves a file readable up to its last
 * whole record.  The collector side (gca_dump_submit, allocation lock
 * held) only copies a line into a bounded ring of bytes, under a mutex
 * taken with trylock; if the mutex is busy or the ring is full the record
 * is dropped and counted, never waited for.  A plain writer thread (not
 * registered with the collector, all signals blocked) compresses and
 * writes.  Nothing here ever allocates from the GC heap or with malloc:
 * the ring and zlib's state come from mmap, and the header, built when a
 * dump starts (lock not held) by the function the caller hands to
 * gca_dump_open (header.c's), in OS memory too.  Failures to open or write
 * give one warning through WARN and turn dumping off; the program runs on.
 * A forked child sees the dump as closed and never writes its parent's
 * file.  A stop, at exit too, never waits without bound on a lock: a
 * signal handler that calls exit() may run it on a thread interrupted
 * while it held one (gca_noted_lock_bounded).  A stop that finds records
 * dropped and not yet counted adds one last record (the final function
 * handed to gca_dump_open) that counts them and carries their counts.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef GCA_WIN32     /* Windows: gca_win.h's names on Win32's primitives */
# include <pthread.h>
# include <signal.h>
# include <unistd.h>
# include <sys/types.h>
#endif

#include "gca_zlib.h"  /* il2cpp's zlib in an IL2CPP build */
#ifdef __linux__
# include <sys/prctl.h>       /* the writer's name */
#endif
/* The writer sleeps on a futex on Linux; GCA_DUMP_NO_FUTEX takes the   */
/* portable wait there too (tests/il2cpp/amalgam.sh builds it so, to    */
/* run the path other systems take).                                     */
#if defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) \
    && !defined(GCA_DUMP_NO_FUTEX)
# define DUMP_FUTEX
# include <linux/futex.h>
# include <sys/syscall.h>
#endif

#ifndef PATH_MAX
# define PATH_MAX 4096
#endif

#if defined(__GNUC__) || defined(__clang__)
# define GCA_XCHG(p, v) __atomic_exchange_n((p), (v), __ATOMIC_ACQ_REL)
#else
  /* Callers hold the allocation lock; a lost update only miscounts. */
# define GCA_XCHG(p, v) gca_xchg_int(p, v)
  static int gca_xchg_int(int *p, int v) { int o = *p; *p = v; return o; }
#endif

/* Unless GC_ACC_DUMP_BUFFER fixes its size, the ring starts at         */
/* DUMP_FIRST_BUFFER and grows, up to DUMP_MAX_BUFFER, when records are  */
/* large for it or one did not fit: the memory follows the records (a   */
/* census of counters alone is a few KiB; one with thousands of types   */
/* and callsites, far more).                                             */
#define DUMP_MAX_BUFFER ((size_t)64 << 20)
#define DUMP_FIRST_BUFFER ((size_t)256 << 10)
/* With tags on, records carry type and site rows (tens of KiB with a   */
/* few thousand types): start where they will soon be, rather than      */
/* drop records while the buffer grows (it grows only when empty).       */
#define DUMP_FIRST_BUFFER_TAGS ((size_t)2 << 20)

/* The ring is single-producer, single-consumer: the producer (the    */
/* collector, allocation lock held) copies a line past tail, then      */
/* publishes tail (release); the writer reads [head, tail) and then    */
/* publishes head.  Neither ever waits for the other on that path.     */
/* dump_prod_mu only keeps producers one at a time (taken with         */
/* trylock: contended means drop) and lets stop close the door.        */
/*                                                                      */
/* The writer works in passes: each compresses every record in the    */
/* ring and ends with one flush.  After a pass it naps one period       */
/* (DUMP_PERIOD_NS), so that the next pass takes all the records of a  */
/* period with one flush and a collector that makes hundreds of records */
/* a second pays no wakeup per record; a producer cuts the nap short    */
/* only when the ring is a quarter full (DUMP_KICK).  A nap that ends   */
/* with the ring empty turns into an idle sleep with no timeout, which  */
/* the next record ends: a process that stops collecting costs no      */
/* wakeups at all (a writer that polled would wake 50 times a second,  */
/* which a game on a phone pays in battery).                           */
/*                                                                      */
/* dump.sleep says which sleep the writer is in.  The writer stores it  */
/* and then reads tail; a producer stores tail and then reads it, with  */
/* a full fence between on both sides, so at least one sees the other: */
/* either the writer sees the record and does not sleep, or the        */
/* producer sees the sleeper and wakes it.  The waker first swaps the  */
/* state back to DUMP_AWAKE, and the writer sleeps only while the      */
/* state is still the one it stored (a futex on Linux), so no wakeup    */
/* is lost.  Without futexes the writer waits on dump_cv with the      */
/* period as its timeout in both sleeps (the producer signals only if  */
/* dump_mu is free, trylock: the timeout covers a missed signal).      */
#define DUMP_AWAKE 0
#define DUMP_NAPPING 1
#define DUMP_IDLE 2
#define DUMP_PERIOD_NS 20000000 /* a record waits at most ~20 ms      */
#define DUMP_KICK(pending) ((pending) >= dump.cap / 4)
/* Whether pending bytes in the ring end sleep s.                       */
#define DUMP_ENDS_SLEEP(s, pending) \
        ((pending) != 0 && (DUMP_IDLE == (s) || DUMP_KICK(pending)))
/* Noted (thread.c): a stop must never wait for it blindly, as a      */
/* signal handler that calls exit() may have interrupted this very    */
/* thread inside its copy into the ring (issue 38), and the atexit      */
/* handler would wait on itself for ever.                               */
static struct gca_noted_mutex dump_prod_mu = GCA_NOTED_MUTEX_INITIALIZER;
#ifndef DUMP_FUTEX
  static pthread_mutex_t dump_mu = PTHREAD_MUTEX_INITIALIZER;
  static pthread_cond_t dump_cv = PTHREAD_COND_INITIALIZER;
#endif

#if defined(__GNUC__) || defined(__clang__)
# define DUMP_LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
# define DUMP_STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#else
# define DUMP_LOAD_ACQ(p) (*(volatile size_t *)(p))
# define DUMP_STORE_REL(p, v) (void)(*(volatile size_t *)(p) = (v))
#endif

static struct {
  char *ring;             /* mmap'd, cap bytes                         */
  size_t cap;             /* now; grows up to limit (producer side)   */
  size_t limit;
  int grow_wanted;        /* a record did not fit (producer side)      */
  size_t head, tail;      /* free-running byte counts: used = tail-head */
  int open;               /* accepting records (read racily too)       */
  int stopping;
  int sleep;              /* DUMP_AWAKE, DUMP_NAPPING or DUMP_IDLE     */
  int running;            /* writer thread exists (control side only)  */
  pid_t pid;              /* process that opened the dump              */
  pthread_t thread;
  int err;                /* errno of the failed write (writer side)   */
  int finished;           /* the writer's loop ended (dump_done_mu)    */
  int warn_pending;       /* a write failure not yet reported          */
} dump;

/* Serializes start and stop (API callers, atexit); never taken by the  */
/* collector side.                                                       */
static struct gca_noted_mutex dump_ctl = GCA_NOTED_MUTEX_INITIALIZER;

static size_t dump_buffer_setting = 0;   /* 0: grow as needed         */
/* Builds and submits one last record at a stop (record.c's, handed    */
/* down by control.c); never waits long for the allocation lock.       */
static gca_dump_final_fn dump_final = NULL;
/* How long a stop (and so exit) waits for the writer to drain the ring */
/* (GC_ACC_DUMP_EXIT_WAIT).  A reader that stops reading must not keep  */
/* the program from exiting.                                             */
static unsigned dump_exit_wait_ms = GCA_DUMP_DEFAULT_EXIT_WAIT_MS;
/* A writer abandoned by a stop may still be inside write(): no dump    */
/* starts again in this process (its state would be shared).            */
static int dump_stuck = 0;
static pthread_mutex_t dump_done_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dump_done_cv = PTHREAD_COND_INITIALIZER;
/* Records dropped and not yet counted by a record in the dump.  A     */
/* record takes the count while it is built (gca_dump_take_dropped), so */
/* that count rides in it: dump_riding holds it until the record is     */
/* submitted.  Accepted, the count is in the ring and dump_riding goes  */
/* back to 0; dropped, the count goes back into dump_dropped with the   */
/* record itself, so the next record that reaches the file counts them  */
/* all (a run of full-ring drops once left each record after the first  */
/* counting only its predecessor, and whole runs went missing with a   */
/* "dropped" of 1).  dump_riding: allocation lock held.                 */
static word dump_dropped = 0;
static word dump_riding = 0;

#ifdef GCA_TEST_API
  /* Tests only (the test library).  The hook is called where an exit  */
  /* must not hang: where = 0 inside a producer's copy (dump_prod_mu   */
  /* and the allocation lock held), 1 inside a stop (dump_ctl held).   */
  /* drop_next: the next n records are dropped as if the ring were full. */
  /* entries: records queued as lines and as tapes (test_tape_dump).     */
  static void (*dump_test_hook)(int where) = NULL;
  static unsigned dump_test_drops = 0;
  static word dump_test_entries[2] = { 0, 0 };

  GC_API void GC_CALL GC_acc_test_dump_hook(void (*fn)(int where))
  { dump_test_hook = fn; }
  GC_API void GC_CALL GC_acc_test_dump_drop_next(unsigned n)
  { GCA_STORE(&dump_test_drops, n); }
  GC_API void GC_CALL GC_acc_test_dump_entries(GC_word *lines, GC_word *t)
  { *lines = dump_test_entries[0]; *t = dump_test_entries[1]; }
#endif

/* A producer holds dump_prod_mu for one copy: a stop that waits this   */
/* long for it has met a holder that will not let go.  A start holds    */
/* dump_ctl while it writes the header (at most 1 s on a pipe), a stop  */
/* while it waits for the writer: an exit waits that long and 1 s more */
/* for another thread's, never for its own (gca_noted_lock_bounded).   */
#define DUMP_DOOR_WAIT_MS 100
#define DUMP_CTL_EXIT_WAIT_MS (dump_exit_wait_ms + 1000u)

/* Report a write failure of the writer thread, once, from a thread of  */
/* the program (never from the writer thread itself).                    */
static void dump_report_pending(void)
{
  if (EXPECT(GCA_LOAD(&dump.warn_pending) == 0, TRUE)) return;
  if (dump.pid != getpid()) return;   /* the parent's, not ours */
  if (GCA_XCHG(&dump.warn_pending, 0) != 0)
    gca_dumpfile_warn("cannot write dump file", dump.err);
}

/* A ring entry: a header (length << 1, | 1 for a tape), its bytes.    */
#define DUMP_HDR sizeof(size_t)

/* Ring bytes [at, at + n) (across the wrap) from p (put) or into p.   */
static void dump_ring_io(size_t at, void *p, size_t n, int put)
{
  size_t off = at % dump.cap, first = dump.cap - off < n ? dump.cap - off : n;
  char *q = (char *)p, *r = dump.ring + off;

  BCOPY(put ? q : r, put ? r : q, first);
  BCOPY(put ? q + first : dump.ring, put ? dump.ring : q + first, n - first);
}

static size_t dump_hdr_at(size_t at)
{
  size_t hdr;

  dump_ring_io(at, &hdr, DUMP_HDR, 0);
  return hdr;
}

/* Compress ring bytes [from, to) (whole entries) and sync-flush once at */
/* the end: every record taken from the ring in this pass reaches the  */
/* file, byte-aligned, before the writer waits again (one flush per     */
/* pass rather than per record: each flush ends a deflate block, whose  */
/* Huffman tables cost more to build than a small record to compress). */
/* 0 or an errno.                                                        */
static int dump_deflate_ring(size_t from, size_t to)
{
  while (from < to) {
    int err;
    size_t hdr = dump_hdr_at(from), len = hdr >> 1, off, first;

    from += DUMP_HDR;
    off = from % dump.cap;
    first = dump.cap - off < len ? dump.cap - off : len;   /* to the wrap */
    err = gca_dumpfile_deflate_entry((int)(hdr & 1), dump.ring + off, first,
                                     dump.ring, len - first,
                                     from + len == to ? Z_SYNC_FLUSH
                                                      : Z_NO_FLUSH);
    if (err != 0) return err;
    from += len;
  }
  return 0;
}

/* The writer thread hit err: stop accepting records, remember to warn. */
static void dump_fail(int err)
{
  dump.err = err;
  GCA_STORE(&dump.open, 0);
  GCA_STORE(&dump.warn_pending, 1);
}

#if defined(__GNUC__) || defined(__clang__)
# define DUMP_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#else
# define DUMP_FENCE() (void)0 /* no futex then: the timed wait covers it */
#endif

/* Writer side: sleep s (DUMP_NAPPING: one period at most) unless what  */
/* would end it is already there; head is the writer's.                */
static void dump_sleep(int s, size_t head)
{
  GCA_STORE(&dump.sleep, s);
  DUMP_FENCE();
  if (!DUMP_ENDS_SLEEP(s, DUMP_LOAD_ACQ(&dump.tail) - head)
      && !GCA_LOAD(&dump.stopping)) {
#   ifdef DUMP_FUTEX
      struct timespec nap = { 0, DUMP_PERIOD_NS };

      /* Returns at once if a waker has already swapped the state.     */
      (void)syscall(SYS_futex, &dump.sleep, FUTEX_WAIT_PRIVATE, s,
                    DUMP_NAPPING == s ? &nap : NULL, NULL, 0);
#   else
      struct timespec ts;

      (void)clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_nsec += DUMP_PERIOD_NS;
      if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
      }
      (void)pthread_mutex_lock(&dump_mu);
      if (GCA_LOAD(&dump.sleep) == s)
        (void)pthread_cond_timedwait(&dump_cv, &dump_mu, &ts);
      (void)pthread_mutex_unlock(&dump_mu);
#   endif
  }
  GCA_STORE(&dump.sleep, DUMP_AWAKE);
}

/* Ends the writer's sleep s, which the caller saw.                     */
static void dump_wake_from(int s)
{
# if defined(__GNUC__) || defined(__clang__)
    if (!__atomic_compare_exchange_n(&dump.sleep, &s, DUMP_AWAKE, 0,
                                     __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
      return;         /* it woke, or another waker got there first */
# else
    dump.sleep = DUMP_AWAKE;
# endif
# ifdef DUMP_FUTEX
    (void)syscall(SYS_futex, &dump.sleep, FUTEX_WAKE_PRIVATE, 1, NULL,
                  NULL, 0);
# else
    if (pthread_mutex_trylock(&dump_mu) == 0) {
      (void)pthread_cond_signal(&dump_cv);
      (void)pthread_mutex_unlock(&dump_mu);
    }
# endif
}

/* Producer side, after publishing tail: wake the writer if the ring's */
/* pending bytes (all: (size_t)-1) end the sleep it is in.  Never waits: */
/* a compare-and-swap and, only for a sleeping writer, one system call. */
static void dump_wake(size_t pending)
{
  int s;

  DUMP_FENCE();
  s = GCA_LOAD(&dump.sleep);
  if (s != DUMP_AWAKE && DUMP_ENDS_SLEEP(s, pending)) dump_wake_from(s);
}

static void *dump_writer_main(void *arg)
{
  int failed = 0, waited = 1;

  (void)arg;
# ifdef __linux__
    (void)prctl(PR_SET_NAME, "gcacc-dump", 0, 0, 0);  /* top, perf, gdb */
# elif defined(__APPLE__)
    (void)pthread_setname_np("gcacc-dump");
# endif
  for (;;) {
    size_t head, tail;

    head = dump.head;                   /* only this thread writes it */
    tail = DUMP_LOAD_ACQ(&dump.tail);
    if (head == tail && GCA_LOAD(&dump.stopping)) {
      /* Stop closed the door before setting stopping: re-read once.   */
      if (DUMP_LOAD_ACQ(&dump.tail) == head) break;
      continue;
    }
    if (head == tail || (!waited && !DUMP_KICK(tail - head))) {
      /* A pass just ended and the ring is not filling: nap one period,  */
      /* so that a pass takes all the records of the period with one    */
      /* flush.  Nothing after a nap: sleep until the next record.       */
      if (GCA_LOAD(&dump.stopping)) {
        waited = 1;
        continue;
      }
      dump_sleep(waited ? DUMP_IDLE : DUMP_NAPPING, head);
      waited = 1;
      continue;
    }
    waited = 0;

    /* The producer writes only past tail, so [head, tail) is stable.  */
    if (!failed) {
      int err = dump_deflate_ring(head, tail);

      if (err != 0) {
        failed = 1;
        dump_fail(err);
      }
    }
    DUMP_STORE_REL(&dump.head, tail);
    /* The heap's resident pages, if a record asked: mincore here, not  */
    /* in the collector's pause (freelist.c).                           */
    gca_heap_resident_sample();
  }
  if (!failed) {
    int err = gca_dumpfile_deflate(NULL, 0, Z_FINISH, 0);  /* trailer */

    if (err != 0) dump_fail(err);
  }
  (void)pthread_mutex_lock(&dump_done_mu);
  dump.finished = 1;
  (void)pthread_cond_broadcast(&dump_done_cv);
  (void)pthread_mutex_unlock(&dump_done_mu);
  return NULL;
}

/* ---- start and stop ----------------------------------------------------- */

/* Everything opened by a start that failed or a stop: closed, freed.   */
static void dump_release(void)
{
  gca_dumpfile_close();
  gca_os_free(dump.ring, dump.cap);
  dump.ring = NULL;
  dump.head = dump.tail = 0;
  dump.stopping = 0;
}

/* Wait, at most ms, for the writer's loop to end; 1 if it did.         */
static int dump_wait_finished(unsigned ms)
{
  struct timespec ts;
  int done;

  (void)clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  (void)pthread_mutex_lock(&dump_done_mu);
  while (!dump.finished
         && pthread_cond_timedwait(&dump_done_cv, &dump_done_mu, &ts) == 0) {
  }
  done = dump.finished;
  (void)pthread_mutex_unlock(&dump_done_mu);
  return done;
}

/* Wait, until deadline_ns at most, for the writer to empty the ring;  */
/* 1 if it did.                                                          */
static int dump_wait_drained(uint64_t deadline_ns)
{
  for (;;) {
    struct timespec nap = { 0, 500000 };

    if (DUMP_LOAD_ACQ(&dump.head) == DUMP_LOAD_ACQ(&dump.tail)) return 1;
    if (GCA_LOAD(&dump.warn_pending) || gca_now_ns() >= deadline_ns)
      return 0;
    dump_wake((size_t)-1);
    (void)nanosleep(&nap, NULL);
  }
}

/* Records (whole entries) in ring bytes [from, to).                     */
static word dump_count_lines(size_t from, size_t to)
{
  word n = 0;

  for (; from < to; n++) from += DUMP_HDR + (dump_hdr_at(from) >> 1);
  return n;
}

/* A stop found n drops that no record counts (nor holds their counts): */
/* say so, unless a failed write (warned) turned dumping off.            */
static void dump_warn_uncounted(word n)
{
  GCA_STORE(&dump_dropped, 0);  /* the door is closed; the next starts at 0 */
  if (n != 0 && 0 == dump.err)
    gca_dumpfile_note("the last %lu records were dropped (buffer full) and"
                      " are counted in no record: the dump's totals lack"
                      " their counts", (unsigned long)n);
}

/* dump_ctl held.  Flush everything queued, write the trailer, join: at */
/* most dump_exit_wait_ms, then the writer is left behind (GC_ERROR).    */
/* Never waits without bound on a lock: at exit, the thread running     */
/* exit() may be one a signal interrupted inside a producer's copy.     */
static int dump_stop_locked(void)
{
  int door;
  uint64_t start = gca_now_ns();
  word spent_ms, uncounted;

  if (!dump.running) return GC_SUCCESS;
  if (dump.pid != getpid()) {
    /* A forked child: the file is the parent's, and so is the writer  */
    /* thread.  Free our copies without writing a byte; the mutexes    */
    /* may have been caught held at fork().                             */
    dump.running = 0;
    dump.open = 0;
    dump.warn_pending = 0;
    dump_release();
    dump.sleep = DUMP_AWAKE;
    gca_noted_reinit(&dump_prod_mu);
#   ifndef DUMP_FUTEX
      (void)pthread_mutex_init(&dump_mu, NULL);
      (void)pthread_cond_init(&dump_cv, NULL);
#   endif
    return GC_SUCCESS;
  }
# ifdef GCA_TEST_API
    if (dump_test_hook != NULL) dump_test_hook(1);
# endif
  /* Drops no record has counted yet (the ring full to the end): once  */
  /* the writer has made room, one last record (dump_final) counts them */
  /* and carries their counts (issue 38: they were lost silently).      */
  if (GCA_LOAD(&dump_dropped) != 0 && dump_final != NULL
      && dump_wait_drained(start + (uint64_t)dump_exit_wait_ms * 1000000u / 2))
    (void)dump_final();
  /* Close the door: no producer inside.  One that holds it longer     */
  /* than a copy is this thread, interrupted inside its copy, or stuck: */
  /* its record is lost, and the ring stays mapped for it.              */
  door = gca_noted_lock_bounded(&dump_prod_mu, DUMP_DOOR_WAIT_MS);
  GCA_STORE(&dump.open, 0);
  if (door) {
    gca_noted_unlock(&dump_prod_mu);
  } else {
    gca_dumpfile_note("stopped while a record was being queued (exit() from"
                      " a signal handler?): that record and the %lu dropped"
                      " before it are not in the file",
                      (unsigned long)GCA_LOAD(&dump_riding));
  }
  GCA_STORE(&dump.stopping, 1);
  dump_wake((size_t)-1);      /* from either sleep */
  /* Dropped, and counted in no record: now there will be no next one. */
  uncounted = GCA_LOAD(&dump_dropped);
  spent_ms = (word)((gca_now_ns() - start) / 1000000u);
  if (!dump_wait_finished(spent_ms < dump_exit_wait_ms
                          ? dump_exit_wait_ms - (unsigned)spent_ms : 0)) {
    /* The writer is stuck (a reader that stopped reading, a stalled    */
    /* disk): leave it, and say what the file lacks.                    */
    size_t head = DUMP_LOAD_ACQ(&dump.head), tail = dump.tail;
    word lines = dump_count_lines(head, tail);

    gca_dumpfile_abandon();
    dump_wake((size_t)-1);
    dump.running = 0;
    dump_stuck = 1;
    gca_dumpfile_note("%lu records (%lu bytes) not written after waiting %u"
                      " ms %s; the file ends with its last whole record",
                      (unsigned long)lines, (unsigned long)(tail - head),
                      dump_exit_wait_ms, gca_dumpfile_stalled_on());
    dump_warn_uncounted(uncounted);
    return GC_ERROR;
  }
  (void)gca_thread_join(dump.thread);
  dump.running = 0;
  dump_warn_uncounted(uncounted);
  if (door) {
    dump_release();
  } else {
    /* A producer may still be inside the ring: keep it, and start no  */
    /* other dump in this process.                                      */
    gca_dumpfile_close();
    dump_stuck = 1;
  }
  dump_report_pending();
  return GC_SUCCESS;
}

/* In a child after fork(): the control mutex may have been caught held */
/* by a thread starting or stopping the parent's dump.  (The other      */
/* mutexes are reset when the child first stops the inherited dump.)   */
GC_INNER void gca_dump_atfork_child(void)
{
  gca_noted_reinit(&dump_ctl);
  if (dump.running) gca_dumpfile_atfork_child();
}

#ifndef DONT_USE_ATEXIT  /* Unity's build: GC_deinit ends the dump instead */
static int dump_atexit_done = 0;

/* At exit: never waits on a lock the thread running exit() may hold     */
/* (a signal handler that calls exit() may have interrupted it inside a */
/* start, a stop, or a producer's copy).                                 */
static void dump_atexit(void)
{
  if (dump.pid != getpid() || !dump.running) return;
  if (!gca_noted_lock_bounded(&dump_ctl, DUMP_CTL_EXIT_WAIT_MS)) {
    gca_dumpfile_note("exit() while the dump was being started or stopped;"
                      " not waited for: the file ends with its last whole"
                      " record");
    return;
  }
  (void)dump_stop_locked();
  gca_noted_unlock(&dump_ctl);
}
#endif

/* Which dump is open, for delta records (record.c).  It changes under */
/* dump_ctl before the new dump is published under dump_prod_mu, so a  */
/* producer holding dump_prod_mu sees it.                                */
static word dump_generation = 0;

/* dump_ctl held, no dump running.                                      */
static int dump_start_locked(const char *tmpl, gca_dump_header_fn header)
{
  struct gca_text h = { NULL, 0, 0, 0 };
  int err;

  if (dump_stuck) {
    WARN("gcacc: a dump writer is still stuck on its earlier file;"
         " dumping stays off\n", 0);
    return GC_ERROR;
  }
  if ((err = gca_dumpfile_open(tmpl)) != GC_SUCCESS) return err;
  GCA_STORE(&dump_generation, dump_generation + 1);
  dump.limit = dump_buffer_setting ? dump_buffer_setting : DUMP_MAX_BUFFER;
  dump.cap = dump_buffer_setting ? dump_buffer_setting
             : gca_tags_on || GCA_PROFILE_SAMPLED == gca_profile
             ? DUMP_FIRST_BUFFER_TAGS : DUMP_FIRST_BUFFER;
  dump.grow_wanted = 0;
  dump.ring = (char *)gca_os_alloc(dump.cap);
  if (NULL == dump.ring) {
    /* A buffer the setting fixed: say which, so it can be lowered.   */
    gca_dumpfile_warn(dump_buffer_setting
                      ? "cannot allocate the buffer GC_ACC_DUMP_BUFFER"
                        " (GC_acc_set_dump_buffer_size) sets for dump file"
                      : "cannot set up dump file", ENOMEM);
    dump_release();
    return GC_NO_MEMORY;
  }

  /* The header, written here rather than by the writer thread, so that */
  /* a file that cannot be written (/dev/full) fails the start.         */
  if (!header(&h, gca_dumpfile_path(), dump.limit)) {
    gca_text_free(&h);
    gca_dumpfile_warn("cannot build the header of dump file", ENOMEM);
    dump_release();
    return GC_NO_MEMORY;
  }
  err = gca_dumpfile_write_header(h.buf, h.len);
  gca_text_free(&h);
  if (err != 0) {
    gca_dumpfile_warn("cannot write dump file", err);
    dump_release();
    return GC_ERROR;
  }

  dump.pid = getpid();
  dump.head = dump.tail = 0;
  dump.stopping = 0;
  dump.finished = 0;
  dump.sleep = DUMP_AWAKE;
  dump.warn_pending = 0;
  dump.err = 0;
  /* The writer runs with every signal blocked (thread.c).             */
  err = gca_thread_create(&dump.thread, dump_writer_main, NULL);
  if (err != 0) {
    gca_dumpfile_warn("cannot start the writer of dump file", err);
    dump_release();
    return GC_ERROR;
  }
  dump.running = 1;
  gca_noted_lock(&dump_prod_mu);              /* publishes the ring   */
  GCA_STORE(&dump.open, 1);
  gca_noted_unlock(&dump_prod_mu);
#ifndef DONT_USE_ATEXIT       /* else GC_deinit, GC_acc_dump_stop end it */
  if (!dump_atexit_done) {
    dump_atexit_done = 1;
    (void)atexit(dump_atexit);
  }
#endif
  return GC_SUCCESS;
}

GC_INNER int gca_dump_open(const char *path_template,
                           gca_dump_header_fn header, gca_dump_final_fn final)
{
  int res;

  if (NULL == path_template || '\0' == path_template[0]) return GC_ERROR;
  gca_noted_lock(&dump_ctl);
  (void)dump_stop_locked();
  res = dump_start_locked(path_template, header);
  if (GC_SUCCESS == res) dump_final = final;
  gca_noted_unlock(&dump_ctl);
  return res;
}

GC_INNER int gca_dump_stop(void)
{
  int res;

  gca_noted_lock(&dump_ctl);
  res = dump_stop_locked();
  gca_noted_unlock(&dump_ctl);
  return res;
}

GC_INNER void gca_dump_set_exit_wait(unsigned ms) { dump_exit_wait_ms = ms; }
GC_INNER unsigned gca_dump_exit_wait(void) { return dump_exit_wait_ms; }

GC_INNER word gca_dump_generation(void)
{
  return GCA_LOAD(&dump_generation);
}

GC_INNER void gca_dump_set_buffer(size_t bytes)
{
  if (bytes != 0 && bytes < GCA_DUMP_MIN_BUFFER) bytes = GCA_DUMP_MIN_BUFFER;
  /* 0: grow as needed; else whole pages for mmap.                      */
  dump_buffer_setting = (bytes + 4095) & ~(size_t)4095;
}

/* ---- the collector side ------------------------------------------------- */

/* A record of len bytes is large for the ring, or an earlier one did   */
/* not fit: grow it (doubling, to at least eight such records, up to the */
/* limit).  Only while the ring is empty, so the writer, which reads    */
/* ring and cap only for bytes it has not yet handed back (head <       */
/* tail), never sees the old one again; the new ring and cap are        */
/* published by the release store of tail.  Producer side,              */
/* dump_prod_mu held.                                                    */
static void dump_grow(size_t len)
{
  size_t cap = 2 * dump.cap;
  char *p;

  if (cap < 8 * len) cap = 8 * len;
  cap = (cap + 4095) & ~(size_t)4095;
  if (cap > dump.limit) cap = dump.limit;
  if (cap <= dump.cap) return;
  p = (char *)gca_os_alloc(cap);
  if (NULL == p) return;              /* keep the old one              */
  gca_os_free(dump.ring, dump.cap);
  dump.ring = p;
  dump.cap = cap;
  dump.grow_wanted = 0;
}

GC_INNER int gca_dump_put(const char *rec, size_t len, word gen, int tape)
{
  size_t tail, head, hdr = len << 1 | (size_t)(tape != 0);
  size_t need = DUMP_HDR + len;

  dump_report_pending();
  if (!GCA_LOAD(&dump.open) || 0 == len || dump.pid != getpid())
    goto drop;
# ifdef GCA_TEST_API
    if (GCA_LOAD(&dump_test_drops) > 0) {
      GCA_STORE(&dump_test_drops, GCA_LOAD(&dump_test_drops) - 1);
      goto drop;
    }
# endif
  if (!gca_noted_trylock(&dump_prod_mu)) goto drop;
# ifdef GCA_TEST_API
    if (dump_test_hook != NULL) dump_test_hook(0);
# endif
  tail = dump.tail;                   /* only producers write it */
  head = DUMP_LOAD_ACQ(&dump.head);
  if ((need > dump.cap / 8 || dump.grow_wanted) && dump.cap < dump.limit
      && head == tail)
    dump_grow(need);
  if (gen != 0 && gen != GCA_LOAD(&dump_generation)) {     /* (dump_prod_mu held) */
    gca_noted_unlock(&dump_prod_mu);
    goto drop;
  }
  if (!dump.open || dump.cap - (tail - head) < need) {
    if (dump.cap < dump.limit) dump.grow_wanted = 1;
    gca_noted_unlock(&dump_prod_mu);
    dump_wake((size_t)-1);            /* drain, so the next one fits   */
    goto drop;
  }
  dump_ring_io(tail, &hdr, DUMP_HDR, 1);
  dump_ring_io(tail + DUMP_HDR, (void *)rec, len, 1);
# ifdef GCA_TEST_API
    GCA_ADD(&dump_test_entries[tape != 0], 1);
# endif
  DUMP_STORE_REL(&dump.tail, tail + need);
  gca_noted_unlock(&dump_prod_mu);
  dump_riding = 0;                    /* its dropped count is in the ring */
  dump_wake(tail + need - head);
  return 0;

drop:
  /* This record and the drops it counted: the next record counts them. */
  GCA_ADD(&dump_dropped, 1 + dump_riding);
  dump_riding = 0;
  return 1;
}

GC_INNER word gca_dump_take_dropped(void)
{
  word d;

# if defined(__GNUC__) || defined(__clang__)
    d = __atomic_exchange_n(&dump_dropped, 0, __ATOMIC_RELAXED);
# else
    d = dump_dropped;
    dump_dropped = 0;
# endif
  dump_riding += d;                   /* until the record is submitted  */
  return d;
}

GC_INNER int gca_dump_is_open(void)
{
  dump_report_pending();
  return GCA_LOAD(&dump.open) && dump.pid == getpid();
}

#endif /* !GC_ACC_DISABLE */
