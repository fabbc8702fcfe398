/*
 * semihost.h - Arm semihosting calls of the firmware (src/boards): file
 * I/O on the host through the debugger or QEMU
 * (-semihosting-config enable=on,target=native) and the exit status.
 */
#ifndef ETKIT_BOARDS_SEMIHOST_H
#define ETKIT_BOARDS_SEMIHOST_H

#include <stddef.h>
#include <stdint.h>

/* Opens `path`: mode 0 "rb", 4 "wb".  Returns a handle >= 0 or -1. */
int sh_open(const char *path, int mode);
int sh_close(int fd);
/* Bytes not read / not written (0 = all), as the semihosting ABI says. */
size_t sh_read(int fd, void *buf, size_t len);
size_t sh_write(int fd, const void *buf, size_t len);
/* File length or -1. */
long sh_flen(int fd);
/* Writes a NUL-terminated text to the host's stderr-like console. */
void sh_puts(const char *text);
/* The command line QEMU passes (-kernel ELF plus -append), or -1. */
int sh_cmdline(char *buf, size_t size);
/* Ends the emulation with `status` (SYS_EXIT_EXTENDED). */
void sh_exit(int status) __attribute__((noreturn));

#define SH_MODE_READ 1  /* "rb" */
#define SH_MODE_WRITE 5 /* "wb" */

#endif
