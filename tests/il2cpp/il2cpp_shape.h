/* SPDX-License-Identifier: MIT */
/*
 * il2cpp_shape.h: IL2CPP's object header and class struct, as our own
 * code (no il2cpp source), for the il2cpp-shaped harness (gameload.c).
 *
 * The layout follows ../shared/IL2CPP.md section 4: an object starts
 * with its class pointer (word 0) and a monitor (word 1); Il2CppClass
 * keeps IL2CPP's field order for its first 14 fields, with the gcj
 * descriptor at word 1, name and namespaze at words 2 and 3 and the
 * self-pointer `klass` at byte 120 on 64-bit, 60 on 32-bit, then the
 * seven pointers before `static_fields` (byte 184 on 64-bit, 92 on
 * 32-bit: the block of the class's static fields).  The C types
 * give both layouts; the static asserts check the host's.  Allocation
 * goes through three macros shaped like il2cpp's (gc/GarbageCollector,
 * vm/Object): ALLOC_PTRFREE and ALLOC_OBJECT store the class after the
 * collector returns, ALLOC_TYPED hands it to GC_gcj_malloc as vtable.
 */
#ifndef GCACC_IL2CPP_SHAPE_H
#define GCACC_IL2CPP_SHAPE_H

#include <stddef.h>
#include <stdint.h>

typedef struct Il2CppType {
  void *data;
  unsigned int attrs : 16;
  unsigned int type : 8;
  unsigned int num_mods : 6;
  unsigned int byref : 1;
  unsigned int pinned : 1;
} Il2CppType;                   /* 16 bytes on 64-bit, 8 on 32-bit     */

typedef struct Il2CppClass {
  const void *image;
  void *gc_desc;                /* word 1: gcj's MARK_DESCR_OFFSET      */
  const char *name;
  const char *namespaze;
  Il2CppType byval_arg;
  Il2CppType this_arg;
  struct Il2CppClass *element_class;
  struct Il2CppClass *castClass;
  struct Il2CppClass *declaringType;
  struct Il2CppClass *parent;
  void *generic_class;
  const void *typeMetadataHandle;
  const void *interopData;
  struct Il2CppClass *klass;    /* self-pointer ("MonoVTable")          */
  const void *fields;
  const void *events;
  const void *properties;
  const void **methods;
  struct Il2CppClass **nestedTypes;
  struct Il2CppClass **implementedInterfaces;
  void *interfaceOffsets;
  void *static_fields;          /* AllocateFixed: uncollectable         */
  /* The rest of IL2CPP's fields differ by version; the harness keeps   */
  /* only what it needs.                                                 */
  uint32_t instance_size;
} Il2CppClass;

typedef struct Il2CppObject {
  Il2CppClass *klass;
  void *monitor;
} Il2CppObject;

typedef uintptr_t il2cpp_array_size_t;
typedef struct Il2CppArray {
  Il2CppObject obj;
  void *bounds;
  il2cpp_array_size_t max_length;
} Il2CppArray;

typedef struct Il2CppString {
  Il2CppObject object;
  int32_t length;
  uint16_t chars[1];
} Il2CppString;

#define IL2CPP_SHAPE_ASSERT(c, m) typedef char il2cpp_shape_##m[(c) ? 1 : -1]
#define IL2CPP_W64 (sizeof(void *) == 8)
IL2CPP_SHAPE_ASSERT(offsetof(Il2CppClass, gc_desc) == sizeof(void *), desc);
IL2CPP_SHAPE_ASSERT(offsetof(Il2CppClass, name) == (IL2CPP_W64 ? 16 : 8),
                    name);
IL2CPP_SHAPE_ASSERT(offsetof(Il2CppClass, namespaze)
                    == (IL2CPP_W64 ? 24 : 12), namespaze);
IL2CPP_SHAPE_ASSERT(offsetof(Il2CppClass, element_class)
                    == (IL2CPP_W64 ? 64 : 32), element_class);
IL2CPP_SHAPE_ASSERT(offsetof(Il2CppClass, klass) == (IL2CPP_W64 ? 120 : 60),
                    klass);
IL2CPP_SHAPE_ASSERT(offsetof(Il2CppClass, static_fields)
                    == (IL2CPP_W64 ? 184 : 92), static_fields);
IL2CPP_SHAPE_ASSERT(sizeof(Il2CppArray) == (IL2CPP_W64 ? 32 : 16), vector);
IL2CPP_SHAPE_ASSERT(offsetof(Il2CppString, chars) == (IL2CPP_W64 ? 20 : 12),
                    chars);

/* il2cpp's three allocation shapes.                                    */
#define ALLOC_PTRFREE(obj, k, size) do { \
    (obj) = (Il2CppObject *)GC_MALLOC_ATOMIC(size); \
    (obj)->klass = (k); \
    (obj)->monitor = NULL; \
  } while (0)
#define ALLOC_OBJECT(obj, k, size) do { \
    (obj) = (Il2CppObject *)GC_MALLOC(size); \
    (obj)->klass = (k); \
  } while (0)
#define ALLOC_TYPED(obj, k, size) do { \
    (obj) = (Il2CppObject *)GC_gcj_malloc((size), (k)); \
  } while (0)

#endif /* GCACC_IL2CPP_SHAPE_H */
