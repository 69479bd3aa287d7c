/* bench.c -- `cueue bench`: its arguments, handed to the simulator
 * (sim/sim.h): Kueue's scalability test (--config, in virtual or real
 * time), the admission engine's micro-benchmarks (--micro) and the
 * webhooks' load generator (`cueue bench webhook`). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "cli/cli.h"
#include "sim/sim.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: cueue bench --config FILE [--mode virtual|realtime] [-o text|json|yaml]\n"
            "                   [--kubeconfig FILE | --server-binary PATH] [--clients N]\n"
            "                   [--timeout SECONDS] [--requeue-batch-ms MS]\n"
            "       cueue bench --micro [--admissions | --table | --row plain|preempt|fair M |\n"
            "                            --preemption | --cqs N [--pending P]]\n"
            "       cueue bench webhook https://HOST:PORT [--connections N] [--count M]\n"
            "                   [--kind "
            "clusterqueue|job|workload|localqueue|workload-default|job-update|jobset]\n"
            "                   [--cacert FILE]\n"
            "                   [--server-name NAME] [--stall SECONDS] [--server-pid PID]\n"
            "\n"
            "--config runs Kueue's scheduler scalability test (its generator config format)\n"
            "and reports queue usage and waiting times (spec/bench.md): in virtual time over\n"
            "the engine, or in real time against `cueue serve` (started from --server-binary,\n"
            "default this binary, on a free port; or an existing plain-HTTP server named by\n"
            "--kubeconfig) with N client threads creating Workloads on schedule and as many\n"
            "marking them Finished (default 4; --timeout: give up, default 900 s).\n"
            "--requeue-batch-ms: in virtual time, a request to retry a ClusterQueue's or\n"
            "Cohort's inadmissible workloads (after a finish, an eviction) waits this long,\n"
            "as Kueue's requeuer and `cueue serve` do (1000); default 0, at once.\n"
            "\n"
            "--micro measures the admission engine alone: admissions per second for 50,000\n"
            "pending workloads over 1 to 10,000 ClusterQueues (without preemption, with\n"
            "preemption, with fair sharing), the cost of one cycle, and the preemption rows\n"
            "(--admissions: only the first admissions row; --table: only the admissions\n"
            "table; --row: one row of it, for M ClusterQueues; --cqs: only the cycle cost for N\n"
            "ClusterQueues with P pending workloads each; --preemption: only the preemption\n"
            "target search and the fair-sharing cycle).\n"
            "\n"
            "webhook sends M AdmissionReviews (default 1000) of one kind (default\n"
            "clusterqueue) to the webhooks of `cueue controller` over N keep-alive TLS\n"
            "connections (default 1), one review in flight on each, and prints p50, p90, p99\n"
            "and max latency, reviews per second, the reviews that failed (not 200, no\n"
            "\"allowed\") and its own CPU. The server's certificate is verified only with\n"
            "--cacert (against NAME, default the URL's host); --stall: give up after that\n"
            "long without an answer (default 30 s); --server-pid: also the CPU that process\n"
            "spent over the run (on this machine). Exit 1 when a review failed.\n");
}

static int bench_webhook(int argc, char **argv)
{
    struct sim_wh_options o = {
        .review = "clusterqueue", .connections = 1, .count = 1000, .stall_s = 30};
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] != '-' && !o.url) {
            o.url = argv[i];
            continue;
        } else if (!v) {
            fprintf(stderr, "cueue bench webhook: '%s' needs a value\n", argv[i]);
            return 2;
        } else if (!strcmp(argv[i], "--kind")) {
            o.review = v;
        } else if (!strcmp(argv[i], "--cacert")) {
            o.cacert = v;
        } else if (!strcmp(argv[i], "--server-name")) {
            o.server_name = v;
        } else if (!strcmp(argv[i], "--connections") || !strcmp(argv[i], "--count") ||
                   !strcmp(argv[i], "--stall") || !strcmp(argv[i], "--server-pid")) {
            long n = strtol(v, &end, 10);
            if (*v == '\0' || *end || n < 1 || n > 100000000) {
                fprintf(stderr, "cueue bench webhook: %s must be a positive integer, got '%s'\n",
                        argv[i], v);
                return 2;
            }
            if (!strcmp(argv[i], "--connections")) {
                if (n > 10000) {
                    fprintf(stderr,
                            "cueue bench webhook: --connections must be at most 10000, "
                            "got '%s'\n",
                            v);
                    return 2;
                }
                o.connections = (int)n;
            } else if (!strcmp(argv[i], "--count")) {
                o.count = n;
            } else if (!strcmp(argv[i], "--server-pid")) {
                o.server_pid = (int)n;
            } else {
                o.stall_s = n;
            }
        } else {
            fprintf(stderr, "cueue bench webhook: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        i++;
    }
    if (!o.url) {
        fprintf(stderr, "cueue bench webhook: the webhook server's https://HOST:PORT is needed\n");
        return 2;
    }
    if (!sim_wh_review_find(o.review)) {
        fprintf(stderr,
                "cueue bench webhook: unknown kind '%s' (clusterqueue, job, workload, localqueue, "
                "workload-default, job-update or jobset)\n",
                o.review);
        return 2;
    }
    return sim_wh_run(&o);
}

static int run_config(const char *path, const char *mode, const char *output,
                      const struct sim_rt_options *rt, const char *requeue_batch)
{
    enum sim_output out;
    if (!strcmp(output, "text"))
        out = SIM_OUT_TEXT;
    else if (!strcmp(output, "json"))
        out = SIM_OUT_JSON;
    else if (!strcmp(output, "yaml"))
        out = SIM_OUT_YAML;
    else {
        fprintf(stderr, "cueue bench: unknown output format '%s' (text, json or yaml)\n", output);
        return 2;
    }
    bool realtime = !strcmp(mode, "realtime");
    if (!realtime && strcmp(mode, "virtual")) {
        fprintf(stderr, "cueue bench: unknown mode '%s' (virtual or realtime)\n", mode);
        return 2;
    }
    long long batch_ms = 0;
    if (requeue_batch) {
        char *end = NULL;
        batch_ms = strtoll(requeue_batch, &end, 10);
        if (end == requeue_batch || *end || batch_ms < 0 || batch_ms > 3600000) {
            fprintf(stderr,
                    "cueue bench: --requeue-batch-ms: '%s' is not a number of milliseconds "
                    "from 0 to 3600000\n",
                    requeue_batch);
            return 2;
        }
        if (realtime) {
            fprintf(stderr, "cueue bench: --requeue-batch-ms applies to --mode virtual (the "
                            "server batches requeues as Kueue: one second)\n");
            return 2;
        }
    }
    struct sim_config *c = NULL;
    struct err e;
    err_init(&e);
    if (sim_config_read(path, &c, &e)) {
        struct sb sb = SB_INIT;
        err_format(&e, &sb);
        fprintf(stderr, "cueue bench: %s: %s\n", path, sb_str(&sb));
        sb_release(&sb);
        return 2;
    }
    const char *base = strrchr(path, '/');
    int rc = realtime ? sim_run_realtime(c, base ? base + 1 : path, out, rt)
                      : sim_run_virtual(c, base ? base + 1 : path, out, (int64_t)batch_ms);
    sim_config_free(c);
    return rc;
}

int cli_bench(int argc, char **argv)
{
    bool micro = false;
    int only_cqs = 0, pending = 8;
    bool only_admissions = false;
    bool only_preemption = false;
    const char *config = NULL, *mode = "virtual", *output = "text", *requeue_batch = NULL;
    struct sim_rt_options rt = {NULL, "/proc/self/exe", 4, 900};
    bool only_table = false;
    const char *row_mode = NULL;
    int row_cqs = 0;
    if (argc > 1 && !strcmp(argv[1], "webhook"))
        return bench_webhook(argc - 1, argv + 1);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--micro")) {
            micro = true;
        } else if (!strcmp(argv[i], "--preemption")) {
            only_preemption = true;
        } else if (!strcmp(argv[i], "--admissions")) {
            only_admissions = true;
        } else if (!strcmp(argv[i], "--cqs") && i + 1 < argc) {
            only_cqs = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--pending") && i + 1 < argc) {
            pending = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--table")) {
            only_table = true;
        } else if (!strcmp(argv[i], "--row") && i + 2 < argc) {
            row_mode = argv[++i];
            row_cqs = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--config") && i + 1 < argc) {
            config = argv[++i];
        } else if (!strcmp(argv[i], "--kubeconfig") && i + 1 < argc) {
            rt.kubeconfig = argv[++i];
        } else if (!strcmp(argv[i], "--server-binary") && i + 1 < argc) {
            rt.server_binary = argv[++i];
        } else if (!strcmp(argv[i], "--clients") && i + 1 < argc) {
            rt.clients = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
            rt.timeout_s = atol(argv[++i]);
        } else if (!strcmp(argv[i], "--requeue-batch-ms") && i + 1 < argc) {
            requeue_batch = argv[++i];
        } else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            mode = argv[++i];
        } else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
            output = argv[++i];
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "cueue bench: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (config && micro) {
        fprintf(stderr, "cueue bench: --config and --micro are separate runs\n");
        return 2;
    }
    if (config)
        return run_config(config, mode, output, &rt, requeue_batch);
    if (!micro) {
        usage(stderr);
        return 2;
    }
    if (only_preemption)
        return sim_micro_preemption();
    if (only_cqs > 0) {
        sim_micro_cycle_cost(only_cqs, pending < 2 ? 2 : pending);
        return 0;
    }
    if (only_admissions)
        return sim_micro_admissions();
    if (only_table)
        return sim_micro_table();
    if (row_mode) {
        static const char *const names[] = {"plain", "preempt", "fair"};
        for (int m = 0; m < 3; m++)
            if (!strcmp(row_mode, names[m]) && row_cqs > 0)
                return sim_micro_row((enum sim_micro_mode)m, row_cqs);
        fprintf(stderr, "cueue bench: --row takes plain, preempt or fair and a count\n");
        return 2;
    }
    return sim_micro_all();
}
