/* SPDX-License-Identifier: MIT */
/*
 * header.c: the dump's first line (docs/dump-format.md, "The header
 * record").
 *
 * Versions, pid, clocks, the effective settings and the collector's
 * configuration, the columns of every positional table (gca_fields.h),
 * the executable and the loaded modules with their build ids.  Written
 * with text.c (one JSON escaper for paths and names), into OS memory:
 * no jansson, no malloc.  The writer calls gca_header_build when a dump
 * starts (control.c hands it the function), lock not held.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifdef GCA_WIN32
# include <tlhelp32.h>
#else
# include <unistd.h>
#endif

#include "gca_fields.h"
#include "gca_settings.h"

#if defined(__linux__) || defined(__FreeBSD__) || defined(__NetBSD__) \
    || defined(__OpenBSD__) || defined(__DragonFly__)
# define HEADER_HAVE_DL_ITERATE_PHDR
# include <link.h>
# include <elf.h>
#endif
#ifndef PATH_MAX
# define PATH_MAX 4096
#endif

#define H_LIT(t, s) GCA_TEXT_LIT(t, s)

/* Our own keys are plain ASCII: no escaping.                         */
static void header_key(struct gca_text *t, const char *key)
{
  /* No comma right after the object's opening brace.                  */
  if (t->len > 0 && !t->fail && t->buf[t->len - 1] == '{')
    H_LIT(t, "\"");
  else
    H_LIT(t, ",\"");
  gca_text_put(t, key, strlen(key));
  H_LIT(t, "\":");
}

static void header_key_word(struct gca_text *t, const char *key, word v)
{
  header_key(t, key);
  gca_text_word(t, v);
}

static void header_key_bool(struct gca_text *t, const char *key, int v)
{
  header_key(t, key);
  if (v) H_LIT(t, "true"); else H_LIT(t, "false");
}

static void header_key_string(struct gca_text *t, const char *key,
                              const char *v)
{
  header_key(t, key);
  gca_text_cstring(t, v);
}

/* Times are 64-bit on every target: a 32-bit word of nanoseconds     */
/* wraps every 4.3 s.                                                    */
static void header_key_u64(struct gca_text *t, const char *key, uint64_t v)
{
  header_key(t, key);
  gca_text_u64(t, v);
}

/* An integer of the config: the reader refuses one above 2^63 - 1, and */
/* every setting is refused beyond that (env.c, the API); were one ever */
/* to pass, the header stays readable.                                   */
static void header_key_int(struct gca_text *t, const char *key,
                           unsigned long long v)
{
  header_key_u64(t, key, v > GCA_JSON_INT_MAX ? GCA_JSON_INT_MAX : v);
}

