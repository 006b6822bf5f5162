/* SPDX-License-Identifier: MIT */
/*
 * gca_settings.h: every GC_ACC_* setting, in one list (issue 19).
 *
 * env.c reads the environment by walking it, and fails to compile if a
 * function named here is not declared; header.c writes the dump
 * header's "config" object from the K rows.  tests/settings_agree.sh
 * checks that docs/environment.md (a "## NAME" section per setting, whose
 * "API:" names the functions listed here), the README's table of
 * variables and include/gc_accounting.h (which declares those functions)
 * agree with it.  Plain C preprocessor, no include: the test prints the
 * list without bdwgc's headers.
 *
 * GCA_SETTINGS(S, K, A) expands to rows of three kinds, each naming its
 * setting first; a user passes GCA_S_SKIP, GCA_K_SKIP or GCA_A_SKIP for
 * the kinds it does not want.
 *
 *   S(NAME, TYPE, set)  once per setting, in the order env.c reads them.
 *       NAME is the variable (env.c stringizes it).  TYPE is how its
 *       value is parsed, and set the internal setter env.c hands the
 *       parsed value to:
 *         BOOL    0 or 1                       set(int)
 *         PATH    a non-empty file name        set(const char *), called
 *                                              after every other setting
 *         SIZE    bytes, >= 4096, k/M/G suffix set(size_t)
 *         KINDS   kind names or numbers, comma-separated, or 0x mask
 *                                              set(unsigned mask)
 *         STACKS  off, all or sample=BYTES     set(int mode, word bytes)
 *         DEPTH   1 to 64                      set(unsigned)
 *         UNWIND  auto, fp or libgcc       set(int: GCA_UNWIND_*)
 *         MSEC    milliseconds, 0 to 60000     set(unsigned)
 *         KEYFRAME a count of records, 1 to 1000000
 *                                              set(unsigned)
 *         TYPEMODE cookies or il2cpp           set(int: GCA_TYPES_*)
 *         PROFILE off, sampled[=BYTES], full, trace
 *                                              set(int: GCA_PROFILE_*,
 *                                              word bytes, 0: as it is)
 *         LIMIT   bytes, >= 64k, k/M/G suffix  set(size_t)
 *         RETAIN  auto, type:NAME, site:ID, cookie:0xHEX
 *                                              set(const char *)
 *   K(NAME, key, JSON, expr)  once per key of the dump header's "config"
 *       object (docs/dump-format.md) that gives NAME's effective value:
 *       "key": expr, where JSON says what expr is, as jansson names
 *       it: boolean (nonzero for true), integer, string (a C string),
 *       or path (a C string holding a file name, maybe not UTF-8).
 *       Each expr is evaluated in header.c's gca_header_build, after
 *       gca_priv.h: dump.path and dump.limit are the dump being opened
 *       (its file and the size its buffer may grow to).
 *   A(NAME, fn)  once per function of include/gc_accounting.h that sets
 *       (or reads) NAME: builds without getenv (IL2CPP's, NO_GETENV)
 *       reach every setting through these.
 */
#ifndef GCA_SETTINGS_H
#define GCA_SETTINGS_H

