/*
 * ohk_peer.c - the reference workload (docs/benchmarks.md) through
 * the OpenHealthKit C API, driven by the peers' own harness
 * (../shared/bench/peers/bench.c), so that its JSON lines sit beside the
 * SQLite and raw-LMDB peers' from the same code, phases and checks.
 *
 *   make c-bench BENCH_N=1000000     (builds build/bench/ohk_peer and runs it)
 *
 * Mapping: the harness's integer anchors are tokens for the opaque
 * ohk_anchor values this peer hands out. The harness's commit listener
 * ("called after each durable commit made through this handle", which the
 * peers call at the end of their save) is an ohk commit hook, called the
 * same way; with OHK_PEER_OBSERVER=query it is an ohk observer query
 * instead, whose callback runs on a library thread (one more thread hop
 * before the harness's own). The cross-process poll compares the store's
 * current anchor and, when it moved, asks for one step-count change after it.
 * Decoded samples carry seq 0 (the C API does not expose change positions).
 * With no anchor the workload counts live samples only; see op_query.
 * A query without a limit reads its result in parts (ohk_store_fetch_parts:
 * one snapshot, at most 4,096 objects a part), as the peers step through
 * theirs; with OHK_PEER_FETCH=whole it takes one batch (ohk_store_fetch).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "openhealthkit.h"

static const char *const TYPE_ID[2] = { "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierHeartRate" };
static const char *const TYPE_UNIT[2] = { "count", "count/min" };

struct store {
    ohk_store *db;
    int durable;
    char describe[200];
    int fetch_whole; /* OHK_PEER_FETCH=whole: one batch, not parts */
    /* token - 1 -> anchor, for the harness's integer anchors */
    ohk_anchor *anchors;
    size_t n_anchors, cap_anchors;
    /* reused save buffers */
    ohk_sample_input *inputs;
    ohk_metadata_entry *meta;
    size_t cap_inputs;
    /* in-process observation: a commit hook, or an observer query */
    int use_observer_query;
    ohk_query *observer;
    commit_listener_fn listener;
    void *listener_ctx;
    /* cross-process polling */
    int polled;
    ohk_anchor poll_anchor;
};

static int fail(const char *what, int32_t status)
{
    fprintf(stderr, "ohk_peer: %s: %s: %s\n", what, ohk_status_name(status), ohk_last_error_message());
    return -1;
}

/* The token of an anchor; equal anchors get equal tokens (the harness
 * compares them), found among the recent ones. */
static uint64_t remember(store_t *s, const ohk_anchor *a)
{
    for (size_t i = s->n_anchors, seen = 0; i > 0 && seen < 16; i--, seen++)
        if (memcmp(&s->anchors[i - 1], a, sizeof *a) == 0)
            return i;
    if (s->n_anchors == s->cap_anchors) {
        s->cap_anchors = s->cap_anchors ? 2 * s->cap_anchors : 1024;
        s->anchors = realloc(s->anchors, s->cap_anchors * sizeof *s->anchors);
    }
    s->anchors[s->n_anchors++] = *a;
    return s->n_anchors;
}

static store_t *op_open(const char *dir, int create, int sync_full)
{
    (void)create; /* ohk_store_open creates a missing store */
    store_t *s = calloc(1, sizeof *s);
    ohk_store_options o;
    ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION);
    o.durable = sync_full != 0;
    int32_t rc = ohk_store_open(&s->db, dir, &o);
    if (rc != OHK_OK) {
        fail("open", rc);
        free(s);
        return NULL;
    }
    s->durable = o.durable;
    const char *observer = getenv("OHK_PEER_OBSERVER");
    s->use_observer_query = observer && strcmp(observer, "query") == 0;
    const char *fetch = getenv("OHK_PEER_FETCH");
    s->fetch_whole = fetch && strcmp(fetch, "whole") == 0;
    snprintf(s->describe, sizeof s->describe,
             "\"api\":\"C (libopenhealthkit.so)\",\"durable\":%s,\"listener\":\"%s\",\"fetch\":\"%s\"",
             o.durable ? "true" : "false",
             s->use_observer_query ? "ohk_query_start_observer" : "ohk_store_set_commit_hook",
             s->fetch_whole ? "ohk_store_fetch" : "ohk_store_fetch_parts");
    return s;
}

