/* SPDX-License-Identifier: MIT */
/*
 * classes.c: IL2CPP's classes, read without ever faulting.
 *
 * In the il2cpp type mode (GC_ACC_TYPES=il2cpp) word 0 of an object is
 * taken to be its Il2CppClass, a struct il2cpp allocates with malloc,
 * outside the collector's heap.  A word 0 may be anything, though: a
 * NORMAL object that is runtime data, a class since freed, a stale
 * value.  So this module never dereferences such a word: it copies
 * through gca_peek, a read that fails instead of faulting, and tags.c
 * (validation, at a census or a free) and types.c (names, when a record
 * first defines the type) go through it.
 *
 * gca_peek, by platform:
 *   Linux: process_vm_readv(2) on our own pid.  The kernel walks our
 *     page tables and copies, or answers EFAULT for an unmapped page, a
 *     PROT_NONE page, or device memory (VM_IO/VM_PFNMAP, where a plain
 *     load could have side effects).  It is atomic with respect to
 *     another thread's munmap: the census runs with the world running,
 *     so a check of /proc/self/maps followed by a load could still
 *     fault between the two, and a SIGSEGV handler would fight the
 *     embedder's (Mono/IL2CPP install their own) and the collector's.
 *     One system call per read; reads happen once per class and callsite
 *     the census has not cached (tags.c), not per object.  A process
 *     may always read itself (ptrace access checks pass for one's own
 *     thread group, Yama included); where a seccomp filter refuses the
 *     call (EPERM) or the kernel lacks it (ENOSYS, before 3.2), the
 *     pipe below takes over for good.
 *   Other POSIX systems, and that fallback: write(2) of the bytes to a
 *     pipe of our own, then read(2) back.  The kernel copies from our
 *     address space with the same fault handling (EFAULT, never a
 *     signal).  Two system calls; the pipe is made on first use, is
 *     non-blocking and close-on-exec, and made again in a forked child
 *     (which must not share it with its parent).
 *   Windows: ReadProcessMemory on the current process, which fails
 *     (FALSE, or fewer bytes) where a load would fault (built with
 *     mingw-w64 and run under wine64 by tests/cross/windows.sh:
 *     gameload's garbage in word 0).
 * errno is left as it was.
 *
 * An Il2CppClass (../shared/IL2CPP.md section 4; the first 14 fields
 * are the same from Unity 2019.4 to 6000.0) is recognised by its self-
 * pointer field `klass` (byte 120 on 64-bit, 60 on 32-bit): k is a class
 * if the word there equals k.  Its name is "namespaze.name" (bytes
 * 24/12 and 16/8), or "name" when the namespace is empty.  Strings are
 * read a 4 KiB-aligned chunk at a time (no chunk spans two pages, so a
 * string ending just before an unmapped page reads), at most the
 * caller's buffer.  Its static fields' block (static_fields, byte 184 on
 * 64-bit, 92 on 32-bit) names the uncollectable blocks a retention path
 * starts from (retain_record.c).
 *
 * Words that fail count under a type of their own per kind, "unknown
 * (<kind name>)": its cookie is the address of a byte of class_unknown,
 * which no class and no embedder's cookie can be.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#ifdef GC_GCJ_SUPPORT
# include "gc_gcj.h"            /* GC_gcj_kind */
#endif

#include <stdio.h>
#include <string.h>

#if defined(_WIN32)
  /* windows.h: included by the collector's private headers.            */
#else
# include <errno.h>
# include <fcntl.h>
# include <unistd.h>
# if defined(__linux__)
#   include <sys/syscall.h>
#   include <sys/uio.h>
#   ifdef SYS_process_vm_readv
#     define PEEK_VM 1
#   endif
# endif
#endif

/* ---- the fault-free read ------------------------------------------------ */

#if !defined(_WIN32)
static int peek_no_vm = 0;              /* process_vm_readv unavailable */
static int peek_pipe[2] = { -1, -1 };
static pid_t peek_pipe_pid = 0;

