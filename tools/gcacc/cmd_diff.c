/* cmd_diff.c: PLACEHOLDER while this session's helper writes it. */
#include "gcacc.h"
int cmd_diff(int argc, char **argv)
{
  (void)argc; (void)argv;
  return usage_error("'diff' is not written yet");
}
