/* cmd_timeline.c: PLACEHOLDER while this session's helper writes it. */
#include "gcacc.h"
int cmd_timeline(int argc, char **argv)
{
  (void)argc; (void)argv;
  return usage_error("'timeline' is not written yet");
}