# ifdef PEEK_VM
/* 1 read, 0 not readable, -1 the call is unavailable here.             */
static int peek_vm(void *buf, word addr, size_t n)
{
  struct iovec l, r;
  long got;

  l.iov_base = buf;
  l.iov_len = n;
  r.iov_base = (void *)addr;
  r.iov_len = n;
  got = syscall(SYS_process_vm_readv, (long)getpid(), &l, 1UL, &r, 1UL,
                0UL);
  if (got == (long)n) return 1;
  if (got < 0 && (ENOSYS == errno || EPERM == errno)) return -1;
  return 0;
}
# endif

static int peek_pipe_open(void)
{
  pid_t me = getpid();
  int i;

  if (peek_pipe[0] >= 0 && peek_pipe_pid == me) return 1;
  if (peek_pipe[0] >= 0) {              /* a forked child: its own pipe */
    (void)close(peek_pipe[0]);
    (void)close(peek_pipe[1]);
    peek_pipe[0] = peek_pipe[1] = -1;
  }
  if (pipe(peek_pipe) != 0) {
    peek_pipe[0] = peek_pipe[1] = -1;
    return 0;
  }
  for (i = 0; i < 2; i++) {
    (void)fcntl(peek_pipe[i], F_SETFL,
                fcntl(peek_pipe[i], F_GETFL) | O_NONBLOCK);
    (void)fcntl(peek_pipe[i], F_SETFD, FD_CLOEXEC);
  }
  peek_pipe_pid = me;
  return 1;
}

static int peek_by_pipe(void *buf, word addr, size_t n)
{
  long w, got = 0;

  if (!peek_pipe_open()) return 0;
  w = (long)write(peek_pipe[1], (const void *)addr, n);
  if (w <= 0) return 0;
  while (got < w) {                     /* drain what went in           */
    long r = (long)read(peek_pipe[0], (char *)buf + got, (size_t)(w - got));

    if (r <= 0) break;
    got += r;
  }
  return w == (long)n && got == w;
}
#endif /* !_WIN32 */

GC_INNER int gca_peek(void *buf, word addr, size_t n)
{
  int ok;

  if (0 == n) return 1;
  if (addr + n < addr) return 0;
#if defined(_WIN32)
  {
    SIZE_T got = 0;

    ok = ReadProcessMemory(GetCurrentProcess(), (LPCVOID)addr, buf, n, &got)
         && got == n;
  }
#else
  {
    int saved = errno;

    ok = -1;
#   ifdef PEEK_VM
      if (!peek_no_vm) {
        ok = peek_vm(buf, addr, n);
        if (ok < 0) peek_no_vm = 1;
      }
#   endif
    if (ok < 0) ok = peek_by_pipe(buf, addr, n);
    errno = saved;
  }
#endif
  return ok > 0;
}

/* ---- Il2CppClass -------------------------------------------------------- */

#if CPP_WORDSZ == 64
# define CLASS_NAME 16
# define CLASS_NAMESPACE 24
# define CLASS_DECLARING 80
# define CLASS_PARENT 88
# define CLASS_SELF 120
# define CLASS_STATICS 184
#else
# define CLASS_NAME 8
# define CLASS_NAMESPACE 12
# define CLASS_DECLARING 40
# define CLASS_PARENT 44
# define CLASS_SELF 60
# define CLASS_STATICS 92
#endif

GC_INNER int gca_class_valid(word k)
{
  word self;

  /* A user-space, word-aligned address above the zero page.           */
  if ((k & (sizeof(word) - 1)) != 0 || k < 4096) return 0;
# if CPP_WORDSZ == 64
    if ((k >> 47) != 0) return 0;
# endif
  if (!gca_peek(&self, k + CLASS_SELF, sizeof(self))) return 0;
  return self == k;
}

