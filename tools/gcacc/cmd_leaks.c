/* cmd_leaks.c: PLACEHOLDER while this session's helper writes it. */
#include "gcacc.h"
int cmd_leaks(int argc, char **argv)
{
  (void)argc; (void)argv;
  return usage_error("'leaks' is not written yet");
}
