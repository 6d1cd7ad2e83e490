/* What Swift cannot call directly: the futex system call (syscall() is
 * variadic), atomics on a word in shared memory (a file mapping that
 * several processes see), open-file-description locks (fcntl() is
 * variadic too), getrandom (not in Swift's Glibc module), a prefetch
 * and a spinning thread's pause (compiler builtins), and glibc's malloc_trim and
 * malloc_usable_size (in <malloc.h>, which the Glibc module leaves out).
 * Header-only: static inline, nothing to link. */
#ifndef OHK_CSYSTEM_SHIM_H
#define OHK_CSYSTEM_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A spinning thread's pause (x86's PAUSE: it yields to a sibling
 * hyperthread and eases the loop's exit). */
static inline void ohk_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Gives freed heap memory back to the system (glibc's malloc_trim; a
 * C library without it keeps it). */
static inline void ohk_malloc_trim(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* The bytes free inside malloc's heaps, which a trim could give back
 * (glibc's mallinfo2; SIZE_MAX where it is unknown, so a trim runs). */
static inline size_t ohk_malloc_free_bytes(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    return mallinfo2().fordblks;
#else
    return SIZE_MAX;
#endif
}

/* The bytes malloc gave a block (at least what was asked). */
static inline size_t ohk_malloc_size(void *p) {
#ifdef __GLIBC__
    return malloc_usable_size(p);
#else
    (void)p;
    return 0;
#endif
}

/* Sleeps while *word == expected, until a wake names one of `bits`.
 * Shared (not FUTEX_PRIVATE): the word lives in a file mapping. Returns 0
 * when woken or when *word already differed, else errno (EINTR). */
static inline int ohk_futex_wait_bits(uint32_t *word, uint32_t expected, uint32_t bits) {
    long rc = syscall(SYS_futex, word, FUTEX_WAIT_BITSET, expected, NULL, NULL, bits);
    if (rc == 0) return 0;
    return errno == EAGAIN ? 0 : errno;
}

/* Wakes every thread of every process sleeping on `word` with a bit of
 * `bits` (a plain FUTEX_WAIT sleeper has them all). */
static inline void ohk_futex_wake_bits(uint32_t *word, uint32_t bits) {
    syscall(SYS_futex, word, FUTEX_WAKE_BITSET, INT_MAX, NULL, NULL, bits);
}

#ifndef F_OFD_SETLK
#define F_OFD_SETLK 37
#endif

/* Takes a write lock on byte `offset` of `fd`'s file without waiting: an
 * open-file-description lock, held until the descriptor is closed (or the
 * process dies), and exclusive between descriptors of any processes,
 * including two of one process. Returns 0, or errno (EAGAIN: held). */
static inline int ohk_try_lock_byte(int fd, long offset) {
    struct flock l = {0};
    l.l_type = F_WRLCK;
    l.l_whence = SEEK_SET;
    l.l_start = offset;
    l.l_len = 1;
    return fcntl(fd, F_OFD_SETLK, &l) == 0 ? 0 : errno;
}

/* fcntl(F_GETLK): whether another process holds a record lock that
 * conflicts with `*l`; on return l->l_type is F_UNLCK or the holder's
 * (with l->l_pid). Returns 0 or errno. */
static inline int ohk_get_lock(int fd, struct flock *l) {
    return fcntl(fd, F_GETLK, l) == 0 ? 0 : errno;
}

static inline uint32_t ohk_atomic_load_u32(const uint32_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline uint32_t ohk_atomic_add_u32(uint32_t *word, uint32_t v) {
    return __atomic_add_fetch(word, v, __ATOMIC_ACQ_REL);
}

/* getrandom(2): up to `length` random bytes; returns how many, or -1 with errno. */
static inline long ohk_getrandom(void *buffer, size_t length) {
    return (long)getrandom(buffer, length, 0);
}

/* Asks for the cache line at `p` ahead of its read (a hint: no fault,
 * no effect on a bad address). */
static inline void ohk_prefetch(const void *p) {
    __builtin_prefetch(p, 0, 3);
}

/* Asks for the cache line `distance` bytes below `p` when it is in the
 * same 4 KB page (so mapped whenever `p` is). An LMDB leaf page holds its
 * nodes from the page's end downwards in the order they were added, so in
 * a tree written in key order the records a forward walk reads next lie
 * just below the one it is on; the processor's own prefetcher was
 * measured to leave them to a miss each. */
static inline void ohk_prefetch_below(const void *p, uintptr_t distance) {
    uintptr_t a = (uintptr_t)p, b = a - distance;
    if ((a ^ b) < 4096 && b < a) __builtin_prefetch((const void *)b, 0, 3);
}

/* The leaf page `k` after `leaf` (k >= 1) among its parent's children in
 * an LMDB 0.9 tree, or NULL: for a walk to ask for the next leaf ahead of
 * reaching it (see LeafPage.swift), and for a count of the records ahead
 * to read the leaves' headers alone (PartsAhead.swift). A walk's cursor
 * holds its path from the root (mdb.c's struct MDB_cursor, mirrored here
 * as LMDB 0.9 lays it out on 64 bits): the parent branch page's later
 * children are the next leaves. NULL past the parent's last child (the
 * leaf after it has another parent). Every field read is checked against
 * what the caller knows first (the cursor's transaction and tree, its
 * leaf at the top of the path), and every page read lies in the map's
 * first `last_page` + 1 pages, whose header must name it: another layout
 * gives NULL, never a read outside the map. The leaf itself is not read. */
struct ohk_lmdb09_cursor {
    void *next, *backup, *xcursor;
    const void *txn;
    unsigned int dbi;
    void *db, *dbx;
    unsigned char *dbflag;
    unsigned short snum, top;
    unsigned int flags;
    const unsigned char *pg[32];
    unsigned short ki[32];
};

static inline const void *ohk_lmdb09_sibling_leaf(const void *cursor, const void *txn, unsigned int dbi,
                                                  const void *leaf, uintptr_t page_size, uint64_t last_page,
                                                  unsigned int k) {
    const struct ohk_lmdb09_cursor *c = (const struct ohk_lmdb09_cursor *)cursor;
    if (c->txn != txn || c->dbi != dbi || c->snum < 2 || c->snum > 32 || c->top != c->snum - 1
        || c->pg[c->top] != (const unsigned char *)leaf)
        return NULL;
    uint64_t leaf_no;
    memcpy(&leaf_no, leaf, 8);
    uintptr_t base = (uintptr_t)leaf - (uintptr_t)(leaf_no * page_size);
    uintptr_t parent = (uintptr_t)c->pg[c->top - 1];
    if (leaf_no > last_page || parent < base || (parent - base) % page_size != 0 || (parent - base) / page_size > last_page)
        return NULL;
    const unsigned char *p = (const unsigned char *)parent;
    uint64_t parent_no;
    uint16_t flags, lower, offset, lo, hi, top;
    memcpy(&parent_no, p, 8);
    memcpy(&flags, p + 10, 2);
    memcpy(&lower, p + 12, 2);
    if (parent_no != (parent - base) / page_size || (flags & 0x01) == 0 || lower < 16 || lower > page_size)
        return NULL;
    unsigned int next = (unsigned int)c->ki[c->top - 1] + k;
    if (k == 0 || next >= (unsigned int)(lower - 16) / 2)
        return NULL;
    memcpy(&offset, p + 16 + 2 * next, 2);
    if (offset < lower || offset + 8u > page_size)
        return NULL;
    memcpy(&lo, p + offset, 2);
    memcpy(&hi, p + offset + 2, 2);
    memcpy(&top, p + offset + 4, 2);
    uint64_t child = (uint64_t)lo | (uint64_t)hi << 16 | (uint64_t)top << 32;
    return child <= last_page ? (const void *)(base + (uintptr_t)(child * page_size)) : NULL;
}

/* `x` rounded half away from zero, as an integer: adding the double just
 * below one half and truncating rounds every value that way. Unlike
 * Swift's `Int64(_:)` it has no range test to trap on; a value out of
 * range (only a corrupt record holds one) gives INT64_MIN, which NumPy
 * reads as NaT. */
static inline int64_t ohk_round_half_away(double x) {
    double t = x + (x < 0 ? -0.49999999999999994 : 0.49999999999999994);
    return t > -9223372036854775808.0 && t < 9223372036854775808.0 ? (int64_t)t : INT64_MIN;
}

/* glibc 2.34's, declared here: its header shows it only under _GNU_SOURCE,
 * which must not be defined in this module (Swift's Glibc module is built
 * without it, and the two would disagree on fd_set). */
extern int pthread_clockjoin_np(pthread_t thread, void **result, clockid_t clock, const struct timespec *deadline);

/* Waits up to `ms` milliseconds (on the monotonic clock) for `thread` to
 * end, and joins it. Returns 0 when joined, ETIMEDOUT when it still runs. */
static inline int ohk_join_within_ms(pthread_t thread, long ms) {
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_nsec += ms * 1000000L;
    deadline.tv_sec += deadline.tv_nsec / 1000000000L;
    deadline.tv_nsec %= 1000000000L;
    return pthread_clockjoin_np(thread, NULL, CLOCK_MONOTONIC, &deadline);
}

#endif
