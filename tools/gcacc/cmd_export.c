/* cmd_export.c: PLACEHOLDER while this session's helper writes it. */
#include "gcacc.h"
int cmd_export(int argc, char **argv)
{
  (void)argc; (void)argv;
  return usage_error("'export' is not written yet");
}
