/* cmd_top.c: PLACEHOLDER while this session's helper writes it. */
#include "gcacc.h"
int cmd_top(int argc, char **argv)
{
  (void)argc; (void)argv;
  return usage_error("'top' is not written yet");
}
