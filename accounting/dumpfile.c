/* SPDX-License-Identifier: MIT */
/*
 * dumpfile.c: the dump's file: its path, descriptor and gzip stream.
 *
 * Opens the file without ever blocking (O_NONBLOCK: a FIFO no process
 * reads fails at once instead of keeping the program from starting),
 * claims a regular file (flock, never waited for) before truncating it,
 * so that no process ever truncates a dump another is writing (a busy
 * file sends this process's dump to PATH.PID, with one warning),
 * compresses and writes (a pipe that does not drain is waited for in
 * poll() slices, which a stop can end: gca_dumpfile_abandon), never
 * writes a regular file past the file-size limit (RLIMIT_FSIZE: such a
 * write would raise SIGXFSZ), and writes the header from the starting
 * thread with SIGPIPE (and SIGXFSZ) blocked, so a limit or a closed pipe
 * is an error, never the end of the program.  writer.c, above it, owns the ring and the writer thread.
 * zlib's state comes from mmap (never the GC heap, nor a redirected
 * malloc).
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifndef GCA_WIN32   /* Windows: the Win32 file API (the GCA_WIN32 parts) */
# include <fcntl.h>
# include <poll.h>
# include <pthread.h>
# include <signal.h>
# include <unistd.h>
# include <sys/file.h>           /* flock */
# include <sys/resource.h>
# include <sys/stat.h>
#endif
#include "gca_zlib.h"  /* il2cpp's zlib in an IL2CPP build */

#ifndef PATH_MAX
# define PATH_MAX 4096
#endif
#ifndef O_CLOEXEC
# define O_CLOEXEC 0
#endif
#define DUMPFILE_OUT_CHUNK 16384

static struct {
  int fd;
  int zs_ready;
  int abandoned;          /* a stop gave up waiting: writes end        */
  int regular;            /* a regular file (file-size limit applies)  */
  int kind;               /* GCA_DUMPFILE_REGULAR, _PIPE or _OTHER      */
  z_stream zs;
} df = { -1, 0, 0, 0, GCA_DUMPFILE_OTHER, { 0 } };

/* The path, the compressor's output chunk and the warnings' text: OS   */
/* memory, taken at the first open and kept (a child after fork() has   */
/* its copy).  Not static data: the collector scans its library's data  */
/* as roots and paces its collections by their size (GC_root_size), so  */
/* 29 KiB of our buffers there made a program with accounting off, or   */
/* never dumping, collect at other times than the same collector without */
/* the accounting.                                                       */
struct dumpfile_bufs {
  char path[PATH_MAX];
  unsigned char out[DUMPFILE_OUT_CHUNK];
  char msg[2 * PATH_MAX + 200];   /* warnings: two paths at most */
# ifdef GCA_WIN32
    WCHAR wpath[PATH_MAX + 1];
# endif
};
static struct dumpfile_bufs *dfb;
/* The writer thread's: a tape that wraps the ring, copied whole, and a */
/* tape's text (freed when the file is closed, the writer gone).        */
static struct gca_text df_tape = { NULL, 0, 0, 0 };
static struct gca_text df_line = { NULL, 0, 0, 0 };

/* One warning through bdwgc's warn proc: "gcacc: <what> <path>: <why>; */
/* dumping off".                                                          */

static void dumpfile_warn_path(const char *what, const char *path, int err)
{
  if (NULL == dfb) {      /* no buffers: no path either */
    WARN("gcacc: %s: no memory for its buffers; dumping off\n", (word)what);
    return;
  }
  (void)snprintf(dfb->msg, sizeof(dfb->msg),
                 "gcacc: %s %.*s: %s; dumping off",
                 what, PATH_MAX, path, strerror(err));
  WARN("%s\n", (word)dfb->msg);
}

GC_INNER void gca_dumpfile_warn(const char *what, int err)
{
  dumpfile_warn_path(what, NULL != dfb ? dfb->path : "", err);
}

