/* SPDX-License-Identifier: MIT */
/*
 * staticsload.c: IL2CPP class static fields as roots (issue 37), for
 * tests/retain/statics.sh.  il2cpp-shaped (tests/il2cpp/il2cpp_shape.h):
 * classes malloc'd with their self-pointer, objects by GC_gcj_malloc,
 * each class's static fields in a block of their own from
 * GC_MALLOC_UNCOLLECTABLE (il2cpp's AllocateFixed), pointed at by the
 * class's static_fields; the il2cpp type mode set through the API.
 *
 *   Game.World     one instance, held by word 0 of World's static fields;
 *   Game.Listener  5 instances in a list from word 1 of World's static
 *                  fields (next at word 2 of each);
 *   Game.Registry  a static class: no instance, its static fields hold
 *                  word 0 a count and words 1..5 one Game.Entry each;
 *   Game.Entry     nested in Registry (declaringType), 5 instances.
 *
 * Asks for Game.Listener, then Game.Entry.  Prints what it built, as
 * `name value` lines: `world_statics`, `registry_statics` (the blocks),
 * `listener I ADDR` (list order), `entry SLOT ADDR`.
 */
#ifndef GC_THREADS
# define GC_THREADS
#endif
#include "gc.h"
#include "gc_gcj.h"
#include "gc_accounting.h"
#include "../gc_test_util.h"
#include "../il2cpp/il2cpp_shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 5
#define OBJ_BYTES 32

enum { C_WORLD, C_LISTENER, C_REGISTRY, C_ENTRY, N_CLASSES };
static const char *const names[N_CLASSES] = {
  "World", "Listener", "Registry", "Entry"
};
static Il2CppClass *cls[N_CLASSES];

struct obj { Il2CppObject o; void *next; GC_word pad; };

static Il2CppClass *make_class(int id)
{
  Il2CppClass *k = (Il2CppClass *)calloc(1, sizeof(Il2CppClass));

  if (NULL == k) exit(3);
  k->name = names[id];
  k->namespaze = "Game";
  k->instance_size = OBJ_BYTES;
  k->gc_desc = (void *)(uintptr_t)OBJ_BYTES;    /* a length descriptor */
  k->klass = k;
  return k;
}

static struct obj *new_obj(int id)
{
  Il2CppObject *o;

  ALLOC_TYPED(o, cls[id], OBJ_BYTES);
  if (NULL == o) exit(3);
  return (struct obj *)o;
}

static NOINLINE void build(void)
{
  void **ws, **rs;
  int i;

  for (i = 0; i < N_CLASSES; i++) cls[i] = make_class(i);
  cls[C_ENTRY]->declaringType = cls[C_REGISTRY];
  ws = (void **)GC_MALLOC_UNCOLLECTABLE(4 * sizeof(void *));
  rs = (void **)GC_MALLOC_UNCOLLECTABLE((N + 1) * sizeof(void *));
  if (NULL == ws || NULL == rs) exit(3);
  cls[C_WORLD]->static_fields = ws;
  cls[C_REGISTRY]->static_fields = rs;
  ws[0] = new_obj(C_WORLD);
  for (i = N - 1; i >= 0; i--) {
    struct obj *l = new_obj(C_LISTENER);

    l->next = ws[1];
    ws[1] = l;
  }
  rs[0] = (void *)(GC_word)N;
  for (i = 1; i <= N; i++) rs[i] = new_obj(C_ENTRY);
  printf("world_statics %p\nregistry_statics %p\n", (void *)ws, (void *)rs);
  {
    struct obj *l = (struct obj *)ws[1];

    for (i = 1; l != NULL; i++, l = (struct obj *)l->next)
      printf("listener %d %p\n", i, (void *)l);
  }
  for (i = 1; i <= N; i++) printf("entry %d %p\n", i, rs[i]);
}

int main(int argc, char **argv)
{
  GC_INIT();
  GC_init_gcj_malloc(0, NULL);
  if (GC_acc_set_type_mode(GC_ACC_TYPES_IL2CPP) != GC_SUCCESS
      || GC_acc_set_profile(GC_ACC_PROFILE_FULL, 0) != GC_SUCCESS
      || GC_acc_set_retain_pause(60000) != GC_SUCCESS
      || (argc > 1 && GC_acc_dump_start(argv[1]) != GC_SUCCESS)) {
    fprintf(stderr, "staticsload: cannot set the mode or start the dump\n");
    return 1;
  }
  if (!GC_acc_is_enabled()) {
    fprintf(stderr, "staticsload: accounting is off (set GC_ACC_DUMP)\n");
    return 1;
  }
  build();
  collect();            /* the census types the instances            */
  if (GC_acc_retain_request("Game.Listener", 0, 0) != GC_SUCCESS) return 1;
  collect();
  if (GC_acc_retain_request("Game.Entry", 0, 0) != GC_SUCCESS) return 1;
  collect();
  /* Unity's fork registers no atexit handler (DONT_USE_ATEXIT).        */
  return argc > 1 && GC_acc_dump_stop() != GC_SUCCESS;
}
