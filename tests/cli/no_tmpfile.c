/* tests/cli/no_tmpfile.c - an LD_PRELOAD shim for tests: open() with O_TMPFILE fails with
 * EOPNOTSUPP, as on a filesystem without unnamed files, so gpustream writes its outputs under a
 * named temp beside the target (the path test_signals.sh checks). Everything else is libc's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

#define SHIM(name, ...)                                                                                           \
    if ((flags & O_TMPFILE) == O_TMPFILE) {                                                                       \
        errno = EOPNOTSUPP;                                                                                       \
        return -1;                                                                                                \
    }                                                                                                             \
    static int (*real)();                                                                                         \
    if (!real) real = (int (*)())dlsym(RTLD_NEXT, name);                                                          \
    mode_t mode = 0;                                                                                              \
    if (flags & (O_CREAT | O_TMPFILE)) {                                                                          \
        va_list ap;                                                                                               \
        va_start(ap, flags);                                                                                      \
        mode = va_arg(ap, mode_t);                                                                                \
        va_end(ap);                                                                                               \
    }                                                                                                             \
    return real(__VA_ARGS__, mode);

int open(const char *path, int flags, ...) { SHIM("open", path, flags) }
int open64(const char *path, int flags, ...) { SHIM("open64", path, flags) }
int openat(int dir, const char *path, int flags, ...) { SHIM("openat", dir, path, flags) }
int openat64(int dir, const char *path, int flags, ...) { SHIM("openat64", dir, path, flags) }
