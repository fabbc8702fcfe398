/*
 * semihost.c - the semihosting calls (operation in r0, argument block in
 * r1, `bkpt 0xab` on M-profile cores; the result comes back in r0).
 */
#include "semihost.h"

#include <string.h>

enum {
  SYS_OPEN = 0x01,
  SYS_CLOSE = 0x02,
  SYS_WRITE0 = 0x04,
  SYS_WRITE = 0x05,
  SYS_READ = 0x06,
  SYS_FLEN = 0x0c,
  SYS_GET_CMDLINE = 0x15,
  SYS_EXIT_EXTENDED = 0x20
};

static uintptr_t sh_call(uintptr_t op, const void *arg) {
  register uintptr_t r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

int sh_open(const char *path, int mode) {
  uintptr_t a[3] = {(uintptr_t)path, (uintptr_t)mode, strlen(path)};
  return (int)sh_call(SYS_OPEN, a);
}

int sh_close(int fd) {
  uintptr_t a[1] = {(uintptr_t)fd};
  return (int)sh_call(SYS_CLOSE, a);
}

size_t sh_read(int fd, void *buf, size_t len) {
  uintptr_t a[3] = {(uintptr_t)fd, (uintptr_t)buf, len};
  return sh_call(SYS_READ, a);
}

size_t sh_write(int fd, const void *buf, size_t len) {
  uintptr_t a[3] = {(uintptr_t)fd, (uintptr_t)buf, len};
  return sh_call(SYS_WRITE, a);
}

long sh_flen(int fd) {
  uintptr_t a[1] = {(uintptr_t)fd};
  return (long)sh_call(SYS_FLEN, a);
}

void sh_puts(const char *text) {
  sh_call(SYS_WRITE0, text);
}

int sh_cmdline(char *buf, size_t size) {
  uintptr_t a[2] = {(uintptr_t)buf, size};
  return sh_call(SYS_GET_CMDLINE, a) == 0 ? 0 : -1;
}

void sh_exit(int status) {
  /* ADP_Stopped_ApplicationExit with the status */
  uintptr_t a[2] = {0x20026u, (uintptr_t)status};
  sh_call(SYS_EXIT_EXTENDED, a);
  for (;;) {
  }
}
