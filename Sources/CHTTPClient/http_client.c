/* libcurl behind ohk_http_request, resolved with dlopen/dlsym on first
 * use; the header checks the signatures. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include "http_client.h"

static struct {
    __typeof__(&curl_global_init) global_init;
    __typeof__(&curl_easy_init) easy_init;
    __typeof__(&curl_easy_setopt) easy_setopt;
    __typeof__(&curl_easy_perform) easy_perform;
    __typeof__(&curl_easy_getinfo) easy_getinfo;
    __typeof__(&curl_easy_cleanup) easy_cleanup;
    __typeof__(&curl_easy_strerror) easy_strerror;
    __typeof__(&curl_slist_append) slist_append;
    __typeof__(&curl_slist_free_all) slist_free_all;
} curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;

static void load(void)
{
    const char *names[] = { "libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so", NULL };
    void *h = NULL;
    for (int i = 0; names[i] && !h; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
#define RESOLVE(field, name) if (!(*(void **)&curl.field = dlsym(h, name))) return
    RESOLVE(global_init, "curl_global_init");
    RESOLVE(easy_init, "curl_easy_init");
    RESOLVE(easy_setopt, "curl_easy_setopt");
    RESOLVE(easy_perform, "curl_easy_perform");
    RESOLVE(easy_getinfo, "curl_easy_getinfo");
    RESOLVE(easy_cleanup, "curl_easy_cleanup");
    RESOLVE(easy_strerror, "curl_easy_strerror");
    RESOLVE(slist_append, "curl_slist_append");
    RESOLVE(slist_free_all, "curl_slist_free_all");
#undef RESOLVE
    if (curl.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK)
        loaded = 1;
}

typedef struct { unsigned char *data; size_t length, capacity; int failed; } buffer;

static size_t collect(char *data, size_t size, size_t count, void *user)
{
    buffer *b = user;
    size_t n = size * count;
    if (b->length + n > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 65536;
        while (capacity < b->length + n)
            capacity *= 2;
        unsigned char *grown = realloc(b->data, capacity);
        if (!grown) {
            b->failed = 1;
            return 0;
        }
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, data, n);
    b->length += n;
    return n;
}

int ohk_http_request(const char *method, const char *url, const char *authorization, const char *content_type,
                     const void *body, size_t body_length, long timeout_seconds, ohk_http_response *out,
                     char *message, size_t message_size)
{
    pthread_once(&once, load);
    if (!loaded) {
        snprintf(message, message_size, "a sync over HTTP needs libcurl.so.4, which is not installed "
                 "(Debian, Ubuntu: apt-get install libcurl4)");
        return -2;
    }
    CURL *h = curl.easy_init();
    if (!h) {
        snprintf(message, message_size, "libcurl could not start a request");
        return -1;
    }
    struct curl_slist *headers = NULL;
    char line[4096];
    if (authorization) {
        snprintf(line, sizeof line, "Authorization: %s", authorization);
        headers = curl.slist_append(headers, line);
    }
    if (content_type) {
        snprintf(line, sizeof line, "Content-Type: %s", content_type);
        headers = curl.slist_append(headers, line);
    }
    headers = curl.slist_append(headers, "Expect:");  /* no 100-continue round trip */
    buffer b = { 0 };
    char error[CURL_ERROR_SIZE] = "";
    curl.easy_setopt(h, CURLOPT_URL, url);
    curl.easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    curl.easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl.easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
    curl.easy_setopt(h, CURLOPT_WRITEDATA, &b);
    curl.easy_setopt(h, CURLOPT_ERRORBUFFER, error);
    curl.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(h, CURLOPT_TIMEOUT, timeout_seconds);
    curl.easy_setopt(h, CURLOPT_CONNECTTIMEOUT, timeout_seconds < 10 ? timeout_seconds : 10L);
    if (body || strcmp(method, "POST") == 0) {
        curl.easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
        curl.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
    }
    CURLcode code = curl.easy_perform(h);
    int result = 0;
    if (code != CURLE_OK || b.failed) {
        snprintf(message, message_size, "%s", b.failed ? "out of memory for the answer"
                 : error[0] ? error : curl.easy_strerror(code));
        free(b.data);
        result = -1;
    } else {
        out->status = 0;
        curl.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->status);
        char *type = NULL;
        curl.easy_getinfo(h, CURLINFO_CONTENT_TYPE, &type);
        out->content_type = type ? strdup(type) : NULL;
        out->body = b.data;
        out->length = b.length;
    }
    curl.slist_free_all(headers);
    curl.easy_cleanup(h);
    return result;
}

void ohk_http_response_free(ohk_http_response *response)
{
    if (!response)
        return;
    free(response->body);
    free(response->content_type);
    response->body = NULL;
    response->content_type = NULL;
}
