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
  char buf[GCA_RETAIN_NAME_MAX + 8];
  DCL_LOCK_STATE;

  if (!EXPECT(GC_is_initialized, TRUE)) GC_init();
  if (type_name != NULL) {
    size_t n = strlen(type_name);

    if (0 == n || n >= GCA_RETAIN_NAME_MAX) return GC_ERROR;
    BCOPY("type:", buf, 5);
    BCOPY(type_name, buf + 5, n + 1);
  } else {
    if (0 == cookie) return GC_ERROR;
    BCOPY("cookie:0x", buf, 9);
    {
      static const char hex[] = "0123456789abcdef";
      char b[2 * sizeof(word)];
      int d = (int)sizeof(b), j = 9;

      do {
        b[--d] = hex[cookie & 0xf];
        cookie >>= 4;
      } while (cookie != 0);
      while (d < (int)sizeof(b)) buf[j++] = b[d++];
      buf[j] = '\0';
    }
  }
  LOCK();
  ok = gca_retain_set(buf, (word)at_gc, 0);
  UNLOCK();
  return ok ? GC_SUCCESS : GC_ERROR;
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

#endif /* !GC_ACC_DISABLE */
