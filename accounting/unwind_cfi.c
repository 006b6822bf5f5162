/* SPDX-License-Identifier: MIT */
/*
 * unwind_cfi.c: the walks by the unwind tables (DWARF call-frame
 * information): libgcc's _Unwind_Backtrace, and for sampled stacks under
 * auto (x86-64 glibc 2.35 and later: GCA_UNW_CFI, gca_unwind.h) the
 * table walk's cache of its rules.
 *
 * unwind.c hands down what the walks need from it, never called back:
 * the collector's code ranges (a copy, at its init), and with each table
 * walk the thread's stack bounds and the list of where code is (checked
 * against the collector's count by unwind.c, which lists it again when
 * the walk answers GCA_UNWCFI_RELIST).  This module reads the CIE's and
 * FDE's CFA programs and keeps the rules, their table, its memory
 * (GCA_MEM_UNWIND) and its counts.
 */

#include "gca_priv.h"
#include "gca_unwind.h"

#ifndef GC_ACC_DISABLE

#include <string.h>

/* ---- the collector's own code: unwind.c's ranges, copied at its init -- */

static word unwcfi_lo[GCA_UNW_MAX_RANGES], unwcfi_hi[GCA_UNW_MAX_RANGES];
static unsigned unwcfi_n = 0;

GC_INNER void gca_unwcfi_set_ranges(const word *lo, const word *hi,
                                    unsigned n)
{
  if (n > GCA_UNW_MAX_RANGES) n = GCA_UNW_MAX_RANGES;
  memcpy(unwcfi_lo, lo, n * sizeof(word));
  memcpy(unwcfi_hi, hi, n * sizeof(word));
  unwcfi_n = n;
}

#define unwcfi_in_libgc(ra) \
        gca_unw_in_ranges(unwcfi_lo, unwcfi_hi, unwcfi_n, ra)

/* ---- libgcc's walk: _Unwind_Backtrace ---------------------------------- */

struct unw_gcc {
  word *frames;
  unsigned max, n, skip;
  int in_gc;
};

#ifdef GCA_HAVE_UNWIND_H
static _Unwind_Reason_Code unw_gcc_cb(struct _Unwind_Context *ctx, void *arg)
{
  struct unw_gcc *s = (struct unw_gcc *)arg;
  word ra = (word)_Unwind_GetIP(ctx);

  if (0 == ra) return _URC_END_OF_STACK;
  if (s->in_gc && unwcfi_in_libgc(ra)) return _URC_NO_REASON;
  s->in_gc = 0;
  if (s->skip > 0) {
    s->skip--;
    return _URC_NO_REASON;
  }
  s->frames[s->n++] = ra;
  return s->n >= s->max ? _URC_END_OF_STACK : _URC_NO_REASON;
}
#endif

GC_INNER GC_ATTR_NOINLINE unsigned gca_unwcfi_gcc(word *frames, unsigned max,
                                                 unsigned skip)
{
  struct unw_gcc s;

  s.frames = frames;
  s.max = max;
  s.n = 0;
  s.skip = skip;
  s.in_gc = 1;
# ifdef GCA_HAVE_UNWIND_H   /* else no frames: the callsite unknown */
    if (max > 0) (void)_Unwind_Backtrace(unw_gcc_cb, &s);
# endif
  return s.n;
}

#ifdef GCA_UNW_CFI

/* ---- the table walk's cache: sampled stacks under auto ----------------- */
/* _Unwind_Backtrace finds and interprets a function's call-frame        */
/* information (its FDE) for every frame of every stack: some 13,000     */
/* instructions a sampled stack.  On x86-64 the rule that takes a frame  */
/* to its caller is nearly always CFA = rsp + N or rbp + N, the return   */
/* address at CFA - 8, rbp saved at CFA + M or left as it is: this walk  */
/* finds that rule once per return address (_Unwind_Find_FDE, as        */
/* libgcc does, and its own reading of the CIE's and FDE's instructions, */
/* as libgcc's execute_cfa_program reads them), keeps it in a table of   */
/* fixed size, and from then on takes a frame with one look-up and two   */
/* loads.  Its stacks are _Unwind_Backtrace's, frame for frame: the same */
/* return addresses reported, the same ends (no FDE: that frame is the   */
/* last; return address column undefined: the last; a 0 return          */
/* address: not reported).  What it does not model (a CFA by another    */
/* register or an expression, registers other than rbp that the rule    */
/* needs, signal frames, augmentations other than z, R, P, L, a CFA or   */
/* a saved slot outside the thread's stack) takes the whole walk to      */
/* _Unwind_Backtrace (counted: unw_cfi_falls, beside unw_cfi_walks, in  */
/* the records as unwind.fell_back, unwind.walks).  Every load lies in   */
/* the thread's stack between the frame's stack pointer and the top, so */
/* a rule made stale by a dlclose garbles a stack, never faults; rules   */
/* are forgotten when the list of loaded modules changes (checked at     */
/* most once a collection, as the fp walk's code list).                  */
/* The table: written under a sequence count a writer takes by one     */
/* compare-and-swap or skips (no insertion then), read without a lock:  */
/* a walk that saw the count move is thrown away and taken by           */
/* _Unwind_Backtrace.  Nothing here waits.                              */
/* (GCA_UNW_CFI: x86-64 glibc 2.35 and later, where auto takes sampled */
/* stacks by the tables; defined in gca_unwind.h.)                       */