static uint64_t header_realtime_ns(void)
{
  struct timespec ts;

  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifdef HEADER_HAVE_DL_ITERATE_PHDR
  /* The GNU build-id of a loaded module, as hex into buf, or "".       */
  static void header_build_id(struct dl_phdr_info *info, char *buf,
                              size_t bufsz)
  {
    int i;

    buf[0] = '\0';
    for (i = 0; i < (int)info->dlpi_phnum; i++) {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      const char *p, *end;

      if (ph->p_type != PT_NOTE) continue;
      p = (const char *)(info->dlpi_addr + ph->p_vaddr);
      end = p + ph->p_memsz;
      while (p + sizeof(ElfW(Nhdr)) <= end) {
        const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
        const char *name = p + sizeof(*nh);
        const unsigned char *desc = (const unsigned char *)name
                                    + ((nh->n_namesz + 3) & ~3u);

        if ((const char *)desc + nh->n_descsz > end) break;
        if (NT_GNU_BUILD_ID == nh->n_type && 4 == nh->n_namesz
            && memcmp(name, "GNU", 4) == 0) {
          static const char hex[] = "0123456789abcdef";
          size_t j;

          for (j = 0; j < nh->n_descsz && 2 * j + 2 < bufsz; j++) {
            buf[2 * j] = hex[desc[j] >> 4];
            buf[2 * j + 1] = hex[desc[j] & 0xf];
            buf[2 * j + 2] = '\0';
          }
          return;
        }
        p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
      }
    }
  }

  struct header_modules_arg {
    struct gca_text *t;
    const char *exe;
    int first;
  };

  static int header_module_cb(struct dl_phdr_info *info, size_t size,
                              void *data)
  {
    struct header_modules_arg *a = (struct header_modules_arg *)data;
    const char *path = info->dlpi_name;
    char s[2 * 64 + 4];

    (void)size;
    if (NULL == path || '\0' == path[0]) path = a->exe;
    if (!a->first) H_LIT(a->t, ",");
    H_LIT(a->t, "{\"path\":");
    a->first = 0;
    gca_text_cstring(a->t, path ? path : "");
    H_LIT(a->t, ",\"base\":");
    gca_text_hex(a->t, (word)info->dlpi_addr);
    header_build_id(info, s, sizeof(s));
    header_key_string(a->t, "build_id", s);
    H_LIT(a->t, "}");
    return 0;
  }
#endif /* HEADER_HAVE_DL_ITERATE_PHDR */

#ifdef GCA_WIN32
  /* A wide path as UTF-8 into s (n bytes), "" if it does not fit.     */
  static void header_utf8(const WCHAR *w, char *s, int n)
  {
    if (WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL) <= 0)
      s[0] = '\0';
  }

  /* The CodeView record of the PE image at base (its debug directory,  */
  /* read with gca_peek, never faulting): the PDB's GUID and age as a   */
  /* symbol server names them (GUID's 32 hex digits, then the age's),   */
  /* into id, and its path into pdb; "" for an image without one.       */
  static void header_codeview(word base, char *id, char *pdb, size_t pdbsz)
  {
    IMAGE_DOS_HEADER dos;
    IMAGE_NT_HEADERS nt;
    IMAGE_DATA_DIRECTORY dd;
    unsigned i;

    id[0] = pdb[0] = '\0';
    if (!gca_peek(&dos, base, sizeof(dos)) || dos.e_magic != IMAGE_DOS_SIGNATURE
        || !gca_peek(&nt, base + (word)dos.e_lfanew, sizeof(nt))
        || nt.Signature != IMAGE_NT_SIGNATURE
        || nt.OptionalHeader.NumberOfRvaAndSizes <= IMAGE_DIRECTORY_ENTRY_DEBUG)
      return;
    dd = nt.OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_DEBUG];
    for (i = 0; i < 16 && (i + 1) * sizeof(IMAGE_DEBUG_DIRECTORY) <= dd.Size;
         i++) {
      IMAGE_DEBUG_DIRECTORY d;
      struct { DWORD sig; unsigned char guid[16]; DWORD age; } cv;
      size_t k;

      if (!gca_peek(&d, base + dd.VirtualAddress
                        + i * sizeof(IMAGE_DEBUG_DIRECTORY), sizeof(d)))
        return;
      if (d.Type != IMAGE_DEBUG_TYPE_CODEVIEW || d.AddressOfRawData == 0
          || d.SizeOfData < sizeof(cv) + 1
          || !gca_peek(&cv, base + d.AddressOfRawData, sizeof(cv))
          || cv.sig != 0x53445352 /* "RSDS" */)
        continue;
      /* GUID: Data1, Data2, Data3 little-endian, then Data4's bytes.  */
      (void)snprintf(id, 48, "%02X%02X%02X%02X%02X%02X%02X%02X", cv.guid[3],
                     cv.guid[2], cv.guid[1], cv.guid[0], cv.guid[5], cv.guid[4],
                     cv.guid[7], cv.guid[6]);
      for (k = 8; k < 16; k++)
        (void)snprintf(id + 2 * k, 3, "%02X", cv.guid[k]);
      (void)snprintf(id + 32, 16, "%lX", (unsigned long)cv.age);
      for (k = 0; k + 1 < pdbsz && k < d.SizeOfData - sizeof(cv); k++)
        if (!gca_peek(&pdb[k], base + d.AddressOfRawData + sizeof(cv) + k, 1)
            || '\0' == pdb[k])
          break;
      pdb[k] = '\0';
      return;
    }
  }

  /* The loaded PE images (a snapshot, Toolhelp32): path, base, size,  */
  /* and the CodeView record (build_id: GUID and age; pdb: its path).   */
  static void header_win_modules(struct gca_text *t)
  {
    static MODULEENTRY32W me;           /* one start at a time */
    static char s[PATH_MAX], pdb[PATH_MAX];
    char id[48];
    int first = 1;
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPMODULE, 0);

    if (INVALID_HANDLE_VALUE == snap) return;
    me.dwSize = sizeof(me);
    if (Module32FirstW(snap, &me)) {
      do {
        header_utf8(me.szExePath, s, (int)sizeof(s));
        if (!first) H_LIT(t, ",");
        first = 0;
        H_LIT(t, "{\"path\":");
        gca_text_cstring(t, s);
        H_LIT(t, ",\"base\":");
        gca_text_hex(t, (word)me.modBaseAddr);
        header_key_word(t, "size", (word)me.modBaseSize);
        header_codeview((word)me.modBaseAddr, id, pdb, sizeof(pdb));
        header_key_string(t, "build_id", id);
        if (pdb[0] != '\0') header_key_string(t, "pdb", pdb);
        H_LIT(t, "}");
      } while (Module32NextW(snap, &me));
    }
    (void)CloseHandle(snap);
  }