GC_INNER void gca_dumpfile_note(const char *fmt, ...)
{
  va_list ap;
  int n;

  if (NULL == dfb) return;    /* never opened: nothing to say it of */
  n = snprintf(dfb->msg, sizeof(dfb->msg), "gcacc: dump file %.*s: ",
               PATH_MAX, dfb->path);

  va_start(ap, fmt);
  if (n > 0 && (size_t)n < sizeof(dfb->msg))
    (void)vsnprintf(dfb->msg + n, sizeof(dfb->msg) - (size_t)n, fmt, ap);
  va_end(ap);
  WARN("%s\n", (word)dfb->msg);
}

GC_INNER const char *gca_dumpfile_path(void)
{
  return NULL != dfb ? dfb->path : "";
}

/* Why a stop gave up waiting for the writer, by target: a reader that */
/* stopped reading, or a file system that does not take the bytes.     */
GC_INNER const char *gca_dumpfile_stalled_on(void)
{
  return GCA_DUMPFILE_REGULAR == df.kind
         ? "for the writer, still writing to a slow or stalled file system"
         : GCA_DUMPFILE_PIPE == df.kind
           ? "for its reader, which stopped reading"
           : "for the writer, still writing to the device";
}

GC_INNER void gca_dumpfile_abandon(void)
{
  GCA_STORE(&df.abandoned, 1);
}

/* ---- zlib state from mmap (never the GC heap, nor a redirected malloc) - */

static voidpf dump_zalloc(voidpf opaque, uInt items, uInt size)
{
  size_t n = (size_t)items * size + 16;
  void *p = gca_os_alloc(n);

  (void)opaque;
  if (NULL == p) return Z_NULL;
  *(size_t *)p = n;
  return (char *)p + 16;
}

static void dump_zfree(voidpf opaque, voidpf address)
{
  char *p = (char *)address - 16;

  (void)opaque;
  gca_os_free(p, *(size_t *)p);
}

/* ---- compressing and writing ------------------------------------------- */

#ifdef GCA_WIN32
/* Windows: df.fd is 0 while df_h is open (-1 otherwise).  Written      */
/* through WriteFile: bytes handed to it are the system's, so a process */
/* ended by TerminateProcess leaves the file whole up to its last       */
/* flushed record.                                                        */
static HANDLE df_h = INVALID_HANDLE_VALUE;

/* A Win32 error as the errno our warnings print.                      */
static int dumpfile_win_errno(DWORD e)
{
  switch (e) {
  case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND:
  case ERROR_INVALID_NAME: case ERROR_BAD_PATHNAME: return ENOENT;
  case ERROR_ACCESS_DENIED: case ERROR_WRITE_PROTECT: return EACCES;
  case ERROR_SHARING_VIOLATION: case ERROR_LOCK_VIOLATION:
  case ERROR_PIPE_BUSY: return EBUSY;
  case ERROR_DISK_FULL: case ERROR_HANDLE_DISK_FULL: return ENOSPC;
  case ERROR_NO_DATA: case ERROR_BROKEN_PIPE: case ERROR_PIPE_NOT_CONNECTED:
    return EPIPE;
  case ERROR_FILENAME_EXCED_RANGE: return ENAMETOOLONG;
  case ERROR_NOT_ENOUGH_MEMORY: case ERROR_OUTOFMEMORY: return ENOMEM;
  default: return EIO;
  }
}
#endif

#ifndef GCA_WIN32