static void op_close(store_t *s)
{
    if (!s)
        return;
    ohk_query_free(s->observer);
    ohk_store_close(s->db);
    free(s->anchors);
    free(s->inputs);
    free(s->meta);
    free(s);
}

static const char *op_version(void) { return ohk_version_string(); }
static const char *op_describe(store_t *s) { return s->describe; }

static int op_save(store_t *s, const sample_t *in, size_t n)
{
    if (n > s->cap_inputs) {
        s->cap_inputs = n;
        s->inputs = realloc(s->inputs, n * sizeof *s->inputs);
        s->meta = realloc(s->meta, n * sizeof *s->meta);
    }
    for (size_t i = 0; i < n; i++) {
        ohk_sample_input *o = &s->inputs[i];
        memset(o, 0, sizeof *o);
        o->type = TYPE_ID[in[i].type];
        o->unit = TYPE_UNIT[in[i].type];
        o->start = in[i].start_ms / 1000.0;
        o->end = in[i].end_ms / 1000.0;
        o->value = in[i].value;
        memcpy(o->uuid, in[i].uuid, 16);
        o->source.bundle_identifier = in[i].source;
        o->source.name = in[i].source;
        if (in[i].n_meta) { /* the workload's only entry: HKWasUserEntered = true */
            ohk_metadata_entry *m = &s->meta[i];
            memset(m, 0, sizeof *m);
            m->key = in[i].meta[0].key;
            m->value.kind = OHK_VALUE_BOOL;
            m->value.number = in[i].meta[0].value != 0;
            o->metadata = m;
            o->metadata_count = 1;
        }
    }
    int32_t rc = ohk_store_save(NULL, s->db, s->inputs, n);
    return rc == OHK_OK ? 0 : fail("save", rc);
}

static int op_delete(store_t *s, const uint8_t (*uuids)[16], size_t n, size_t *n_deleted)
{
    int32_t rc = ohk_store_delete_uuids(s->db, &uuids[0][0], n);
    if (rc != OHK_OK)
        return fail("delete", rc);
    *n_deleted = n;
    return 0;
}

/* Hands a batch's (or a part's) samples and deleted objects to the harness. */
static void deliver(const ohk_batch *b, const query_t *q, const query_sink_t *sink)
{
    const ohk_sample_record *r;
    const ohk_deleted_record *del;
    uint64_t n, nd;
    ohk_batch_samples(&r, &n, b);
    ohk_batch_deleted(&del, &nd, b);
    const ohk_source *sources;
    uint64_t n_sources;
    ohk_batch_sources(&sources, &n_sources, b);
    double scale = q->type == TYPE_HEART_RATE ? 60.0 : 1.0; /* canonical count/s -> count/min */
    for (uint64_t i = 0; i < n; i++) {
        decoded_sample_t ds;
        ds.seq = 0;
        memcpy(ds.uuid, r[i].uuid, 16);
        ds.start_ms = (int64_t)llround(r[i].start * 1000.0);
        ds.end_ms = (int64_t)llround(r[i].end * 1000.0);
        ds.value = r[i].value * scale;
        ds.source = r[i].source_index < n_sources ? sources[r[i].source_index].bundle_identifier : NULL;
        sink->on_sample(sink->ctx, &ds);
    }
    /* The workload's nil anchor means live samples only; OpenHealthKit's
     * (rule 3) also returns the retained deleted objects, read but not
     * handed on. */
    for (uint64_t i = 0; q->has_anchor && i < nd; i++)
        sink->on_deleted(sink->ctx, 0, del[i].uuid);
}

/* A query in parts: each part delivered, the last one's anchor kept. */
typedef struct {
    const query_t *q;
    const query_sink_t *sink;
    ohk_anchor anchor;
} parts_t;

static int32_t take_part(const ohk_batch *part, void *user_data)
{
    parts_t *p = user_data;
    deliver(part, p->q, p->sink);
    ohk_batch_anchor(&p->anchor, part);
    return 0;
}

