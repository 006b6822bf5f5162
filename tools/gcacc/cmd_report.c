/* cmd_report.c: PLACEHOLDER while this session's helper writes it. */
#include "gcacc.h"
int cmd_report(int argc, char **argv)
{
  (void)argc; (void)argv;
  return usage_error("'report' is not written yet");
}
