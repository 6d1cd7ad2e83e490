/* What Swift cannot call directly: the futex system call (syscall() is
 * variadic) and atomics on a word in shared memory (a file mapping that
 * several processes see). Header-only: static inline, nothing to link. */
#ifndef OHK_CSYSTEM_SHIM_H
#define OHK_CSYSTEM_SHIM_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleeps while *word == expected, at most `timeout` (NULL: no bound).
 * Shared (not FUTEX_PRIVATE): the word lives in a file mapping. Returns 0
 * when woken or when *word already differed, else errno (ETIMEDOUT, EINTR). */
static inline int ohk_futex_wait(uint32_t *word, uint32_t expected, const struct timespec *timeout) {
    long rc = syscall(SYS_futex, word, FUTEX_WAIT, expected, timeout, NULL, 0);
    if (rc == 0) return 0;
    return errno == EAGAIN ? 0 : errno;
}

/* Wakes every thread of every process sleeping on `word`. */
static inline void ohk_futex_wake_all(uint32_t *word) {
    syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static inline uint32_t ohk_atomic_load_u32(const uint32_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline uint32_t ohk_atomic_add_u32(uint32_t *word, uint32_t v) {
    return __atomic_add_fetch(word, v, __ATOMIC_ACQ_REL);
}

#endif
