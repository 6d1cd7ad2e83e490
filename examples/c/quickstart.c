/*
 * quickstart.c - save, anchored query, persist the anchor, resume.
 *
 *   quickstart STORE_DIR [ANCHOR_FILE]
 *
 * Each run saves two step-count samples, then asks for everything that
 * changed since the anchor the previous run left in ANCHOR_FILE (default
 * STORE_DIR.anchor): the first run sees every sample, later runs only the
 * two new ones. Then it writes the new anchor back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "openhealthkit.h"

#define STEPS "HKQuantityTypeIdentifierStepCount"

static int check(int32_t status, const char *what)
{
    if (status != OHK_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, ohk_status_name(status), ohk_last_error_message());
        exit(1);
    }
    return 0;
}

/* Reads the anchor text saved by the previous run. No file is "no
 * anchor" (a zeroed ohk_anchor); an empty file is a truncated anchor,
 * which the library refuses rather than reading it as the start. */
static void load_anchor(const char *path, ohk_anchor *anchor)
{
    memset(anchor, 0, sizeof *anchor);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char text[OHK_ANCHOR_TEXT_SIZE] = "";
    if (!fgets(text, sizeof text, f))
        text[0] = '\0';
    fclose(f);
    text[strcspn(text, "\n")] = '\0';
    check(ohk_anchor_from_text(anchor, text), "reading the saved anchor");
}

static void save_anchor(const char *path, const ohk_anchor *anchor)
{
    char text[OHK_ANCHOR_TEXT_SIZE];
    check(ohk_anchor_to_text(text, sizeof text, anchor), "anchor to text");
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s STORE_DIR [ANCHOR_FILE]\n", argv[0]);
        return 2;
    }
    char anchor_path[4096];
    snprintf(anchor_path, sizeof anchor_path, "%s", argc > 2 ? argv[2] : "");
    if (argc <= 2)
        snprintf(anchor_path, sizeof anchor_path, "%s.anchor", argv[1]);

    ohk_store *store;
    check(ohk_store_open(&store, argv[1], NULL), "opening the store");

    /* Save two samples of the last two minutes, in one transaction. */
    double now = (double)time(NULL);
    ohk_sample_input in[2];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 2; i++) {
        in[i].type = STEPS;
        in[i].start = now - 120 + 60 * i;
        in[i].end = in[i].start + 60;
        in[i].value = 40 + i;
        in[i].source.bundle_identifier = "org.openhealthkit.example.c";
        in[i].source.name = "C quickstart";
    }
    check(ohk_store_save(NULL, store, in, 2), "saving");

    /* Everything that changed since the last run. */
    ohk_anchor anchor;
    load_anchor(anchor_path, &anchor);
    ohk_descriptor what = { STEPS, NULL };
    ohk_batch *batch;
    check(ohk_store_fetch(&batch, store, &what, 1, &anchor, 0), "querying");
    const ohk_sample_record *samples;
    const ohk_deleted_record *deleted;
    uint64_t n_samples, n_deleted;
    check(ohk_batch_samples(&samples, &n_samples, batch), "samples");
    check(ohk_batch_deleted(&deleted, &n_deleted, batch), "deleted");
    printf("%llu samples added and %llu deleted since the last run\n",
           (unsigned long long)n_samples, (unsigned long long)n_deleted);
    for (uint64_t i = 0; i < n_samples && i < 5; i++) {
        ohk_source src;
        check(ohk_batch_source(&src, batch, samples[i].source_index), "source");
        printf("  %.0f steps at %.0f from %s\n", samples[i].value, samples[i].start, src.name);
    }

    /* Persist the new anchor for the next run. */
    ohk_anchor next;
    check(ohk_batch_anchor(&next, batch), "new anchor");
    save_anchor(anchor_path, &next);
    ohk_batch_free(batch);
    ohk_store_close(store);
    return 0;
}