/* Write all n bytes to the dump's fd; 0 or an errno.  The fd is       */
/* non-blocking (a FIFO or socket whose reader is slow): a full pipe is  */
/* waited for in slices of DUMP_POLL_MS, until a stop abandons the dump  */
/* (ETIMEDOUT), or, for the header written by the starting thread, until */
/* deadline_ns (0: none).                                                */
#define DUMP_POLL_MS 50
static int dump_write_all(const unsigned char *p, size_t n,
                          uint64_t deadline_ns)
{
  while (n > 0) {
    size_t m = n;
    ssize_t w;

    /* A regular file never goes past the file-size limit: a write at  */
    /* the limit would raise SIGXFSZ, which the kernel may hand to any  */
    /* thread of the program that does not block it (and kill it), so  */
    /* the limit ends the dump as a full disk would (EFBIG).             */
    if (df.regular) {
      struct rlimit rl;

      if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        off_t off = lseek(df.fd, 0, SEEK_CUR);

        if (off >= 0 && (rlim_t)off >= rl.rlim_cur) return EFBIG;
        if (off >= 0 && (rlim_t)m > rl.rlim_cur - (rlim_t)off)
          m = (size_t)(rl.rlim_cur - (rlim_t)off);
      }
    }
    w = write(df.fd, p, m);

    if (w < 0) {
      struct pollfd pfd;

      if (EINTR == errno) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        return errno != 0 ? errno : EIO;
      if (GCA_LOAD(&df.abandoned)
          || (deadline_ns != 0 && gca_now_ns() > deadline_ns))
        return ETIMEDOUT;
      pfd.fd = df.fd;
      pfd.events = POLLOUT;
      (void)poll(&pfd, 1, DUMP_POLL_MS);
      continue;
    }
    if (0 == w) return ENOSPC;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}
#else /* GCA_WIN32 */
#define DUMP_POLL_MS 50
/* Write all n bytes; 0 or an errno.  A pipe is in PIPE_NOWAIT mode     */
/* (dump_open_claimed): a full one takes nothing, and is waited for in  */
/* slices of DUMP_POLL_MS until a stop abandons the dump or deadline_ns.  */
static int dump_write_all(const unsigned char *p, size_t n,
                          uint64_t deadline_ns)
{
  while (n > 0) {
    DWORD w = 0, m = n > 0x40000000u ? 0x40000000u : (DWORD)n;

    if (!WriteFile(df_h, p, m, &w, NULL))
      return dumpfile_win_errno(GetLastError());
    if (0 == w) {
      if (df.kind != GCA_DUMPFILE_PIPE) return ENOSPC;
      if (GCA_LOAD(&df.abandoned)
          || (deadline_ns != 0 && gca_now_ns() > deadline_ns))
        return ETIMEDOUT;
      Sleep(DUMP_POLL_MS);
      continue;
    }
    p += w;
    n -= w;
  }
  return 0;
}
#endif /* GCA_WIN32 */

/* Compression level of the dump stream.  Records are small (a few KiB) */
/* and flushed as they come, so the default level (6) spends most of   */
/* its time searching for matches it rarely finds: level 1 (deflate's   */
/* fast matcher, its shortest chains) costs about a quarter of its       */
/* instructions for some 15% more bytes.                                 */
#ifndef GCA_DUMP_ZLEVEL
# define GCA_DUMP_ZLEVEL 1
#endif
/* A 32 KiB window and memLevel 5 (a hash of 4,096 heads): the window   */
/* slides, and with it the whole hash and chain tables, half as often   */
/* as with 16 KiB, and the smaller hash is cheaper to slide, while     */
/* records repeat mostly the one before.  On anchorloop's records       */
/* (2.5 KiB each, a sync flush each): 13% fewer instructions than level */
/* 2 with a 16 KiB window and memLevel 7, for 1% more bytes; deflate's  */
/* state is some 144 KiB instead of 128.                                */
#ifndef GCA_DUMP_ZWINDOW
# define GCA_DUMP_ZWINDOW 15
#endif
#ifndef GCA_DUMP_ZMEMLEVEL
# define GCA_DUMP_ZMEMLEVEL 5
#endif

/* Feed n bytes to deflate with the given flush mode and write what it   */
/* produces; 0 or an errno.  deadline_ns: as dump_write_all's.          */
GC_INNER int gca_dumpfile_deflate(const void *p, size_t n, int flush,
                                  uint64_t deadline_ns)
{
  df.zs.next_in = (Bytef *)p;
  df.zs.avail_in = (uInt)n;
  do {
    int ret, err;
    size_t have;

    df.zs.next_out = dfb->out;
    df.zs.avail_out = sizeof(dfb->out);
    ret = deflate(&df.zs, flush);
    if (Z_STREAM_ERROR == ret) return EIO;
    have = sizeof(dfb->out) - df.zs.avail_out;
    if (have > 0 && (err = dump_write_all(dfb->out, have, deadline_ns)) != 0)
      return err;
  } while (0 == df.zs.avail_out || df.zs.avail_in > 0);
  return 0;
}