/* libgcc's (and LLVM libunwind's) FDE look-up: not in <unwind.h>.      */
struct gca_eh_bases { void *tbase, *dbase, *func; };
extern const void *_Unwind_Find_FDE(void *, struct gca_eh_bases *);

#define UNW_R_CFA_RBP 1     /* CFA = rbp + cfa_off, else rsp + cfa_off  */
#define UNW_R_RBP_SAVED 2   /* the caller's rbp at CFA + rbp_off        */
#define UNW_R_LAST 4        /* the last frame reported (no FDE, or the  */
                            /* return address column undefined)         */
#define UNW_R_NONE 8        /* not modelled: _Unwind_Backtrace          */
#define UNW_R_SET 16        /* in every rule (0: an empty slot)         */
struct unw_rule {
  int32_t cfa_off;
  int16_t rbp_off;
  int8_t ra_off;            /* in words from the CFA                    */
  uint8_t flags;            /* UNW_R_*                                   */
};
union unw_rule_bits {
  struct unw_rule r;
  uint64_t bits;
};

/* Two sizes: 256 rules (4 KiB) at first, which most programs' sampled */
/* stacks fit; 2048 (32 KiB) once a rule finds no free slot in its      */
/* probes (the small table's rules moved over, the small one kept: a   */
/* walk may still be reading it).  4 KiB in a small program's           */
/* accounting memory, not 32 (acc_memory.unwind_bytes).                 */
#define UNW_CFI_LOG0 8
#define UNW_CFI_LOG 11
#define UNW_CFI_PROBES 16
/* Mapped at the first walk, not static: the collector scans static    */
/* data as roots (32 KiB of return addresses it need not scan).         */
struct unw_cfi_ent {
  word pc;
  union unw_rule_bits rule;     /* written whole, read field by field  */
};
/* The table in use and its size: its log is UNW_CFI_LOG0, or         */
/* UNW_CFI_LOG when it is unw_cfi_big (both published, acquire loads). */
static struct unw_cfi_ent *unw_cfi_tab = NULL;
static struct unw_cfi_ent *unw_cfi_big = NULL;
#define UNW_CFI_BYTES(log) (sizeof(struct unw_cfi_ent) << (log))
#define UNW_CFI_LOG_OF(t) \
        ((t) == __atomic_load_n(&unw_cfi_big, __ATOMIC_ACQUIRE) \
         ? UNW_CFI_LOG : UNW_CFI_LOG0)

/* The table, mapped by the first walk that needs it (NULL: no memory). */
static struct unw_cfi_ent *unw_cfi_table(void)
{
  struct unw_cfi_ent *t = __atomic_load_n(&unw_cfi_tab, __ATOMIC_ACQUIRE);
  struct unw_cfi_ent *none = NULL;

  if (EXPECT(t != NULL, TRUE)) return t;
  t = (struct unw_cfi_ent *)gca_mem_alloc(GCA_MEM_UNWIND,
                                          UNW_CFI_BYTES(UNW_CFI_LOG0));
  if (NULL == t) return NULL;                   /* (zeroed)             */
  if (!__atomic_compare_exchange_n(&unw_cfi_tab, &none, t, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    gca_mem_free(GCA_MEM_UNWIND, t, UNW_CFI_BYTES(UNW_CFI_LOG0));
    t = none;                                   /* another thread's won */
  }
  return t;
}
static volatile word unw_cfi_seq = 0;    /* odd: a writer is in        */
static const void *unw_cfi_code = NULL;  /* the code list it holds for */
/* Walks begun by the rules, and of them those that fell back (in the */
/* records: unwind.walks, unwind.fell_back).                            */
static volatile word unw_cfi_walks = 0;
static volatile word unw_cfi_falls = 0;
#define UNW_CFI_SLOT(pc, log) \
        (((pc) * (word)0x9E3779B97F4A7C15ULL) >> (CPP_WORDSZ - (log)))

static word unw_uleb(const unsigned char **pp, const unsigned char *end)
{
  const unsigned char *p = *pp;
  word v = 0;
  unsigned shift = 0;

  while (p < end) {
    unsigned char b = *p++;

    if (shift < CPP_WORDSZ) v |= (word)(b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80)) break;
  }
  *pp = p;
  return v;
}

