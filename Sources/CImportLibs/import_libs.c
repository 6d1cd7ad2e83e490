/* Forwarders for the few functions the importer calls in expat, libarchive
 * and libcrypto, resolved with dlopen/dlsym on first use. They carry the
 * real names and signatures (the headers check them), hidden so that they
 * never leave the library or program they are linked into. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>
/* Only the forwarded declarations are hidden, not libc's. */
#pragma GCC visibility push(hidden)
#include <expat.h>
#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>
#include "import_libs.h"

enum { EXPAT, ARCHIVE, CRYPTO, LIBRARY_COUNT };

static const struct {
    const char *names[3];  /* tried in order */
    const char *package;   /* Debian's */
} libraries[LIBRARY_COUNT] = {
    [EXPAT] = { { "libexpat.so.1", "libexpat.so", NULL }, "libexpat1" },
    [ARCHIVE] = { { "libarchive.so.13", "libarchive.so", NULL }, "libarchive13" },
    [CRYPTO] = { { "libcrypto.so.3", "libcrypto.so", NULL }, "libssl3" },
};

static void *handles[LIBRARY_COUNT];
static char load_message[256];

static void *open_library(int which)
{
    void *h = __atomic_load_n(&handles[which], __ATOMIC_ACQUIRE);
    if (h)
        return h;
    for (int i = 0; i < 3 && libraries[which].names[i] && !h; i++)
        h = dlopen(libraries[which].names[i], RTLD_NOW | RTLD_LOCAL);
    if (h)
        __atomic_store_n(&handles[which], h, __ATOMIC_RELEASE);  /* a racing second dlopen only bumps a count */
    return h;
}

int ohk_import_libs_load(const char **message)
{
    for (int which = 0; which < LIBRARY_COUNT; which++) {
        if (!open_library(which)) {
            snprintf(load_message, sizeof load_message,
                     "importing needs %s, which is not installed (Debian, Ubuntu: apt-get install %s)",
                     libraries[which].names[0], libraries[which].package);
            if (message)
                *message = load_message;
            return -1;
        }
    }
    return 0;
}

/* The function `name` of library `which`; a call without the library
 * installed is a bug (imports call ohk_import_libs_load first), so it stops
 * the process with the reason rather than jumping through NULL. */
static void *symbol(int which, const char *name)
{
    void *h = open_library(which);
    void *f = h ? dlsym(h, name) : NULL;
    if (!f) {
        fprintf(stderr, "openhealthkit: cannot find %s in %s\n", name, libraries[which].names[0]);
        abort();
    }
    return f;
}

#define FORWARD(lib, ret, name, params, args)                                    \
    ret name params                                                              \
    {                                                                            \
        static ret(*fn) params;                                                  \
        ret(*f) params = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);                 \
        if (!f) {                                                                \
            f = (ret(*) params)symbol(lib, #name);                               \
            __atomic_store_n(&fn, f, __ATOMIC_RELEASE);                          \
        }                                                                        \
        return f args;                                                           \
    }

#define FORWARD_VOID(lib, name, params, args)                                    \
    void name params                                                             \
    {                                                                            \
        static void(*fn) params;                                                 \
        void(*f) params = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);                \
        if (!f) {                                                                \
            f = (void(*) params)symbol(lib, #name);                              \
            __atomic_store_n(&fn, f, __ATOMIC_RELEASE);                          \
        }                                                                        \
        f args;                                                                  \
    }