GC_INNER int gca_dumpfile_deflate_entry(int tape, const char *a, size_t na,
                                        const char *b, size_t nb, int flush)
{
  int err;

  if (!tape) {
    if (nb != 0 && (err = gca_dumpfile_deflate(a, na, Z_NO_FLUSH, 0)) != 0)
      return err;
    return nb != 0 ? gca_dumpfile_deflate(b, nb, flush, 0)
                   : gca_dumpfile_deflate(a, na, flush, 0);
  }
  if (nb != 0) {
    df_tape.len = 0;
    gca_text_put(&df_tape, a, na);
    gca_text_put(&df_tape, b, nb);
    a = df_tape.buf;
    na += nb;
  }
  df_line.len = 0;
  if (df_tape.fail || !gca_tape_text(&df_line, a, na)) {
    (void)gca_dumpfile_deflate(NULL, 0, Z_SYNC_FLUSH, 0);   /* the rest */
    return df_line.fail || df_tape.fail ? ENOMEM : EINVAL;
  }
  return gca_dumpfile_deflate(df_line.buf, df_line.len, flush, 0);
}


/* Expand %p (the pid) and %% in tmpl into dfb->path; 0 if it fits.  */
static int dump_expand_path(const char *tmpl)
{
  size_t o = 0;
  const char *p;

  for (p = tmpl; *p != '\0'; p++) {
    char pid[32];
    const char *add = pid;

    if ('%' == p[0] && 'p' == p[1]) {
      (void)snprintf(pid, sizeof(pid), "%ld", (long)getpid());
      p++;
    } else if ('%' == p[0] && '%' == p[1]) {
      pid[0] = '%'; pid[1] = '\0';
      p++;
    } else {
      pid[0] = *p; pid[1] = '\0';
    }
    if (o + strlen(add) >= sizeof(dfb->path)) return -1;
    strcpy(dfb->path + o, add);
    o += strlen(add);
  }
  dfb->path[o] = '\0';
  return 0;
}