/* Class k's static_fields (the block il2cpp allocates for the class's */
/* static fields: GC_MALLOC_UNCOLLECTABLE through AllocateFixed), its   */
/* declaringType and parent, in one read of bytes CLASS_DECLARING to    */
/* CLASS_STATICS (its self-pointer among them: 0 if k is no class).     */
/* static_fields is the 22nd field, after klass: fields, events,        */
/* properties, methods, nestedTypes, implementedInterfaces and          */
/* interfaceOffsets, all pointers (il2cpp-class-internals.h, 2019.4 to  */
/* 6000.0).                                                              */
GC_INNER int gca_class_statics(word k, word *statics, word *declaring,
                               word *parent)
{
  word w[(CLASS_STATICS - CLASS_DECLARING) / sizeof(word) + 1];

  if ((k & (sizeof(word) - 1)) != 0 || k < 4096
      || !gca_peek(w, k + CLASS_DECLARING, sizeof(w))
      || w[(CLASS_SELF - CLASS_DECLARING) / sizeof(word)] != k)
    return 0;
  *declaring = w[0];
  *parent = w[(CLASS_PARENT - CLASS_DECLARING) / sizeof(word)];
  *statics = w[(CLASS_STATICS - CLASS_DECLARING) / sizeof(word)];
  return 1;
}

/* The string at addr into buf[0..sz) (sz > 0), NUL-terminated and cut  */
/* to fit; its length, or -1 if unreadable.                             */
static long class_read_str(word addr, char *buf, size_t sz)
{
  size_t len = 0;

  while (len + 1 < sz) {
    word at = addr + len;
    size_t chunk = 4096 - (size_t)(at & 4095), i;

    if (chunk > sz - 1 - len) chunk = sz - 1 - len;
    if (!gca_peek(buf + len, at, chunk)) return -1;
    for (i = 0; i < chunk; i++) {
      if ('\0' == buf[len + i]) return (long)(len + i);
    }
    len += chunk;
  }
  buf[len] = '\0';
  return (long)len;
}

GC_INNER int gca_class_name(word k, char *buf, size_t sz)
{
  word name = 0, nspace = 0;
  long n;

  if (sz < 2 || !gca_class_valid(k)) return 0;
  if (!gca_peek(&name, k + CLASS_NAME, sizeof(word))
      || !gca_peek(&nspace, k + CLASS_NAMESPACE, sizeof(word))
      || 0 == name)
    return 0;
  n = 0;
  buf[0] = '\0';
  if (nspace != 0) {
    n = class_read_str(nspace, buf, sz - 1);
    if (n < 0) return 0;
    if (n > 0) buf[n++] = '.';
  }
  if (class_read_str(name, buf + n, sz - (size_t)n) <= 0) return 0;
  return 1;
}

/* ---- unknown words, per kind ------------------------------------------- */

static const char class_unknown[MAXOBJKINDS] = { 0 };
static const char *class_kind_names[MAXOBJKINDS];

GC_INNER word gca_class_unknown(unsigned kind)
{
  return (word)&class_unknown[kind < MAXOBJKINDS ? kind : 0];
}

GC_INNER void gca_class_set_kind_name(unsigned kind, const char *name)
{
  if (kind < MAXOBJKINDS) class_kind_names[kind] = name;
}

GC_INNER int gca_class_unknown_name(word cookie, char *buf, size_t sz)
{
  static const char *const base[] = {
    "ptrfree", "normal", "uncollectable", "atomic_uncollectable"
  };
  unsigned k;
  const char *name;

  if (cookie < (word)class_unknown
      || cookie >= (word)class_unknown + MAXOBJKINDS)
    return 0;
  k = (unsigned)(cookie - (word)class_unknown);
  name = class_kind_names[k];
# ifdef GC_GCJ_SUPPORT
    if (NULL == name && GC_gcj_kind != 0 && k == (unsigned)GC_gcj_kind)
      name = "gcj";
# endif
  if (NULL == name && k < sizeof(base) / sizeof(base[0])) name = base[k];
  if (name != NULL) {
    (void)snprintf(buf, sz, "unknown (%s)", name);
  } else {
    (void)snprintf(buf, sz, "unknown (kind %u)", k);
  }
  return 1;
}

#endif /* !GC_ACC_DISABLE */
