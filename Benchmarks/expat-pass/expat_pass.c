/* The physical floor of an import: expat alone over the same bytes, with a
 * start-element handler that only counts (and, for a zip, libarchive
 * decompressing the entry as it goes). Prints MB of XML, seconds, MB/s.
 *   expat_pass export.xml
 *   expat_pass export.zip apple_health_export/export.xml */
#include <archive.h>
#include <archive_entry.h>
#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long long elements;

static void on_start(void *data, const XML_Char *name, const XML_Char **attributes)
{
    (void)data; (void)name; (void)attributes;
    elements++;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: expat_pass FILE.xml | FILE.zip ENTRY\n");
        return 2;
    }
    enum { CHUNK = 1 << 18 };
    XML_Parser p = XML_ParserCreate(NULL);
    XML_SetStartElementHandler(p, on_start);
    struct archive *a = NULL;
    FILE *f = NULL;
    if (argc > 2) {
        struct archive_entry *e;
        a = archive_read_new();
        archive_read_support_format_zip_streamable(a);
        if (archive_read_open_filename(a, argv[1], 1 << 16) != ARCHIVE_OK) return 1;
        while (archive_read_next_header(a, &e) == ARCHIVE_OK && strcmp(archive_entry_pathname(e), argv[2]) != 0)
            archive_read_data_skip(a);
    } else if (!(f = fopen(argv[1], "rb"))) {
        perror(argv[1]);
        return 1;
    }
    double start = now();
    unsigned long long bytes = 0;
    for (;;) {
        void *buffer = XML_GetBuffer(p, CHUNK);
        long n = a ? (long)archive_read_data(a, buffer, CHUNK) : (long)fread(buffer, 1, CHUNK, f);
        if (n < 0) return 1;
        bytes += (unsigned long long)n;
        if (XML_ParseBuffer(p, (int)n, n == 0) == XML_STATUS_ERROR) {
            fprintf(stderr, "line %lu: %s\n", XML_GetCurrentLineNumber(p), XML_ErrorString(XML_GetErrorCode(p)));
            return 1;
        }
        if (n == 0) break;
    }
    double seconds = now() - start;
    printf("expat alone: %.1f MB of XML, %llu elements, %.2f s, %.1f MB/s\n",
           bytes / 1e6, elements, seconds, bytes / 1e6 / seconds);
    XML_ParserFree(p);
    if (a) archive_read_free(a);
    if (f) fclose(f);
    return 0;
}