#ifndef GCA_WIN32
/* Open dfb->path without blocking and without truncating; tell what */
/* it is: a FIFO with no reader fails at once (ENXIO) rather than keep  */
/* the program from starting; writes wait in poll() slices that the     */
/* writer thread (or a stop) bounds (dump_write_all).  A regular file   */
/* is claimed (an exclusive advisory lock on the open file, never       */
/* waited for) before it is truncated: 1 if claimed or not a regular    */
/* file, 0 if another open file holds the claim (then closed), -1 on    */
/* an error (errno).                                                      */
static int dump_open_claimed(void)
{
  struct stat st;
  int ok;

  df.fd = open(dfb->path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
  if (df.fd < 0) return -1;
  ok = fstat(df.fd, &st) == 0;
  df.regular = ok && S_ISREG(st.st_mode);
  df.kind = df.regular ? GCA_DUMPFILE_REGULAR
            : ok && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
              ? GCA_DUMPFILE_PIPE : GCA_DUMPFILE_OTHER;
  if (!df.regular) return 1;      /* a FIFO, a device: as they are      */
  /* flock: the claim belongs to this open file (not inherited past    */
  /* exec: O_CLOEXEC), and lasts until it is closed, when the dump     */
  /* stops.  A file system without locks (ENOLCK) is written as before. */
  if (flock(df.fd, LOCK_EX | LOCK_NB) != 0
      && (EWOULDBLOCK == errno || EAGAIN == errno)) {
    (void)close(df.fd);
    df.fd = -1;
    return 0;
  }
  if (ftruncate(df.fd, 0) != 0) {
    int err = errno;

    (void)close(df.fd);
    df.fd = -1;
    errno = err;
    return -1;
  }
  return 1;
}
#else /* GCA_WIN32 */
/* Windows: the claim is the open itself, shared for reading (a reader */
/* may follow the dump) but not for writing: a second writer's open    */
/* fails with a sharing violation (0: write PATH.PID), and no process   */
/* truncates a dump another is writing.  Truncated once claimed.  The   */
/* handle is not inherited by child processes.  A named pipe is written */
/* in PIPE_NOWAIT mode, so a reader that stops reading never blocks a   */
/* write (dump_write_all).  1, 0 or -1 (errno) as on POSIX.              */
static int dump_open_claimed(void)
{
  DWORD type, mode = PIPE_READMODE_BYTE | PIPE_NOWAIT;
  int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, dfb->path, -1,
                              dfb->wpath, PATH_MAX + 1);

  if (n <= 0)   /* not UTF-8: the program's ANSI code page */
    n = MultiByteToWideChar(CP_ACP, 0, dfb->path, -1, dfb->wpath,
                            PATH_MAX + 1);
  if (n <= 0) {
    errno = ENAMETOOLONG;
    return -1;
  }
  df_h = CreateFileW(dfb->wpath, GENERIC_WRITE,
                     FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, OPEN_ALWAYS,
                     FILE_ATTRIBUTE_NORMAL, NULL);
  if (INVALID_HANDLE_VALUE == df_h) {
    DWORD e = GetLastError();

    if (ERROR_SHARING_VIOLATION == e || ERROR_LOCK_VIOLATION == e) return 0;
    errno = dumpfile_win_errno(e);
    return -1;
  }
  df.fd = 0;
  type = GetFileType(df_h);
  df.regular = FILE_TYPE_DISK == type;
  df.kind = df.regular ? GCA_DUMPFILE_REGULAR
            : FILE_TYPE_PIPE == type ? GCA_DUMPFILE_PIPE : GCA_DUMPFILE_OTHER;
  if (FILE_TYPE_PIPE == type)
    (void)SetNamedPipeHandleState(df_h, &mode, NULL, NULL);
  if (df.regular && !SetEndOfFile(df_h)) {   /* at offset 0: truncates */
    int err = dumpfile_win_errno(GetLastError());

    gca_dumpfile_close();
    errno = err;
    return -1;
  }
  return 1;
}
#endif /* GCA_WIN32 */

