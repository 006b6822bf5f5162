/* cmd_frag.c: PLACEHOLDER while this session's helper writes it. */
#include "gcacc.h"
int cmd_frag(int argc, char **argv)
{
  (void)argc; (void)argv;
  return usage_error("'frag' is not written yet");
}
