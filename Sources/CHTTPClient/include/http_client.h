#ifndef OHK_HTTP_CLIENT_H
#define OHK_HTTP_CLIENT_H
/* One HTTP request through libcurl, which is opened with dlopen on the
 * first request: a program that never syncs over HTTP needs no libcurl. */
#include <stddef.h>

typedef struct ohk_http_response {
    long status;            /* the HTTP status */
    unsigned char *body;    /* malloc'ed; free with ohk_http_response_free */
    size_t length;
    char *content_type;     /* malloc'ed, or NULL */
} ohk_http_response;

/* Sends `method` to `url` with `body` (may be NULL with length 0), the
 * Authorization header `authorization` (or none) and `content_type`,
 * waiting at most `timeout_seconds`. Returns 0 with *out filled for any
 * HTTP status; -1 when the request did not complete (the message says
 * why: unreachable, refused, timed out); -2 when libcurl is not installed. */
int ohk_http_request(const char *method, const char *url, const char *authorization, const char *content_type,
                     const void *body, size_t body_length, long timeout_seconds, ohk_http_response *out,
                     char *message, size_t message_size);

void ohk_http_response_free(ohk_http_response *response);

#endif