static signed_word unw_sleb(const unsigned char **pp,
                            const unsigned char *end)
{
  const unsigned char *p = *pp;
  word v = 0;
  unsigned shift = 0;
  unsigned char b = 0;

  while (p < end) {
    b = *p++;
    if (shift < CPP_WORDSZ) v |= (word)(b & 0x7f) << shift;
    shift += 7;
    if (!(b & 0x80)) break;
  }
  if (shift < CPP_WORDSZ && (b & 0x40)) v |= ~(word)0 << shift;
  *pp = p;
  return (signed_word)v;
}

static uint32_t unw_u32(const unsigned char *p)
{
  uint32_t v;

  memcpy(&v, p, sizeof(v));
  return v;
}

/* The size of a pointer in encoding enc (DW_EH_PE_*), 0 if not known. */
static unsigned unw_enc_size(unsigned enc)
{
  if (0xff == enc) return 0;                      /* omit            */
  if ((enc & 0x70) == 0x50) return 0;             /* aligned         */
  switch (enc & 0x0f) {
    case 0x00: return sizeof(void *);             /* absptr          */
    case 0x02: case 0x0a: return 2;
    case 0x03: case 0x0b: return 4;
    case 0x04: case 0x0c: return 8;
    default: return 0;
  }
}

/* A register's rule, for the registers the walk models.                */
#define UNW_REG_UNSAVED 0   /* (or undefined: libgcc keeps the value)  */
#define UNW_REG_OFFSET 1    /* saved at CFA + off                      */
#define UNW_REG_UNDEF 2     /* (the return address column only)        */
#define UNW_REG_OTHER 3     /* anything else: not modelled             */
struct unw_row {
  int cfa_reg, cfa_exp;
  signed_word cfa_off;
  int how[3];               /* rbp (6), rsp (7), the return address (16) */
  signed_word off[3];
};
#define UNW_ROW_STATES 8

/* Column c's index in unw_row, -1 if not modelled (its rule is then   */
/* not needed to walk on).                                              */
static int unw_col(word c)
{
  return 6 == c ? 0 : 7 == c ? 1 : 16 == c ? 2 : -1;
}

