/*
 * record.c: one record per collection.  (Placeholder until the census
 * lands: records carry nothing yet and are not submitted.)
 */

#include "gca_priv.h"

#ifndef GC_ACC_DISABLE

GC_INNER void gca_record_emit(int with_census)
{
  (void)with_census;
}

#endif /* !GC_ACC_DISABLE */
