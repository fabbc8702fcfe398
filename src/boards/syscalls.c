/*
 * syscalls.c - the few C-library hooks newlib's formatted output and
 * math may call.  The runtime itself allocates nothing: _sbrk hands out
 * only a small fixed pool (newlib's own bookkeeping), never the arena.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "semihost.h"

#define LIBC_POOL 8192
static uint8_t libc_pool[LIBC_POOL] __attribute__((aligned(8)));
static size_t libc_used;

void *_sbrk(ptrdiff_t incr);
int _write(int fd, const char *buf, int len);
int _read(int fd, char *buf, int len);
int _close(int fd);
int _lseek(int fd, int off, int whence);
int _fstat(int fd, struct stat *st);
int _isatty(int fd);
void _exit(int status);
int _kill(int pid, int sig);
int _getpid(void);
int _open(const char *path, int flags, int mode);
int _stat(const char *path, struct stat *st);

void *_sbrk(ptrdiff_t incr) {
  if (incr < 0 || (size_t)incr > LIBC_POOL - libc_used) {
    errno = ENOMEM;
    return (void *)-1;
  }
  void *p = libc_pool + libc_used;
  libc_used += (size_t)incr;
  return p;
}

int _write(int fd, const char *buf, int len) {
  (void)fd;
  /* :tt is the host's console; fd 1 and 2 go there */
  static int console = -1;
  if (console < 0) console = sh_open(":tt", SH_MODE_WRITE);
  if (console < 0) return len;
  return len - (int)sh_write(console, buf, (size_t)len);
}

int _read(int fd, char *buf, int len) {
  (void)fd, (void)buf, (void)len;
  return 0;
}
int _close(int fd) {
  (void)fd;
  return -1;
}
int _lseek(int fd, int off, int whence) {
  (void)fd, (void)off, (void)whence;
  return 0;
}
int _fstat(int fd, struct stat *st) {
  (void)fd;
  st->st_mode = S_IFCHR;
  return 0;
}
int _isatty(int fd) {
  (void)fd;
  return 1;
}
void _exit(int status) {
  sh_exit(status);
}
int _kill(int pid, int sig) {
  (void)pid, (void)sig;
  errno = EINVAL;
  return -1;
}
int _getpid(void) {
  return 1;
}
/* Files are opened through semihost.h, never through stdio. */
int _open(const char *path, int flags, int mode) {
  (void)path, (void)flags, (void)mode;
  errno = ENOSYS;
  return -1;
}
int _stat(const char *path, struct stat *st) {
  (void)path, (void)st;
  errno = ENOSYS;
  return -1;
}