static int op_query(store_t *s, const query_t *q, const query_sink_t *sink, uint64_t *new_anchor)
{
    ohk_predicate *pred = NULL;
    if (q->has_pred) {
        ohk_value args[2];
        memset(args, 0, sizeof args);
        args[0].kind = args[1].kind = OHK_VALUE_DATE;
        args[0].number = q->start_lo / 1000.0;
        args[1].number = q->start_hi / 1000.0;
        int32_t rc = ohk_predicate_parse(&pred, "startDate >= $1 AND startDate < $2", args, 2);
        if (rc != OHK_OK)
            return fail("predicate", rc);
    }
    if (q->has_anchor && (q->anchor == 0 || q->anchor > s->n_anchors)) {
        fprintf(stderr, "ohk_peer: unknown anchor token %llu\n", (unsigned long long)q->anchor);
        return -1;
    }
    ohk_descriptor d = { TYPE_ID[q->type], pred };
    const ohk_anchor *from = q->has_anchor ? &s->anchors[q->anchor - 1] : NULL;
    if (q->limit == 0 && !s->fetch_whole) {
        parts_t p = { q, sink, { { 0 } } };
        int32_t rc = ohk_store_fetch_parts(s->db, &d, 1, from, take_part, &p);
        ohk_predicate_free(pred);
        if (rc != OHK_OK)
            return fail("query", rc);
        *new_anchor = remember(s, &p.anchor);
        return 0;
    }
    ohk_batch *b = NULL;
    int32_t rc = ohk_store_fetch(&b, s->db, &d, 1, from, q->limit);
    ohk_predicate_free(pred);
    if (rc != OHK_OK)
        return fail("query", rc);
    deliver(b, q, sink);
    ohk_anchor a;
    ohk_batch_anchor(&a, b);
    *new_anchor = remember(s, &a);
    ohk_batch_free(b);
    return 0;
}

static int op_anchor_now(store_t *s, uint64_t *anchor)
{
    ohk_anchor a;
    int32_t rc = ohk_store_current_anchor(&a, s->db);
    if (rc != OHK_OK)
        return fail("current anchor", rc);
    *anchor = remember(s, &a);
    return 0;
}

/* The harness's type bits of the changed `types`. */
static uint32_t type_mask(const char *const *types, uint64_t n)
{
    uint32_t mask = 0;
    for (uint64_t i = 0; i < n; i++)
        mask |= strcmp(types[i], TYPE_ID[TYPE_STEPS]) == 0 ? TYPE_BIT(TYPE_STEPS) : TYPE_BIT(TYPE_HEART_RATE);
    return mask;
}

/* The commit hook, on the saving thread before ohk_store_save returns:
 * tell the harness, as the peers do at the end of their save. */
static void committed(ohk_store *db, const char *const *types, uint64_t n, const ohk_anchor *a, void *user_data)
{
    (void)db;
    (void)a;
    store_t *s = user_data;
    s->listener(s->listener_ctx, type_mask(types, n));
}

/* The observer query's callback, on a library thread: tell the harness. */
static void observed(ohk_query *q, int32_t status, const char *const *types, uint64_t n, void *user_data)
{
    (void)q;
    store_t *s = user_data;
    if (status != OHK_OK) {
        fail("observer", status);
        return;
    }
    if (s->listener)
        s->listener(s->listener_ctx, type_mask(types, n));
}

static void op_set_commit_listener(store_t *s, commit_listener_fn fn, void *ctx)
{
    int32_t rc = ohk_store_set_commit_hook(s->db, NULL, NULL, NULL);
    if (rc != OHK_OK)
        fail("commit hook", rc);
    ohk_query_free(s->observer); /* waits for a running callback */
    s->observer = NULL;
    s->listener = fn;
    s->listener_ctx = ctx;
    if (!fn)
        return;
    if (!s->use_observer_query) {
        if ((rc = ohk_store_set_commit_hook(s->db, committed, s, NULL)) != OHK_OK)
            fail("commit hook", rc);
        return;
    }
    ohk_descriptor d[2] = { { TYPE_ID[0], NULL }, { TYPE_ID[1], NULL } };
    ohk_query_options o = OHK_QUERY_OPTIONS_INIT;
    o.descriptors = d;
    o.descriptor_count = 2;
    rc = ohk_query_start_observer(&s->observer, s->db, &o, observed, s, NULL);
    if (rc != OHK_OK)
        fail("observer", rc);
}

