/* sim.h -- the what-if simulator and the benchmarks (spec/bench.md):
 * Kueue's scheduler scalability test (its generator config format) played
 * in virtual time over the engine (virtual.c) or in real time against
 * `cueue serve` over HTTP (realtime.c), one report for both (report.c);
 * the engine's micro-benchmarks (micro.c, preempt.c); and engine input
 * built in code, for them, the engine fuzzer and the property tests
 * (objects.c); and a load generator for the webhooks of `cueue controller`
 * (webhook.c). Runs print their reports and rows to stdout. */
#ifndef CUEUE_SIM_SIM_H
#define CUEUE_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/objects.h"
#include "base/compiler.h"

struct arena;
struct eng;
struct err;
struct sim_config;

/* ---- Kueue's scalability test ---- */

/* Read a generator config (Kueue's format, unchanged) from path. Unknown
 * keys and `tas` keys are ignored with a warning on stderr. Returns 0, or
 * ERR_IO / ERR_PARSE / ERR_INVALID with the field path in e. */
CU_MUST_CHECK int sim_config_read(const char *path, struct sim_config **out, struct err *e);
void sim_config_free(struct sim_config *c);

enum sim_output { SIM_OUT_TEXT = 0, SIM_OUT_JSON, SIM_OUT_YAML };

/* Run the config in virtual time and print the report (the contract of
 * spec/bench.md) to stdout. name is the config's name in the report.
 * requeue_batch_ms: how long a request to move a tree's inadmissible
 * workloads back waits (eng_options; 0: at once, the ideal; 1000: as Kueue
 * and `cueue serve`). Returns the exit status: 0, or 1 when the run did
 * not finish every workload (which the report then shows). */
int sim_run_virtual(const struct sim_config *c, const char *name, enum sim_output out,
                    int64_t requeue_batch_ms);

struct sim_rt_options {
    const char *kubeconfig;    /* an existing server (plain HTTP); NULL = start one */
    const char *server_binary; /* the cueue binary to run `serve` from */
    int clients;               /* creating threads (and as many finishing ones) */
    long timeout_s;            /* give up after this long */
};

/* Run the config in wall-clock time against the server and print the
 * report. Returns 0, 1 when not every workload finished (the report says
 * which), 2 when the server could not be started or the objects not
 * created. */
int sim_run_realtime(const struct sim_config *c, const char *name, enum sim_output out,
                     const struct sim_rt_options *opt);

/* ---- the engine's micro-benchmarks ---- */

/* Each returns the exit status: 0, or 1 when a measured run did not
 * behave as set up (not everything admitted, no preemption happened). */

/* Every table below, each row in a child process of its own. */
int sim_micro_all(void);
/* Admissions per CPU second, 50,000 workloads over 1,000 ClusterQueues. */
int sim_micro_admissions(void);
/* Admissions per CPU second by number of ClusterQueues, for each mode. */
int sim_micro_table(void);

enum sim_micro_mode { SIM_MICRO_PLAIN = 0, SIM_MICRO_PREEMPT, SIM_MICRO_FAIR };
/* One row of that table: n_cqs ClusterQueues, in this process. */
int sim_micro_row(enum sim_micro_mode mode, int n_cqs);

/* The CPU cost of one cycle over n_cqs ClusterQueues with per_cq (>= 2)
 * pending workloads each. */
void sim_micro_cycle_cost(int n_cqs, int per_cq);

/* Preemption target search, a stream of preemptors, fair-sharing cycles. */
int sim_micro_preemption(void);

/* ---- engine input built in code ---- */

/* eng_apply the view (a struct api_<kind>, borrowed: it must outlive the
 * engine, as every view given to eng_apply) at time 0. */
void sim_eng_apply(struct eng *eng, enum api_kind kind, void *view);

/* A ResourceFlavor named name (copied into mem), applied to eng. */
void sim_eng_flavor(struct eng *eng, struct arena *mem, const char *name);

/* One resource group, in mem: the n resources covered by the one flavor
 * named flavor (borrowed), with nominal quotas nominal_milli[i]. */
struct api_resource_group *sim_resource_group(struct arena *mem, const char *flavor, size_t n,
                                              const char *const *resources,
                                              const int64_t *nominal_milli);

/* ---- the webhooks' load generator ---- */

/* One review the generator sends: the bodies tests/e2e-install/latency.sh
 * sends, so the two measure the same work. */
struct sim_wh_review {
    const char
        *name; /* clusterqueue, job, workload, localqueue, workload-default, job-update, jobset */
    const char *path; /* the webhook's path */
    const char *body; /* the AdmissionReview, JSON */
};

/* The review named name, or NULL. Borrowed, static. */
const struct sim_wh_review *sim_wh_review_find(const char *name);

/* Split "https://HOST[:PORT][/]" into host (copied into host[0..hostlen),
 * NUL-terminated) and *port (443 when absent). Returns 0, or -1 when url
 * is not of that form (another scheme, a path, a bad port, a host too
 * long). */
int sim_wh_url_parse(const char *url, char *host, size_t hostlen, int *port);

/* What an HTTP/1.1 answer to a review says. */
struct sim_wh_answer {
    int status;   /* the status line's code */
    bool allowed; /* the body holds an "allowed" member */
    bool close;   /* the server closes the connection after it */
};

/* Read one answer from buf[0..len): returns the answer's length in bytes
 * (head and body, with *a filled) once it is all there, 0 while more is
 * needed, -1 when it is no HTTP/1.x answer with a Content-Length (the
 * only framing the generator reads; the webhook server sends its answers
 * so). */
long sim_wh_answer_parse(const char *buf, size_t len, struct sim_wh_answer *a);

/* The nearest-rank percentile: the smallest of the n sorted values (in
 * ascending order) that at least permille/1000 of them do not exceed; 0
 * when n is 0. */
int64_t sim_wh_percentile(const int64_t *sorted, size_t n, int permille);

struct sim_wh_options {
    const char *url;         /* https://HOST:PORT of the webhook server */
    const char *review;      /* a sim_wh_review's name */
    int connections;         /* keep-alive connections, one review in flight on each */
    long count;              /* reviews in all */
    const char *cacert;      /* PEM file of the CA to verify the server against; NULL: none */
    const char *server_name; /* the name verified (and sent as SNI); NULL: the URL's host */
    long stall_s;            /* give up when no answer came for this long */
    int server_pid;          /* > 0: also report this process's CPU over the run */
};

/* Open o->connections TLS connections to o->url (handshakes are not
 * timed), then send o->count reviews over them, each connection sending
 * its next review when the answer to its last one has arrived (one epoll
 * loop), and print one line to stdout: the latency from a review's first
 * byte sent to its answer's last byte read (p50, p90, p99, max), reviews
 * per second, the reviews that failed (not HTTP 200, no "allowed" in the
 * body, or the connection lost with the review in flight) and this
 * process's own CPU over the run (getrusage), in all and per review; with
 * o->server_pid, a second line with that process's CPU over the same
 * span (its /proc/PID/stat, clock ticks), handshakes excluded.
 * Returns the exit status: 0, 1 when any review failed, 2 when the server
 * could not be reached (the reason on stderr). */
int sim_wh_run(const struct sim_wh_options *o);

#endif
