/* SPDX-License-Identifier: MIT */
/*
 * test_vector.c: the gcj-vector kind (gc_vector.h) as il2cpp uses it.
 * An array object: word 0 its class, word 1 its length, then elements of
 * 3 words {ref, int, ref} described by a bitmap of the boxed struct
 * (object header of 2 words included, as il2cpp's classes carry it).
 * The client's mark proc, registered at an index of its own, reads the
 * class and calls GC_gcj_vector_mark_proc; on a continuation (env 1) it
 * finds the array with GC_base.  Checked: referents live while their
 * array lives, for a short array, one of exactly one chunk's worth and
 * ones several marking chunks long (continuations); the int word is not
 * a reference (what it points at dies); dropped arrays release their
 * referents; with accounting on, vector allocations are counted (small
 * ones from the kind's free list, large ones), requested bytes exactly.
 */
#include <stdlib.h>
#include "gc.h"
#include "gc_mark.h"
#include "gc_gcj.h"
#include "gc_vector.h"
#include "gc_accounting.h"
#include "../check.h"
#include "../gc_test_util.h"

#define WPE 3                           /* words per element */
#define HDR_WORDS 2                     /* class, length */
#define WBITS (8 * sizeof(GC_word))

struct klass { GC_descr elem_desc; unsigned long magic; };
static struct klass elem_class = { 0, 0xc1a55UL };

struct obj { unsigned long magic; unsigned long id; };

static GC_word vector_proc_calls, continuations;

static struct GC_ms_entry *GC_CALLBACK vec_proc(GC_word *addr,
                                struct GC_ms_entry *msp,
                                struct GC_ms_entry *lim, GC_word env)
{
  GC_word *arr = env ? (GC_word *)GC_base(addr) : addr;
  struct klass *k;
  GC_word *data, *end;

  vector_proc_calls++;
  if (arr == NULL)
    return msp;
  k = (struct klass *)arr[0];
  if (k != &elem_class)                 /* e.g. a free-list link */
    return msp;
  continuations += env != 0;
  data = arr + HDR_WORDS;
  end = data + arr[1] * WPE;
  return GC_gcj_vector_mark_proc(msp, lim, k->elem_desc,
                                 env ? addr : data, end, WPE);
}

#define NARR 5
static const size_t lens[NARR] = { 1, 7, 20 * 256, 20000, 70001 };
static GC_word *arrays[NARR];           /* roots */
static void ***links;                   /* malloc: per element, 3 links */

static NOINLINE void make(int a)
{
  size_t i, n = lens[a];
  GC_word *arr = (GC_word *)GC_gcj_vector_malloc(
                      (HDR_WORDS + n * WPE) * sizeof(GC_word), &elem_class);

  CHECK(arr != NULL && arr[0] == (GC_word)&elem_class);
  arr[1] = n;
  links[a] = (void **)calloc(3 * n, sizeof(void *));
  for (i = 0; i < n; i++) {
    struct obj *r1 = (struct obj *)GC_MALLOC(sizeof(struct obj));
    struct obj *r2 = (struct obj *)GC_MALLOC(sizeof(struct obj));
    struct obj *hidden = (struct obj *)GC_MALLOC(sizeof(struct obj));
    GC_word *el = arr + HDR_WORDS + i * WPE;

    r1->magic = r2->magic = 0xabcUL;
    r1->id = 2 * i;
    r2->id = 2 * i + 1;
    el[0] = (GC_word)r1;
    el[1] = (GC_word)hidden;            /* the int word: not a reference */
    el[2] = (GC_word)r2;
    links[a][3 * i] = r1;
    links[a][3 * i + 1] = r2;
    links[a][3 * i + 2] = hidden;
    GC_general_register_disappearing_link(&links[a][3 * i], r1);
    GC_general_register_disappearing_link(&links[a][3 * i + 1], r2);
    GC_general_register_disappearing_link(&links[a][3 * i + 2], hidden);
  }
  arrays[a] = arr;
}