/* Run the CFA instructions [p, end) on row r from location *loc; stop  */
/* at the first row past pc (libgcc's execute_cfa_program: while loc <  */
/* pc).  0 if an instruction is not modelled.                            */
static int unw_cfa_run(struct unw_row *r, struct unw_row *stack,
                       unsigned *depth, const unsigned char *p,
                       const unsigned char *end, word code_align,
                       signed_word data_align, word *loc, word pc)
{
  while (p < end && *loc < pc) {
    unsigned char op = *p++;
    word reg, len;
    signed_word off;
    int c;

    switch (op & 0xc0) {
      case 0x40:
        *loc += (word)(op & 0x3f) * code_align;
        continue;
      case 0x80:
        off = (signed_word)unw_uleb(&p, end) * data_align;
        if ((c = unw_col(op & 0x3f)) >= 0) {
          r->how[c] = UNW_REG_OFFSET;
          r->off[c] = off;
        }
        continue;
      case 0xc0:
        if ((c = unw_col(op & 0x3f)) >= 0)
          r->how[c] = 2 == c ? UNW_REG_OTHER : UNW_REG_UNSAVED;
        continue;
      default:
        break;
    }
    switch (op) {
      case 0x00: break;                                     /* nop      */
      case 0x02:                                            /* advance1 */
        if (p + 1 > end) return 0;
        *loc += (word)p[0] * code_align;
        p += 1;
        break;
      case 0x03: {                                          /* advance2 */
        uint16_t d;

        if (p + 2 > end) return 0;
        memcpy(&d, p, 2);
        *loc += (word)d * code_align;
        p += 2;
        break;
      }
      case 0x04:                                            /* advance4 */
        if (p + 4 > end) return 0;
        *loc += (word)unw_u32(p) * code_align;
        p += 4;
        break;
      case 0x05: case 0x11:                   /* offset_extended(_sf)   */
        reg = unw_uleb(&p, end);
        off = 0x05 == op ? (signed_word)unw_uleb(&p, end) * data_align
                         : unw_sleb(&p, end) * data_align;
        if ((c = unw_col(reg)) >= 0) {
          r->how[c] = UNW_REG_OFFSET;
          r->off[c] = off;
        }
        break;
      case 0x06: case 0x08:                   /* restore_ext, same_value */
        reg = unw_uleb(&p, end);
        if ((c = unw_col(reg)) >= 0)
          r->how[c] = 2 == c ? UNW_REG_OTHER : UNW_REG_UNSAVED;
        break;
      case 0x07:                                            /* undefined */
        reg = unw_uleb(&p, end);
        if ((c = unw_col(reg)) >= 0)
          r->how[c] = 2 == c ? UNW_REG_UNDEF : 1 == c ? UNW_REG_OTHER
                                                      : UNW_REG_UNSAVED;
        break;
      case 0x09:                                            /* register */
        reg = unw_uleb(&p, end);
        (void)unw_uleb(&p, end);
        if ((c = unw_col(reg)) >= 0) r->how[c] = UNW_REG_OTHER;
        break;
      case 0x0a:                                            /* remember */
        if (*depth >= UNW_ROW_STATES) return 0;
        stack[(*depth)++] = *r;
        break;
      case 0x0b:                                            /* restore  */
        if (0 == *depth) return 0;
        *r = stack[--*depth];
        break;
      case 0x0c:                                            /* def_cfa  */
        r->cfa_reg = (int)unw_uleb(&p, end);
        r->cfa_off = (signed_word)unw_uleb(&p, end);
        r->cfa_exp = 0;
        break;
      case 0x0d:                                      /* def_cfa_register */
        r->cfa_reg = (int)unw_uleb(&p, end);
        r->cfa_exp = 0;
        break;
      case 0x0e:                                      /* def_cfa_offset   */
        r->cfa_off = (signed_word)unw_uleb(&p, end);
        break;
      case 0x0f:                                      /* def_cfa_expression */
        len = unw_uleb(&p, end);
        if (len > (word)(end - p)) return 0;
        p += len;
        r->cfa_exp = 1;
        break;
      case 0x10: case 0x16:                   /* (val_)expression        */
        reg = unw_uleb(&p, end);
        len = unw_uleb(&p, end);
        if (len > (word)(end - p)) return 0;
        p += len;
        if ((c = unw_col(reg)) >= 0) r->how[c] = UNW_REG_OTHER;
        break;
      case 0x12:                                      /* def_cfa_sf       */
        r->cfa_reg = (int)unw_uleb(&p, end);
        r->cfa_off = unw_sleb(&p, end) * data_align;
        r->cfa_exp = 0;
        break;
      case 0x13:                                      /* def_cfa_offset_sf */
        r->cfa_off = unw_sleb(&p, end) * data_align;
        break;
      case 0x14: case 0x15:                   /* val_offset(_sf)         */
        reg = unw_uleb(&p, end);
        if (0x14 == op) (void)unw_uleb(&p, end); else (void)unw_sleb(&p, end);
        if ((c = unw_col(reg)) >= 0) r->how[c] = UNW_REG_OTHER;
        break;
      case 0x2e:                                      /* GNU_args_size    */
        (void)unw_uleb(&p, end);
        break;
      default:      /* set_loc, GNU_negative_offset_extended, others    */
        return 0;
    }
  }
  return 1;
}

/* The rule for the frame whose return address (pc, the address        */
/* _Unwind_GetIP reports) is pc: as libgcc's uw_frame_state_for and    */
/* uw_update_context find it for a frame that is not a signal frame.    */
static struct unw_rule unw_cfi_find(word pc, const struct gca_unw_code *code)
{
  struct unw_rule out = { 0, 0, 0, UNW_R_NONE };
  struct gca_eh_bases b;
  const unsigned char *fde, *fde_end, *cie, *cie_end, *p, *aug;
  struct unw_row r, stack[UNW_ROW_STATES];
  unsigned depth = 0, sz, enc = 0;
  word code_align, loc, ra_reg;
  signed_word data_align;
  uint32_t len;
  int ver, z;