GC_INNER int gca_dumpfile_open(const char *tmpl)
{
  int claimed;

  df.fd = -1;
  df.abandoned = 0;
  if (NULL == dfb
      && NULL == (dfb = (struct dumpfile_bufs *)gca_os_alloc(sizeof(*dfb)))) {
    gca_dumpfile_warn("cannot open dump file", ENOMEM);
    return GC_NO_MEMORY;
  }
  if (dump_expand_path(tmpl) != 0) {
    (void)snprintf(dfb->path, sizeof(dfb->path), "%.64s...", tmpl);
    gca_dumpfile_warn("cannot open dump file", ENAMETOOLONG);
    return GC_ERROR;
  }
  claimed = dump_open_claimed();
  if (0 == claimed) {
    /* Another process is writing it (a child after exec given the     */
    /* same GC_ACC_DUMP, an unrelated program): never touch its dump;  */
    /* write PATH.PID instead, and say so once.                        */
    size_t n = strlen(dfb->path);         /* dfb->path[0, n): the first */

    if (snprintf(dfb->path + n, sizeof(dfb->path) - n, ".%ld", (long)getpid())
        >= (int)(sizeof(dfb->path) - n)) {
      dfb->path[n] = '\0';
      gca_dumpfile_warn("cannot open dump file (in use by another process)",
                        ENAMETOOLONG);
      return GC_ERROR;
    }
    claimed = dump_open_claimed();
    if (0 == claimed) {
      gca_dumpfile_warn("cannot open dump file (in use by another process)",
                        EBUSY);
      return GC_ERROR;
    }
    if (claimed > 0) {
      (void)snprintf(dfb->msg, sizeof(dfb->msg), "gcacc: dump file %.*s is in"
                     " use by another process; writing %.*s instead",
                     (int)n, dfb->path, PATH_MAX, dfb->path);
      WARN("%s\n", (word)dfb->msg);
    }
  }
  if (claimed < 0) {
    gca_dumpfile_warn(ENXIO == errno ? "cannot open dump file (a FIFO no"
                                       " process reads)"
                                     : "cannot open dump file", errno);
    return GC_ERROR;
  }
  BZERO(&df.zs, sizeof(df.zs));
  df.zs.zalloc = dump_zalloc;
  df.zs.zfree = dump_zfree;
  if (deflateInit2(&df.zs, GCA_DUMP_ZLEVEL, Z_DEFLATED,
                   GCA_DUMP_ZWINDOW + 16 /* gzip */, GCA_DUMP_ZMEMLEVEL,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    gca_dumpfile_warn("cannot set up dump file", ENOMEM);
    gca_dumpfile_close();
    return GC_NO_MEMORY;
  }
  df.zs_ready = 1;
  return GC_SUCCESS;
}

#ifndef GCA_WIN32
/* The header, from the starting thread: with SIGXFSZ and SIGPIPE       */
/* blocked there, so a file-size limit or a closed pipe is an error     */
/* (EFBIG, EPIPE), not the end of the program; a signal that write      */
/* raised meanwhile is taken off this thread before they are unblocked. */
/* At most DUMP_HEADER_WAIT_NS on a pipe that does not drain.           */
#define DUMP_HEADER_WAIT_NS ((word)1000000000)
GC_INNER int gca_dumpfile_write_header(const char *p, size_t n)
{
  sigset_t fault, old, before, after;
  struct timespec zero = { 0, 0 };
  int err, sig;

  (void)sigemptyset(&fault);
  (void)sigaddset(&fault, SIGXFSZ);
  (void)sigaddset(&fault, SIGPIPE);
  (void)pthread_sigmask(SIG_BLOCK, &fault, &old);
  (void)sigpending(&before);
  err = gca_dumpfile_deflate(p, n, Z_SYNC_FLUSH,
                           gca_now_ns() + DUMP_HEADER_WAIT_NS);
  (void)sigpending(&after);
  for (sig = 0; sig < 2; sig++) {
    int s = 0 == sig ? SIGXFSZ : SIGPIPE;

    if (sigismember(&after, s) == 1 && sigismember(&before, s) != 1) {
      sigset_t one;

      (void)sigemptyset(&one);
      (void)sigaddset(&one, s);
      (void)sigtimedwait(&one, NULL, &zero);
    }
  }
  (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
  return err;
}

/* In a child after fork(): its copy of the parent's descriptor shares */
/* the parent's claim; closed, so the claim ends when the parent's     */
/* dump stops, whatever the child does.                                 */
GC_INNER void gca_dumpfile_atfork_child(void)
{
  if (df.fd >= 0) (void)close(df.fd);
  df.fd = -1;
}

GC_INNER void gca_dumpfile_close(void)
{
  if (df.zs_ready) (void)deflateEnd(&df.zs);
  df.zs_ready = 0;
  gca_text_free(&df_tape);
  gca_text_free(&df_line);
  if (df.fd >= 0) (void)close(df.fd);
  df.fd = -1;
}
#else /* GCA_WIN32 */
/* Windows has no signals to keep off: at most DUMP_HEADER_WAIT_NS on a */
/* pipe that does not drain.                                             */
#define DUMP_HEADER_WAIT_NS ((word)1000000000)
GC_INNER int gca_dumpfile_write_header(const char *p, size_t n)
{
  return gca_dumpfile_deflate(p, n, Z_SYNC_FLUSH,
                              gca_now_ns() + DUMP_HEADER_WAIT_NS);
}

GC_INNER void gca_dumpfile_atfork_child(void) {}

GC_INNER void gca_dumpfile_close(void)
{
  if (df.zs_ready) (void)deflateEnd(&df.zs);
  df.zs_ready = 0;
  gca_text_free(&df_tape);
  gca_text_free(&df_line);
  if (df_h != INVALID_HANDLE_VALUE) (void)CloseHandle(df_h);
  df_h = INVALID_HANDLE_VALUE;
  df.fd = -1;
}
#endif /* GCA_WIN32 */

#endif
