/* cmd_symbolize.c: PLACEHOLDER while this session's helper writes it. */
#include "gcacc.h"
int cmd_symbolize(int argc, char **argv)
{
  (void)argc; (void)argv;
  return usage_error("'symbolize' is not written yet");
}
