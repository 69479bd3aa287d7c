/* main.c -- the `cueue` command: one binary, one subcommand per run mode. */
#include <stdio.h>
#include <string.h>

#include "api/codec.h"
#include "cli/cli.h"
#include "node/sandbox.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static int cmd_version(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: cueue version\n\n"
                   "Print cueue's version and the Kueue API version it serves.\n");
            return 0;
        }
        fprintf(stderr, "cueue version: unknown option '%s'\nusage: cueue version\n", argv[i]);
        return 2;
    }
    printf("cueue %s (kueue.x-k8s.io/v1beta2)\n", CUEUE_VERSION);
    return 0;
}

static const struct command commands[] = {
    {"version", cmd_version, "print the version"},
    {"validate", cli_validate, "check YAML/JSON files as the API server and Kueue would"},
    {"schedule", cli_schedule, "run the admission engine offline on files"},
    {"explain", cli_explain, "explain a workload's admission, preemption and waiting"},
    {"bench", cli_bench, "Kueue's scalability test; engine micro-benchmarks"},
    {"serve", cli_serve, "run the Kubernetes-compatible API server"},
    {"token", cli_token, "issue a tenant token for the API server"},
    {"controller", cli_controller, "run the controllers against a Kubernetes API server"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: cueue <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nRun 'cueue <command> --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
    codec_mem_install();
    /* Run as a kubectl plugin (kubectl kueue ...). */
    const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
    base = base ? base + 1 : argc > 0 ? argv[0] : "";
    if (!strcmp(base, "kubectl-kueue") || !strcmp(base, "kubectl_complete-kueue"))
        return cli_kueuectl(argc, argv);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    /* Not a command: the node agent starts each pod's shim as this binary. */
    if (!strcmp(name, SBX_SHIM_ARG))
        return sbx_shim_main(argc - 1, argv + 1);
    if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(name, "--version"))
        return cmd_version(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(name, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "cueue: unknown command '%s'\n\n", name);
    usage(stderr);
    return 2;
}