/* expat */
FORWARD(EXPAT, XML_Parser, XML_ParserCreate, (const XML_Char *encoding), (encoding))
FORWARD_VOID(EXPAT, XML_ParserFree, (XML_Parser p), (p))
FORWARD(EXPAT, enum XML_Status, XML_Parse, (XML_Parser p, const char *s, int len, int isFinal), (p, s, len, isFinal))
FORWARD(EXPAT, enum XML_Status, XML_ParseBuffer, (XML_Parser p, int len, int isFinal), (p, len, isFinal))
FORWARD(EXPAT, void *, XML_GetBuffer, (XML_Parser p, int len), (p, len))
FORWARD(EXPAT, XML_Size, XML_GetCurrentLineNumber, (XML_Parser p), (p))
FORWARD(EXPAT, XML_Size, XML_GetCurrentColumnNumber, (XML_Parser p), (p))
FORWARD(EXPAT, XML_Index, XML_GetCurrentByteIndex, (XML_Parser p), (p))
FORWARD(EXPAT, enum XML_Error, XML_GetErrorCode, (XML_Parser p), (p))
FORWARD(EXPAT, const XML_LChar *, XML_ErrorString, (enum XML_Error code), (code))
FORWARD(EXPAT, enum XML_Status, XML_StopParser, (XML_Parser p, XML_Bool resumable), (p, resumable))
FORWARD_VOID(EXPAT, XML_SetElementHandler, (XML_Parser p, XML_StartElementHandler start, XML_EndElementHandler end),
             (p, start, end))
FORWARD_VOID(EXPAT, XML_SetEntityDeclHandler, (XML_Parser p, XML_EntityDeclHandler handler), (p, handler))
FORWARD_VOID(EXPAT, XML_SetUserData, (XML_Parser p, void *userData), (p, userData))
FORWARD_VOID(EXPAT, XML_SetCharacterDataHandler, (XML_Parser p, XML_CharacterDataHandler handler), (p, handler))

/* libarchive */
FORWARD(ARCHIVE, struct archive *, archive_read_new, (void), ())
FORWARD(ARCHIVE, int, archive_read_support_format_zip_streamable, (struct archive *a), (a))
FORWARD(ARCHIVE, int, archive_read_open_filename, (struct archive *a, const char *name, size_t block), (a, name, block))
FORWARD(ARCHIVE, int, archive_read_next_header, (struct archive *a, struct archive_entry **entry), (a, entry))
FORWARD(ARCHIVE, la_ssize_t, archive_read_data, (struct archive *a, void *buffer, size_t size), (a, buffer, size))
FORWARD(ARCHIVE, int, archive_read_data_skip, (struct archive *a), (a))
FORWARD(ARCHIVE, int, archive_read_free, (struct archive *a), (a))
FORWARD(ARCHIVE, const char *, archive_error_string, (struct archive *a), (a))
FORWARD(ARCHIVE, la_int64_t, archive_filter_bytes, (struct archive *a, int n), (a, n))
FORWARD(ARCHIVE, const char *, archive_entry_pathname, (struct archive_entry *e), (e))
FORWARD(ARCHIVE, const char *, archive_entry_pathname_utf8, (struct archive_entry *e), (e))

/* libcrypto */
FORWARD(CRYPTO, EVP_MD *, EVP_MD_fetch, (OSSL_LIB_CTX *ctx, const char *algorithm, const char *properties),
        (ctx, algorithm, properties))
FORWARD_VOID(CRYPTO, EVP_MD_free, (EVP_MD *md), (md))
FORWARD(CRYPTO, EVP_MD_CTX *, EVP_MD_CTX_new, (void), ())
FORWARD_VOID(CRYPTO, EVP_MD_CTX_free, (EVP_MD_CTX *ctx), (ctx))
FORWARD(CRYPTO, int, EVP_DigestInit_ex2, (EVP_MD_CTX *ctx, const EVP_MD *type, const OSSL_PARAM params[]),
        (ctx, type, params))
FORWARD(CRYPTO, int, EVP_MD_CTX_copy_ex, (EVP_MD_CTX *out, const EVP_MD_CTX *in), (out, in))
FORWARD(CRYPTO, int, EVP_DigestUpdate, (EVP_MD_CTX *ctx, const void *d, size_t cnt), (ctx, d, cnt))
FORWARD(CRYPTO, int, EVP_DigestFinal_ex, (EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s), (ctx, md, s))

#pragma GCC visibility pop
