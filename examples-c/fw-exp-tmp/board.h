/* What startup.c offers the firmware: time and stack measurement. */
#pragma once
#include <stdint.h>

/* SysTick at the processor clock, extended to 64 bits by its interrupt.
 * QEMU's mps2-an386 clocks the core at 25 MHz; run with `-icount shift=0`
 * (one instruction = 1 ns of virtual time) each tick is 40 instructions. */
#define BOARD_CPU_HZ 25000000u
void ticks_start(void);
uint64_t ticks_now(void);

/* Whether DWT->CYCCNT counts (QEMU does not model it). */
int dwt_cycle_counter_works(void);

/* The current stack pointer. */
uintptr_t stack_sp(void);
/* Paint the free stack below the caller's frame. */
void stack_repaint(void);
/* Lowest stack address written since the last paint. */
uintptr_t stack_lowest_used(void);
/* Bytes reserved for the stack. */
uintptr_t stack_size(void);
