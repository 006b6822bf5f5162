/* SPDX-License-Identifier: MIT */
/*
 * gcacc.c: the reader's entry point: global options and the command table.
 *
 *   gcacc <command> [<options>] <dump>...
 *
 * Each command is cmd_<name>() in cmd_<name>.c; `gcacc help <command>` and
 * `gcacc <command> --help` print its usage to stdout and exit 0.
 */

#include "gcacc.h"
#include "session.h"

#include <string.h>

#define GCACC_READER_VERSION "0.1.0"

int cmd_summary(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_frag(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_leaks(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_why(int argc, char **argv);

static const struct command {
  const char *name;
  int (*fn)(int, char **);
  const char *help;
} commands[] = {
  { "summary", cmd_summary, "the session at a glance" },
  { "timeline", cmd_timeline, "heap, live, reserved, free per collection" },
  { "top", cmd_top, "top size classes (types, callsites) by bytes" },
  { "frag", cmd_frag, "the fragmentation story" },
  { "diff", cmd_diff, "compare two sessions" },
  { "leaks", cmd_leaks, "what grows steadily across the session" },
  { "symbolize", cmd_symbolize, "resolve callsite addresses offline" },
  { "export", cmd_export, "folded stacks, Chrome trace, CSV" },
  { "report", cmd_report, "one self-contained HTML report" },
  { "why", cmd_why, "paths from a root to what grows (retention)" },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
  size_t i;

  fputs("usage: gcacc <command> [<options>] <dump>...\n"
        "       gcacc help <command>\n"
        "       gcacc --version\n\ncommands:\n", out);
  for (i = 0; i < N_COMMANDS; i++)
    fprintf(out, "  %-10s  %s\n", commands[i].name, commands[i].help);
  fputs("\ncommon options: --json, --csv, -o <file>, --no-progress\n"
        "exit status: 0 ok, 1 a finding (diff over threshold, leak found),\n"
        "             2 bad usage or unreadable input\n", out);
}

int main(int argc, char **argv)
{
  size_t i;
  const char *name;

  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  name = argv[1];
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
    usage(stdout);
    return EXIT_OK;
  }
  if (strcmp(name, "--version") == 0) {
    printf("gcacc %s (dump format 1)\n", GCACC_READER_VERSION);
    return EXIT_OK;
  }
  if (strcmp(name, "help") == 0) {
    if (argc < 3) {
      usage(stdout);
      return EXIT_OK;
    }
    name = argv[2];
    for (i = 0; i < N_COMMANDS; i++) {
      if (strcmp(commands[i].name, name) == 0) {
        char *hargv[3];

        hargv[0] = (char *)name;
        hargv[1] = (char *)"--help";
        hargv[2] = NULL;
        gcacc_cmd = name;
        return commands[i].fn(2, hargv);
      }
    }
    return usage_error("unknown command '%s'", name);
  }
  for (i = 0; i < N_COMMANDS; i++) {
    if (strcmp(commands[i].name, name) == 0) {
      int rc;

      gcacc_cmd = name;
      rc = commands[i].fn(argc - 1, argv + 1);
      if (keymap_fold_note() != NULL) warning("%s", keymap_fold_note());
      return rc;
    }
  }
  return usage_error("unknown command '%s'", name);
}