#endif /* GCA_WIN32 */

/* The columns of every positional table (gca_fields.h).               */
static void header_columns(struct gca_text *t)
{
  int first_table = 1, first;

  H_LIT(t, ",\"columns\":{");
# define HEADER_COL(tab, col) \
    if (!first) H_LIT(t, ","); \
    H_LIT(t, "\"" #col "\""); \
    first = 0;
# define HEADER_TABLE(id, key, cols) \
    if (!first_table) H_LIT(t, ","); \
    H_LIT(t, "\"" key "\":["); \
    first_table = 0; \
    first = 1; \
    cols(HEADER_COL) \
    H_LIT(t, "]");
  GCA_DUMP_TABLES(HEADER_TABLE)
# undef HEADER_TABLE
# undef HEADER_COL
  H_LIT(t, "}");
}

/* The sampled profile takes the stack of each sample and of no other */
/* object, whatever GC_ACC_STACKS says: the header says "samples", and */
/* a setting that asked for more (all, sample=BYTES) is told once.      */
static void header_stacks_warn(void)
{
  static int said = 0;
  int m = gca_stacks_mode;

  if (said || gca_profile != GCA_PROFILE_SAMPLED || GCA_STACKS_OFF == m)
    return;
  said = 1;
  WARN("gcacc: GC_ACC_STACKS=%s has no effect under the sampled profile,"
       " which keeps the call stack of each sample and of no other"
       " object (the dump says stacks \"samples\"); GC_ACC_PROFILE=full"
       " applies it\n", (word)(GCA_STACKS_ALL == m ? "all" : "sample"));
}

GC_INNER int gca_header_build(struct gca_text *t, const char *path,
                              size_t buffer_limit)
{
  char s[PATH_MAX];
  unsigned v = GC_get_version();
# ifndef GCA_WIN32
    ssize_t n;
# else
    static WCHAR w[PATH_MAX];
# endif
  struct {
    const char *path;
    size_t limit;
  } dump;

  /* 2: collection records may be deltas ("delta_of", record.c).      */
  H_LIT(t, "{\"record\":\"header\",\"format_version\":2");
  (void)snprintf(s, sizeof(s), "%u.%u.%u", GC_ACC_VERSION / 10000,
                 GC_ACC_VERSION / 100 % 100, GC_ACC_VERSION % 100);
  header_key_string(t, "gcacc_version", s);
  (void)snprintf(s, sizeof(s), "%u.%u.%u", (v >> 16) & 0xffff,
                 (v >> 8) & 0xff, v & 0xff);
  header_key_string(t, "bdwgc_version", s);
  header_key_word(t, "pid", (word)getpid());
  header_key_u64(t, "start_time_ns", header_realtime_ns());
  /* The records' clock (gca_now_ns), that times count from.           */
  header_key_u64(t, "start_mono_ns", gca_now_ns());

  /* Effective GC_ACC_* settings, from the one list (gca_settings.h),   */
  /* whose expressions name the dump being opened as dump.path and      */
  /* dump.limit.                                                         */
  dump.path = path;
  dump.limit = buffer_limit;
  H_LIT(t, ",\"config\":{");
# define HDR_boolean(key, e) header_key_bool(t, key, (e) != 0)
# define HDR_integer(key, e) header_key_int(t, key, (unsigned long long)(e))
# define HDR_string(key, e) header_key_string(t, key, e)
# define HDR_path(key, e) header_key_string(t, key, e)
# define HDR_KEY(name, key, json, expr) HDR_##json(#key, expr);
  GCA_SETTINGS(GCA_S_SKIP, HDR_KEY, GCA_A_SKIP)
# undef HDR_KEY
  header_stacks_warn();
  /* The collector's build and run-time configuration.                  */
  header_key_word(t, "word_bytes", sizeof(word));
  header_key_word(t, "granule_bytes", GRANULE_BYTES);
  header_key_word(t, "hblksize", HBLKSIZE);
  header_key_word(t, "max_small_bytes", MAXOBJBYTES);
  header_key_word(t, "max_obj_kinds", MAXOBJKINDS);
  header_key_word(t, "n_kinds", GC_n_kinds);
  header_key_word(t, "n_classes", GCA_N_CLASSES);
  header_key_word(t, "large_class0", GCA_LARGE0);
  header_key_word(t, "large_log0", GCA_LARGE_LOG0);
  header_key_word(t, "n_hblk_fls", GCA_N_HBLK_FLS);
# ifdef THREADS
    header_key_bool(t, "threads", 1);
# else
    header_key_bool(t, "threads", 0);
# endif
# ifdef THREAD_LOCAL_ALLOC
    header_key_bool(t, "thread_local_alloc", 1);
# else
    header_key_bool(t, "thread_local_alloc", 0);
# endif
# ifdef PARALLEL_MARK
    header_key_bool(t, "parallel_mark", 1);
# else
    header_key_bool(t, "parallel_mark", 0);
# endif
  header_key_word(t, "markers", (word)GC_get_parallel() + 1);
  header_key_bool(t, "all_interior_pointers", GC_all_interior_pointers);
  header_key_bool(t, "incremental", GC_is_incremental_mode());
# ifdef USE_MUNMAP
    header_key_bool(t, "munmap", 1);
# else
    header_key_bool(t, "munmap", 0);
# endif
  H_LIT(t, "}");

  header_columns(t);

# ifndef GCA_WIN32
    n = readlink("/proc/self/exe", s, sizeof(s) - 1);
    s[n > 0 ? n : 0] = '\0';
# else
    w[GetModuleFileNameW(NULL, w, PATH_MAX - 1) % PATH_MAX] = 0;
    header_utf8(w, s, (int)sizeof(s));
# endif
  header_key_string(t, "executable", s);
  H_LIT(t, ",\"modules\":[");
# ifdef GCA_WIN32
    header_win_modules(t);
# endif
# ifdef HEADER_HAVE_DL_ITERATE_PHDR
    {
      struct header_modules_arg a;

      a.t = t;
      a.exe = s;
      a.first = 1;
      (void)dl_iterate_phdr(header_module_cb, &a);
    }
# endif
  H_LIT(t, "]}\n");
  return !t->fail;
}

#endif