static void count(int a, size_t *refs, size_t *hidden)
{
  size_t i;

  *refs = *hidden = 0;
  for (i = 0; i < lens[a]; i++) {
    *refs += (links[a][3 * i] != NULL) + (links[a][3 * i + 1] != NULL);
    *hidden += links[a][3 * i + 2] != NULL;
  }
}

static void *volatile kept_vec;

int main(void)
{
  struct GC_acc_stats_s s0, s1;
  int a, acc;
  size_t refs, hidden, i;
  GC_word req = 0;

  GC_INIT();
  GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0);   /* exact: tags */
  GC_add_roots(arrays, arrays + NARR);
  GC_add_roots((void *)&kept_vec, (void *)(&kept_vec + 1));
  GC_init_gcj_malloc(5, NULL);
  GC_init_gcj_vector(6, (void *)vec_proc);
  /* The boxed struct: header words 0 and 1, then ref, int, ref.        */
  elem_class.elem_desc = ((GC_word)1 << (WBITS - 1 - (HDR_WORDS + 0)))
                         | ((GC_word)1 << (WBITS - 1 - (HDR_WORDS + 2)))
                         | GC_DS_BITMAP;
  links = (void ***)calloc(NARR, sizeof(void **));
  acc = GC_acc_is_available() && GC_acc_enable(1) == GC_SUCCESS;
  if (acc)
    CHECK(GC_acc_get_stats(&s0, sizeof(s0)) == sizeof(s0));
  /* Counting: vector allocations alone, small ones (the free-list pop  */
  /* after the first of each size) and large ones.                      */
  {
    void *v[53];
    for (i = 0; i < 53; i++) {
      size_t lb = i < 50 ? (HDR_WORDS + (i % 3 + 1) * 7 * WPE) * sizeof(GC_word)
                         : (size_t)100000 + 8 * i;
      v[i] = GC_gcj_vector_malloc(lb, &elem_class);
      CHECK(v[i] != NULL && *(void **)v[i] == &elem_class);
      req += lb;
    }
    if (acc) {
      CHECK(GC_acc_get_stats(&s1, sizeof(s1)) == sizeof(s1));
      CHECK_EQ(s1.allocs - s0.allocs, 53);
      CHECK_EQ(s1.alloc_req_bytes - s0.alloc_req_bytes, req);
      /* Typed by class: word 0, read at the census (GC_ACC_ON_GCJ_KIND  */
      /* in GC_init_gcj_vector marks the kind).                          */
      {
        GC_word cookie = 0;
        unsigned site = 0;

        kept_vec = v[0];
        GC_gcollect();
        CHECK(GC_acc_get_object_tag(kept_vec, &cookie, &site));
        CHECK_EQ(cookie, (GC_word)&elem_class);
        kept_vec = NULL;
      }
    }
    (void)v;
  }
  for (a = 0; a < NARR; a++)
    make(a);
  collect();
  collect();
  for (a = 0; a < NARR; a++) {
    count(a, &refs, &hidden);
    CHECK_EQ(refs, 2 * lens[a]);         /* every referent alive */
    CHECK(hidden <= lens[a] / 100 + 2);  /* int words not followed */
  }
  for (i = 0; i < lens[NARR - 1]; i++) {   /* intact, in place */
    struct obj *r = (struct obj *)arrays[NARR - 1][HDR_WORDS + i * WPE + 2];
    if (!CHECK(r->magic == 0xabcUL && r->id == 2 * i + 1))
      break;
  }
  CHECK(continuations > 0);             /* long arrays took several turns */
  printf("mark proc calls %lu, continuations %lu\n",
         (unsigned long)vector_proc_calls, (unsigned long)continuations);
  /* Drop the arrays: their referents go.                               */
  for (a = 0; a < NARR; a++)
    arrays[a] = NULL;
  collect();
  collect();
  for (a = 0; a < NARR; a++) {
    count(a, &refs, &hidden);
    CHECK(refs <= lens[a] / 50 + 4);
  }
  return check_done("test_vector");
}