  fde = (const unsigned char *)_Unwind_Find_FDE((void *)(pc - 1), &b);
  if (NULL == fde) {
    /* libgcc's fallback for a frame without FDE: x86-64 Linux's signal */
    /* return (movq $15, %rax; syscall) is a signal frame; other code   */
    /* is the last frame (an address outside code too, whose bytes      */
    /* libgcc would read).                                               */
    static const unsigned char sigret[9] = {
      0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05
    };

    struct gca_unw_hints h;

    memset(&h, 0, sizeof(h));
    if (!gca_unw_is_code(code, pc, &h)
        || memcmp((const void *)pc, sigret, sizeof(sigret)) != 0)
      out.flags = UNW_R_LAST;   /* (read only where code is)           */
    return out;
  }
  len = unw_u32(fde);
  if (0 == len || 0xffffffffU == len) return out;
  fde_end = fde + 4 + len;
  cie = fde + 4 - unw_u32(fde + 4);
  len = unw_u32(cie);
  if (0 == len || 0xffffffffU == len || unw_u32(cie + 4) != 0) return out;
  cie_end = cie + 4 + len;
  p = cie + 8;
  ver = *p++;
  if (ver != 1 && ver != 3) return out;
  aug = p;
  p += strlen((const char *)aug) + 1;
  code_align = unw_uleb(&p, cie_end);
  data_align = unw_sleb(&p, cie_end);
  ra_reg = 1 == ver ? *p++ : unw_uleb(&p, cie_end);
  if (ra_reg != 16) return out;
  z = 'z' == aug[0];
  if (z) {
    word alen = unw_uleb(&p, cie_end);
    const unsigned char *aend = p + alen;

    for (aug++; *aug != '\0'; aug++) {
      if ('R' == *aug) {
        enc = *p++;
      } else if ('L' == *aug) {
        p++;
      } else if ('P' == *aug) {
        unsigned penc = *p++;

        if (0 == (sz = unw_enc_size(penc))) return out;
        p += sz;
      } else {
        return out;                     /* 'S' (signal frames), others */
      }
    }
    p = aend;
  } else if (aug[0] != '\0') {
    return out;
  }
  if (p > cie_end) return out;
  memset(&r, 0, sizeof(r));
  r.cfa_reg = -1;
  loc = 0;
  if (!unw_cfa_run(&r, stack, &depth, p, cie_end, code_align, data_align,
                   &loc, ~(word)0))
    return out;
  if (0 == (sz = unw_enc_size(enc))) return out;
  p = fde + 8 + 2 * sz;                 /* pc_begin, pc_range           */
  if (z) {
    word alen = unw_uleb(&p, fde_end);

    p += alen;
  }
  if (p > fde_end) return out;
  loc = (word)b.func;
  if (!unw_cfa_run(&r, stack, &depth, p, fde_end, code_align, data_align,
                   &loc, pc))
    return out;
  /* The rule, if the walk models it.                                   */
  if (r.cfa_exp || (r.cfa_reg != 6 && r.cfa_reg != 7)
      || r.cfa_off != (int32_t)r.cfa_off
      || r.how[1] != UNW_REG_UNSAVED || UNW_REG_OTHER == r.how[0])
    return out;
  if (UNW_REG_UNDEF == r.how[2]) {
    out.flags = UNW_R_LAST;
    return out;
  }
  if (r.how[2] != UNW_REG_OFFSET || (r.off[2] & (sizeof(word) - 1)) != 0
      || r.off[2] / (signed_word)sizeof(word) != (int8_t)(r.off[2] / 8))
    return out;
  out.ra_off = (int8_t)(r.off[2] / (signed_word)sizeof(word));
  out.cfa_off = (int32_t)r.cfa_off;
  out.flags = 6 == r.cfa_reg ? UNW_R_CFA_RBP : 0;
  if (UNW_REG_OFFSET == r.how[0]) {
    if (r.off[0] != (int16_t)r.off[0]) {
      out.flags = UNW_R_NONE;
      return out;
    }
    out.rbp_off = (int16_t)r.off[0];
    out.flags |= UNW_R_RBP_SAVED;
  }
  return out;
}

/* The first of pc's probes in tab (of 1 << log rules) that holds pc  */
/* or no rule; ~0u if none does.                                         */
static unsigned unw_cfi_probe(const struct unw_cfi_ent *tab, unsigned log,
                              word pc)
{
  unsigned i, slot = (unsigned)UNW_CFI_SLOT(pc, log);

  for (i = 0; i < UNW_CFI_PROBES; i++) {
    unsigned k = (slot + i) & (((unsigned)1 << log) - 1);
    word e = __atomic_load_n(&tab[k].pc, __ATOMIC_RELAXED);

    if (e == pc || 0 == e) return k;
  }
  return ~0u;
}