#define GCA_SETTINGS(S, K, A) \
  /* The older switch: 1 is GC_ACC_PROFILE=full, 0 is off.            */ \
  S(GC_ACC_TAGS, BOOL, gca_control_set_tags) \
    K(GC_ACC_TAGS, tags, boolean, gca_tags_on) \
    A(GC_ACC_TAGS, GC_acc_set_tags) \
  /* Read after GC_ACC_TAGS, so that it wins when both are given.      */ \
  S(GC_ACC_PROFILE, PROFILE, gca_control_set_profile) \
    K(GC_ACC_PROFILE, profile, string, \
      gca_profile == GCA_PROFILE_SAMPLED ? "sampled" \
      : gca_profile == GCA_PROFILE_FULL ? "full" \
      : gca_profile == GCA_PROFILE_TRACE ? "trace" : "off") \
    K(GC_ACC_PROFILE, sample_bytes, integer, \
      gca_profile == GCA_PROFILE_SAMPLED ? gca_sample_bytes : 0) \
    A(GC_ACC_PROFILE, GC_acc_set_profile) \
    A(GC_ACC_PROFILE, GC_acc_get_profile) \
  S(GC_ACC_TABLE_LIMIT, LIMIT, gca_table_set_limit) \
    K(GC_ACC_TABLE_LIMIT, table_limit, integer, gca_table_limit()) \
    A(GC_ACC_TABLE_LIMIT, GC_acc_set_table_limit) \
  /* A dump turns accounting on once its header is written. */ \
  S(GC_ACC_ENABLE, BOOL, gca_control_enable) \
    K(GC_ACC_ENABLE, enable, boolean, 1) \
    A(GC_ACC_ENABLE, GC_acc_enable) \
    A(GC_ACC_ENABLE, GC_acc_is_enabled) \
  S(GC_ACC_DUMP, PATH, gca_control_dump_start) \
    K(GC_ACC_DUMP, dump, path, dump.path) \
    A(GC_ACC_DUMP, GC_acc_dump_start) \
  /* The size the buffer may grow to, or its fixed size. */ \
  S(GC_ACC_DUMP_BUFFER, SIZE, gca_dump_set_buffer) \
    K(GC_ACC_DUMP_BUFFER, dump_buffer, integer, dump.limit) \
    A(GC_ACC_DUMP_BUFFER, GC_acc_set_dump_buffer_size) \
  /* How long a stop, and the program's exit, waits for the writer. */ \
  S(GC_ACC_DUMP_EXIT_WAIT, MSEC, gca_dump_set_exit_wait) \
    K(GC_ACC_DUMP_EXIT_WAIT, dump_exit_wait_ms, integer, \
      gca_dump_exit_wait()) \
    A(GC_ACC_DUMP_EXIT_WAIT, GC_acc_set_dump_exit_wait) \
  /* Delta records: one whole record (key frame) in every N.           */ \
  S(GC_ACC_DUMP_KEYFRAME, KEYFRAME, gca_dump_set_keyframe) \
    K(GC_ACC_DUMP_KEYFRAME, dump_keyframe, integer, gca_dump_keyframe()) \
    A(GC_ACC_DUMP_KEYFRAME, GC_acc_set_dump_keyframe) \
  S(GC_ACC_FIRST_WORD_TYPES, KINDS, gca_objtype_set_first_word_kinds) \
    K(GC_ACC_FIRST_WORD_TYPES, first_word_types, integer, \
      gca_objtype_first_word_kinds()) \
    A(GC_ACC_FIRST_WORD_TYPES, GC_acc_set_first_word_type_kinds) \
  /* il2cpp: word 0 of PTRFREE, NORMAL and gcj objects is an          */ \
  /* Il2CppClass, validated and named by classes.c.                    */ \
  S(GC_ACC_TYPES, TYPEMODE, gca_objtype_set_mode) \
    K(GC_ACC_TYPES, type_mode, string, \
      gca_objtype_mode() == GCA_TYPES_IL2CPP ? "il2cpp" : "cookies") \
    A(GC_ACC_TYPES, GC_acc_set_type_mode) \
  /* The reader scales sampled figures by stacks_sample_bytes.  The    */ \
  /* sampled profile takes each sample's stack, and no other, whatever */ \
  /* this says: "samples" (header.c warns when it said all or sample). */ \
  S(GC_ACC_STACKS, STACKS, gca_stacks_choose) \
    K(GC_ACC_STACKS, stacks, string, \
      gca_profile == GCA_PROFILE_SAMPLED ? "samples" \
      : gca_stacks_mode == GCA_STACKS_ALL ? "all" \
      : gca_stacks_mode == GCA_STACKS_SAMPLE ? "sample" : "off") \
    K(GC_ACC_STACKS, stacks_sample_bytes, integer, \
      gca_profile != GCA_PROFILE_SAMPLED \
      && gca_stacks_mode == GCA_STACKS_SAMPLE ? gca_stacks_sample_bytes : 0) \
    A(GC_ACC_STACKS, GC_acc_set_stacks) \
  S(GC_ACC_STACK_DEPTH, DEPTH, gca_stacks_set_depth) \
    K(GC_ACC_STACK_DEPTH, stacks_depth, integer, gca_stacks_depth) \
    A(GC_ACC_STACK_DEPTH, GC_acc_set_stack_depth) \
  S(GC_ACC_UNWIND, UNWIND, GC_acc_set_unwinder) \
    K(GC_ACC_UNWIND, unwind, string, \
      gca_unwinder == GCA_UNWIND_LIBGCC ? "libgcc" \
      : gca_unwinder == GCA_UNWIND_AUTO ? "auto" : "fp") \
    A(GC_ACC_UNWIND, GC_acc_set_unwinder) \
  /* Why is it alive (retain.c): the walk's memory cap, then a request */ \
  S(GC_ACC_RETAIN_MEMORY, LIMIT, gca_retain_set_memory) \
    K(GC_ACC_RETAIN_MEMORY, retain_memory, integer, gca_retain_memory()) \
    A(GC_ACC_RETAIN_MEMORY, GC_acc_set_retain_memory) \
  S(GC_ACC_RETAIN_PAUSE, MSEC, gca_retain_set_pause) \
    K(GC_ACC_RETAIN_PAUSE, retain_pause_ms, integer, gca_retain_pause()) \
    A(GC_ACC_RETAIN_PAUSE, GC_acc_set_retain_pause) \
  S(GC_ACC_RETAIN, RETAIN, gca_retain_env) \
    K(GC_ACC_RETAIN, retain_pending, integer, gca_retain_requests()) \
    A(GC_ACC_RETAIN, GC_acc_retain_request) \
    A(GC_ACC_RETAIN, GC_acc_retain_auto) \
    A(GC_ACC_RETAIN, GC_acc_retain_site)

/* Rows a user of the list does not want.                               */
#define GCA_S_SKIP(name, type, set)
#define GCA_K_SKIP(name, key, json, expr)
#define GCA_A_SKIP(name, fn)

#endif /* GCA_SETTINGS_H */
