/* Startup for QEMU mps2-an386 (Cortex-M4F): vector table, reset handler,
 * fault handlers, the SysTick counter, and stack painting. */
#include <stdint.h>

#include "board.h"
#include "semihost.h"

extern uint32_t _data_load[], _data_start[], _data_end[], _bss_start[], _bss_end[];
extern uint32_t _stack_bottom[], _stack_top[];
extern int main(void);

#define STACK_PAINT 0xC5C5C5C5u

void reset_handler(void);
static void fault_handler(void);
static void systick_handler(void);

/* Cortex-M vector table: initial stack pointer, then the exception handlers. */
__attribute__((section(".vectors"), used)) static const void *const vectors[16] = {
    _stack_top,      reset_handler,   fault_handler, /* NMI */
    fault_handler,   /* HardFault */
    fault_handler,   /* MemManage */
    fault_handler,   /* BusFault */
    fault_handler,   /* UsageFault */
    0,               0, 0, 0,
    fault_handler,   /* SVCall */
    fault_handler,   /* DebugMonitor */
    0,               fault_handler, /* PendSV */
    systick_handler,
};

#define REG(a) (*(volatile uint32_t *)(a))
#define SCB_CPACR REG(0xE000ED88u)
#define SCB_CFSR REG(0xE000ED28u)
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define DEMCR REG(0xE000EDFCu)
#define DWT_CTRL REG(0xE0001000u)
#define DWT_CYCCNT REG(0xE0001004u)

__attribute__((noreturn)) void reset_handler(void) {
    /* Paint the whole stack below the current frame (nothing is used yet). */
    uint32_t *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (uint32_t *p = _stack_bottom; p < sp - 8; p++) *p = STACK_PAINT;
    for (uint32_t *s = _data_load, *d = _data_start; d < _data_end;) *d++ = *s++;
    for (uint32_t *d = _bss_start; d < _bss_end;) *d++ = 0;
    /* FPU on (CP10, CP11 full access): the hard-float ABI uses it. */
    SCB_CPACR |= 0xFu << 20;
    __asm__ volatile("dsb\n isb" ::: "memory");
    sh_exit(main());
}

static void fault_handler(void) {
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    sh_puts("FAULT: exception ");
    sh_putu(ipsr & 0x1ff);
    sh_puts(" CFSR=");
    sh_puthex(SCB_CFSR);
    sh_puts("\n");
    sh_exit(3);
}

/* ------------------------------------------------------------ SysTick */

static volatile uint32_t systick_wraps;

static void systick_handler(void) { systick_wraps++; }

void ticks_start(void) {
    SYST_CSR = 0;
    SYST_RVR = 0x00FFFFFFu;
    SYST_CVR = 0;
    systick_wraps = 0;
    /* Processor clock, interrupt on wrap, enabled. */
    SYST_CSR = 7;
    /* The counter loads RVR on its first tick: start from there. */
    while (SYST_CVR == 0) {
    }
}

uint64_t ticks_now(void) {
    uint32_t w, v;
    do {
        w = systick_wraps;
        v = SYST_CVR;
    } while (w != systick_wraps);
    return (uint64_t)w * 0x01000000u + (0x00FFFFFFu - v);
}

int dwt_cycle_counter_works(void) {
    DEMCR |= 1u << 24; /* TRCENA */
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1;
    uint32_t a = DWT_CYCCNT;
    for (volatile int i = 0; i < 100; i++) {
    }
    return DWT_CYCCNT != a;
}

/* ------------------------------------------------------------ stack */

uintptr_t stack_sp(void) {
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

void stack_repaint(void) {
    /* Below this function's frame, with a margin for its own locals. */
    uint32_t *end = (uint32_t *)(stack_sp() - 64);
    for (uint32_t *p = _stack_bottom; p < end; p++) *p = STACK_PAINT;
}

uintptr_t stack_lowest_used(void) {
    uint32_t *p = _stack_bottom;
    while (p < _stack_top && *p == STACK_PAINT) p++;
    return (uintptr_t)p;
}

uintptr_t stack_size(void) { return (uintptr_t)_stack_top - (uintptr_t)_stack_bottom; }