/* The small table is full around a rule's slot: the big one, with the */
/* small one's rules, in use from now (NULL: no memory).  The writer's. */
static struct unw_cfi_ent *unw_cfi_grow(const struct unw_cfi_ent *small)
{
  struct unw_cfi_ent *big = (struct unw_cfi_ent *)gca_mem_alloc(
                                GCA_MEM_UNWIND, UNW_CFI_BYTES(UNW_CFI_LOG));
  unsigned k;

  if (NULL == big) return NULL;
  for (k = 0; k < ((unsigned)1 << UNW_CFI_LOG0); k++) {
    word pc = __atomic_load_n(&small[k].pc, __ATOMIC_RELAXED);
    unsigned j = pc != 0 ? unw_cfi_probe(big, UNW_CFI_LOG, pc) : ~0u;

    if (j != ~0u) big[j] = small[k];
  }
  __atomic_store_n(&unw_cfi_big, big, __ATOMIC_RELEASE);
  __atomic_store_n(&unw_cfi_tab, big, __ATOMIC_RELEASE);
  return big;
}

/* pc's rule found and put in slot k of table t (~0u: its probes are  */
/* full) if no other writer is in (else not kept); out of the walk's    */
/* loop.  When the small table is full there, it grows, and the walk    */
/* (reading the small one on) is thrown away: once in a program.        */
static GC_ATTR_NOINLINE struct unw_rule unw_cfi_learn(
                        struct unw_cfi_ent *t, unsigned log, word pc,
                        const struct gca_unw_code *code, word *seq, unsigned k)
{
  union unw_rule_bits u;
  word s;

  u.r = unw_cfi_find(pc, code);
  u.r.flags |= UNW_R_SET;
  s = __atomic_load_n(&unw_cfi_seq, __ATOMIC_RELAXED);
  if ((s & 1) == 0 && t == __atomic_load_n(&unw_cfi_tab, __ATOMIC_RELAXED)
      && __atomic_compare_exchange_n(&unw_cfi_seq, &s, s + 1, 0,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
    word own = s + 2;                     /* the walk's count after    */

    if (~0u == k && UNW_CFI_LOG0 == log) {
      struct unw_cfi_ent *big = unw_cfi_grow(t);

      if (big != NULL) {
        t = big;
        log = UNW_CFI_LOG;
        k = unw_cfi_probe(t, UNW_CFI_LOG, pc);
        own = 0;                          /* not the walk's table now  */
      }
    }
    if (~0u == k) k = (unsigned)UNW_CFI_SLOT(pc, log);   /* full: first */
    __atomic_store_n(&t[k].rule.bits, u.bits, __ATOMIC_RELAXED);
    __atomic_store_n(&t[k].pc, pc, __ATOMIC_RELAXED);
    __atomic_store_n(&unw_cfi_seq, s + 2, __ATOMIC_RELEASE);
    if (*seq == s) *seq = own;            /* (else the walk is stale)  */
  }
  return u.r;
}

/* pc's rule: from table t of 1 << log rules (a pointer into it, whose */
/* fields a walk loads one by one: no unpacking of a copy), else found */
/* and put there (unw_cfi_learn), in *learned.  *seq: the count the    */
/* walk's reads hold for (moved on by the walk's own insertion, 0 when */
/* that grew the table).  A rule being written as it is read is torn: */
/* the count then moved, and the walk goes to libgcc.                  */
GCA_ALWAYS_INLINE const struct unw_rule *unw_cfi_rule(
                        struct unw_cfi_ent *t, unsigned log, word pc,
                        const struct gca_unw_code *code, word *seq,
                        struct unw_rule *learned)
{
  unsigned i, k = ~0u, slot = (unsigned)UNW_CFI_SLOT(pc, log);

  for (i = 0; i < UNW_CFI_PROBES; i++) {
    unsigned j = (slot + i) & (((unsigned)1 << log) - 1);
    word e = __atomic_load_n(&t[j].pc, __ATOMIC_RELAXED);

    if (e == pc
        && EXPECT(__atomic_load_n(&t[j].rule.r.flags, __ATOMIC_RELAXED) != 0,
                  TRUE))
      return &t[j].rule.r;
    if (0 == e) {
      k = j;
      break;
    }
  }
  *learned = unw_cfi_learn(t, log, pc, code, seq, k);
  return learned;
}

/* The list of loaded modules changed (a new code list): forget all    */
/* (in the table in use: walks still reading the small one after it    */
/* grew saw the count move).                                             */
static void unw_cfi_flush(const void *code)
{
  word s = __atomic_load_n(&unw_cfi_seq, __ATOMIC_RELAXED);

  if ((s & 1) != 0
      || !__atomic_compare_exchange_n(&unw_cfi_seq, &s, s + 1, 0,
                                      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
    return;                             /* another writer: next walk    */
  if (unw_cfi_code != code) {
    struct unw_cfi_ent *tab = __atomic_load_n(&unw_cfi_tab,
                                              __ATOMIC_RELAXED);
    unsigned k, n = (unsigned)1 << UNW_CFI_LOG_OF(tab);

    for (k = 0; k < n; k++)
      __atomic_store_n(&tab[k].pc, 0, __ATOMIC_RELAXED);
    unw_cfi_code = code;
  }
  __atomic_store_n(&unw_cfi_seq, s + 2, __ATOMIC_RELEASE);
}

/* A stack word for the walk, noted in rd for its memo.               */
GCA_ALWAYS_INLINE word unw_read(struct gca_unwcfi_reads *rd, word at)
{
  word v = *(const word *)at;

  if (rd->n < GCA_UNWCFI_MEMO_READS) {
    rd->at[rd->n] = at;
    rd->v[rd->n] = v;
  }
  rd->n++;
  return v;
}

/* One frame up from (pc, sp, bp) by pc's rule: 0 done (the caller's */
/* pc, sp and bp in place), 1 the last frame (UNW_R_LAST), -1 a rule   */
/* not modelled or a load that would leave the stack (to libgcc).      */
/* The words read go to rd.                                              */
GCA_ALWAYS_INLINE int unw_cfi_step(struct unw_cfi_ent *tab, unsigned log,
                                   const struct gca_unw_code *code,
                                   word *seq, word hi, word *pc, word *sp,
                                   word *bp, struct gca_unwcfi_reads *rd)
{
  struct unw_rule learned;
  const struct unw_rule *r = unw_cfi_rule(tab, log, *pc, code, seq,
                                          &learned);
  unsigned flags = __atomic_load_n(&r->flags, __ATOMIC_RELAXED);
  word cfa, at;

  if (EXPECT(flags & (UNW_R_LAST | UNW_R_NONE), FALSE))
    return (flags & UNW_R_NONE) ? -1 : 1;
  if ((flags & UNW_R_CFA_RBP) && !rd->bp_loaded) rd->bp_used = 1;
  cfa = ((flags & UNW_R_CFA_RBP) ? *bp : *sp)
        + (word)(signed_word)__atomic_load_n(&r->cfa_off, __ATOMIC_RELAXED);
  /* The loads from the CFA lie on the stack, above the frame's sp.     */
  at = cfa + (word)((signed_word)__atomic_load_n(&r->ra_off, __ATOMIC_RELAXED)
                    * (signed_word)sizeof(word));
  if (EXPECT(cfa <= *sp || cfa > hi || at < *sp || at > hi - sizeof(word)
             || (at & (sizeof(word) - 1)) != 0, FALSE))
    return -1;
  *pc = unw_read(rd, at);
  if (flags & UNW_R_RBP_SAVED) {
    at = cfa + (word)(signed_word)__atomic_load_n(&r->rbp_off,
                                                  __ATOMIC_RELAXED);
    if (EXPECT(at < *sp || at > hi - sizeof(word)
               || (at & (sizeof(word) - 1)) != 0, FALSE))
      return -1;
    *bp = unw_read(rd, at);
    rd->bp_loaded = 1;
  }
  *sp = cfa;
  return 0;
}

/* The walk: as gca_unwcfi_gcc, from this function's own frame (a      */
/* frame pointer: __builtin_frame_address), by the table's rules;       */
/* anything else to gca_unwcfi_gcc.  Its stack's bounds known           */
/* (unw_walk_slow).  Two loops, the collector's and skipped frames and */
/* the kept ones, each after the thread's memo of it (unwind_memo.c).  */
GC_INNER GC_ATTR_NOINLINE unsigned gca_unwcfi_walk(word *frames, unsigned max,
                                  unsigned skip, word lo, word hi,
                                  const struct gca_unw_code *code)
{
  const word *fp = (const word *)__builtin_frame_address(0);
  struct unw_cfi_ent *tab = unw_cfi_table();
  struct gca_unwcfi_memos *mm = gca_unwcfi_memo_self;
  const struct gca_unwcfi_memo *e;
  struct gca_unwcfi_reads rp, rs;
  word pc, sp, bp, seq, s0, start[3], kept[3];
  unsigned n = 0, skip0 = skip, log, last = 0;
  int in_gc = 1, st = 0, pre_new = 0, suf_new = 0;

  if (EXPECT(NULL == tab, FALSE)) return gca_unwcfi_gcc(frames, max, skip);
  if (NULL == code) return GCA_UNWCFI_RELIST;   /* (the table mapped)   */
  if (EXPECT(__atomic_load_n(&unw_cfi_code, __ATOMIC_RELAXED) != code,
             FALSE))
    unw_cfi_flush(code);
  if ((word)fp < lo || (word)fp > hi - 2 * sizeof(word)
      || ((word)fp & (sizeof(word) - 1)) != 0)
    return gca_unwcfi_gcc(frames, max, skip);   /* another stack        */
  (void)__atomic_fetch_add(&unw_cfi_walks, 1, __ATOMIC_RELAXED);
  s0 = seq = __atomic_load_n(&unw_cfi_seq, __ATOMIC_ACQUIRE);
  if ((s0 & 1) != 0 || unw_cfi_code != code) goto fall;
  tab = __atomic_load_n(&unw_cfi_tab, __ATOMIC_ACQUIRE);   /* as of s0 */
  log = UNW_CFI_LOG_OF(tab);
  start[0] = pc = fp[1];        /* our return address: our caller's pc */
  start[1] = sp = (word)(fp + 2);       /* its stack pointer: our CFA   */
  start[2] = bp = fp[0];        /* its rbp                               */
  if (0 == max) goto done;
  /* The collector's frames as last time (unwind_memo.c), then on.    */
  if (mm != NULL && 0 == skip
      && gca_unwcfi_memo_pre(mm, code, start, hi, &pc, &sp, &bp)) {
    if (EXPECT(pc != 0 && !unwcfi_in_libgc(pc), TRUE)) goto kept;
    pc = start[0];              /* another path: walk it                */
    sp = start[1];
    bp = start[2];
  }
  rp.n = 0, rp.bp_used = 0, rp.bp_loaded = 0;
  for (;;) {                    /* the collector's frames, then skip     */
    if (0 == pc) goto done;
    if (!(in_gc && unwcfi_in_libgc(pc))) {
      in_gc = 0;
      if (0 == skip) break;
      skip--;
    }
    last = rp.n;
    if ((st = unw_cfi_step(tab, log, code, &seq, hi, &pc, &sp, &bp,
                           &rp)) != 0)
      goto stop;
  }
  pre_new = 0 == skip0 && rp.n > 0;
kept:
  kept[0] = pc, kept[1] = sp, kept[2] = bp;
  if (mm != NULL
      && (e = gca_unwcfi_memo_find(mm->suf, GCA_UNWCFI_MEMO_SUF, code, pc,
                                   sp, bp, hi, max)) != NULL) {
    n = e->n;
    memcpy(frames, e->frames, n * sizeof(word));
    mm->last = (struct gca_unwcfi_memo *)e;
    goto done;
  }
  rs.n = 0, rs.bp_used = 0, rs.bp_loaded = 0;
  suf_new = 1;
  for (;;) {                    /* the kept frames (pc != 0)             */
    frames[n++] = pc;
    if (n >= max) goto done;
    if ((st = unw_cfi_step(tab, log, code, &seq, hi, &pc, &sp, &bp,
                           &rs)) != 0)
      goto stop;
    if (0 == pc) goto done;
  }
stop:
  if (st < 0) goto fall;
done:
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (EXPECT(__atomic_load_n(&unw_cfi_seq, __ATOMIC_RELAXED) == seq, TRUE)) {
    if (mm != NULL)             /* no writer came between: it held      */
      gca_unwcfi_memo_keep(mm, code, hi, max, start, pre_new ? &rp : NULL,
                           last, kept, suf_new ? &rs : NULL, frames, n);
    return n;
  }
fall:
  (void)__atomic_fetch_add(&unw_cfi_falls, 1, __ATOMIC_RELAXED);
  return gca_unwcfi_gcc(frames, max, skip0);
}

#endif /* GCA_UNW_CFI */

/* ---- for the records --------------------------------------------------- */

GC_INNER void gca_unwcfi_walks(word *walks, word *fell_back)
{
# ifdef GCA_UNW_CFI
    *fell_back = __atomic_load_n(&unw_cfi_falls, __ATOMIC_RELAXED);
    *walks = __atomic_load_n(&unw_cfi_walks, __ATOMIC_RELAXED);
# else
    *walks = *fell_back = 0;
# endif
}

#endif /* !GC_ACC_DISABLE */