static int op_poll_changed(store_t *s, uint32_t type)
{
    ohk_anchor now;
    int32_t rc = ohk_store_current_anchor(&now, s->db);
    if (rc != OHK_OK)
        return fail("current anchor", rc);
    if (!s->polled) {
        s->polled = 1;
        s->poll_anchor = now;
        return 0;
    }
    if (memcmp(&now, &s->poll_anchor, sizeof now) == 0)
        return 0;
    ohk_descriptor d = { TYPE_ID[type], NULL };
    ohk_batch *b = NULL;
    rc = ohk_store_fetch(&b, s->db, &d, 1, &s->poll_anchor, 1);
    if (rc != OHK_OK)
        return fail("poll query", rc);
    uint64_t n = 0, nd = 0;
    const ohk_sample_record *r;
    const ohk_deleted_record *del;
    ohk_batch_samples(&r, &n, b);
    ohk_batch_deleted(&del, &nd, b);
    ohk_batch_free(b);
    s->poll_anchor = now;
    return n + nd > 0;
}

/* Phase 9a: one statistics collection, 1-day intervals from t0. */
static int op_stats_daily_sum(store_t *s, uint32_t type, int64_t t0_ms, uint32_t ndays, double *sums,
                              uint32_t *days_with_data)
{
    double t0 = (double)t0_ms / 1000.0;
    ohk_statistics_result *r = NULL;
    ohk_statistics_options o = OHK_STATISTICS_OPTIONS_INIT;
    o.type = TYPE_ID[type];
    o.flags = OHK_STATISTICS_SUM;
    o.anchor = t0;
    o.interval_unit = OHK_INTERVAL_DAY;
    o.from = t0;
    o.to = t0 + (double)ndays * 86400.0;
    int32_t rc = ohk_store_statistics_collection(&r, s->db, &o);
    if (rc != OHK_OK)
        return fail("statistics collection", rc);
    uint32_t with_data = 0;
    for (uint32_t d = 0; d < ndays; d++) {
        const ohk_statistics_values *v = d < r->interval_count ? &r->intervals[d].values : NULL;
        sums[d] = v && v->count ? v->sum : 0;
        with_data += v && v->count;
    }
    *days_with_data = with_data;
    ohk_statistics_result_free(r);
    return 0;
}

/* Phase 9c: average, minimum and maximum per hour of one day. */
static int op_stats_hourly(store_t *s, uint32_t type, int64_t t0_ms, stats_hour_t out[24])
{
    double t0 = (double)t0_ms / 1000.0;
    ohk_statistics_result *r = NULL;
    ohk_statistics_options o = OHK_STATISTICS_OPTIONS_INIT;
    o.type = TYPE_ID[type];
    o.flags = OHK_STATISTICS_AVERAGE | OHK_STATISTICS_MIN | OHK_STATISTICS_MAX;
    o.anchor = t0;
    o.interval_unit = OHK_INTERVAL_HOUR;
    o.from = t0;
    o.to = t0 + 86400.0;
    int32_t rc = ohk_store_statistics_collection(&r, s->db, &o);
    if (rc != OHK_OK)
        return fail("statistics collection", rc);
    double scale = type == TYPE_HEART_RATE ? 60.0 : 1.0; /* canonical count/s -> count/min, as saved */
    for (int h = 0; h < 24; h++) {
        const ohk_statistics_values *v = (uint64_t)h < r->interval_count ? &r->intervals[h].values : NULL;
        out[h].count = v ? v->count : 0;
        out[h].avg = out[h].count ? v->average * scale : 0;
        out[h].min = out[h].count ? v->minimum * scale : 0;
        out[h].max = out[h].count ? v->maximum * scale : 0;
    }
    ohk_statistics_result_free(r);
    return 0;
}

static const store_ops_t OHK_OPS = {
    .system = "openhealthkit-c",
    .version = op_version,
    .open = op_open,
    .close = op_close,
    .describe = op_describe,
    .save = op_save,
    .delete_uuids = op_delete,
    .query = op_query,
    .anchor_now = op_anchor_now,
    .set_commit_listener = op_set_commit_listener,
    .poll_changed = op_poll_changed,
    .stats_daily_sum = op_stats_daily_sum,
    .stats_hourly = op_stats_hourly,
};

int main(int argc, char **argv) { return bench_main(argc, argv, &OHK_OPS); }
