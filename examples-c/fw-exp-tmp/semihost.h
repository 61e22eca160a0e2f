/* ARM semihosting (QEMU -semihosting-config enable=on,target=native):
 * console output and exit with a status. */
#pragma once
#include <stdint.h>

/* Print a NUL-terminated string on the host's console. */
void sh_puts(const char *s);
/* Print an unsigned decimal number. */
void sh_putu(uint64_t v);
/* Print a 32-bit value as 0x%08x. */
void sh_puthex(uint32_t v);
/* Print `n` bytes of `s` (not NUL-terminated). */
void sh_putn(const char *s, uint32_t n);
/* End the emulation: QEMU exits with `status`. */
__attribute__((noreturn)) void sh_exit(int status);
