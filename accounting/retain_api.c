/* SPDX-License-Identifier: MIT */
/*
 * retain_api.c: the public functions of retention requests (issue 37;
 * the walk and its record are retain.c's).  Each takes the allocation
 * lock and hands the request or setting down.
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

#include <string.h>

GC_API int GC_CALL GC_acc_retain_request(const char *type_name,
                                         GC_word cookie, GC_word at_gc)
{
  int ok;
  DCL_LOCK_STATE;

  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  LOCK();
  ok = gca_retain_set(type_name, (word)cookie, (word)at_gc, 0);
  UNLOCK();
  return ok ? GC_SUCCESS : GC_ERROR;
}

GC_API int GC_CALL GC_acc_retain_site(unsigned site, GC_word at_gc)
{
  int ok;
  DCL_LOCK_STATE;

  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  LOCK();
  ok = site >= 2 && gca_retain_set(NULL, site, (word)at_gc, GCA_RETAIN_SITE);
  UNLOCK();
  return ok ? GC_SUCCESS : GC_ERROR;
}

GC_API int GC_CALL GC_acc_set_retain_pause(unsigned ms)
{
  DCL_LOCK_STATE;

  if (ms > GCA_DUMP_MAX_EXIT_WAIT_MS) return GC_ERROR;
  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  LOCK();
  gca_retain_set_pause(ms);
  UNLOCK();
  return GC_SUCCESS;
}

GC_API int GC_CALL GC_acc_retain_auto(int on)
{
  DCL_LOCK_STATE;

  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  LOCK();
  gca_retain_set_auto(on != 0);
  UNLOCK();
  return GC_SUCCESS;
}

GC_API int GC_CALL GC_acc_set_retain_memory(size_t bytes)
{
  DCL_LOCK_STATE;

  if (bytes != 0 && bytes < GCA_RETAIN_MIN_MEMORY) return GC_ERROR;
  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  LOCK();
  gca_retain_set_memory(bytes);
  UNLOCK();
  return GC_SUCCESS;
}

#else /* GC_ACC_DISABLE */

GC_API int GC_CALL GC_acc_retain_request(const char *type_name,
                                         GC_word cookie, GC_word at_gc)
{
  (void)type_name; (void)cookie; (void)at_gc;
  return GC_UNIMPLEMENTED;
}

GC_API int GC_CALL GC_acc_set_retain_memory(size_t bytes)
{
  (void)bytes;
  return GC_UNIMPLEMENTED;
}

GC_API int GC_CALL GC_acc_retain_auto(int on)
{
  (void)on;
  return GC_UNIMPLEMENTED;
}

GC_API int GC_CALL GC_acc_set_retain_pause(unsigned ms)
{
  (void)ms;
  return GC_UNIMPLEMENTED;
}

GC_API int GC_CALL GC_acc_retain_site(unsigned site, GC_word at_gc)
{
  (void)site; (void)at_gc;
  return GC_UNIMPLEMENTED;
}

#endif /* !GC_ACC_DISABLE */
