/*
 * startup.c - reset and fault handling of the firmware: the vector table,
 * .data copied from its load address, .bss zeroed, the FPU enabled where
 * the core has one, then main(); a fault ends the emulation with status 3
 * and a line saying which.
 */
#include <stdint.h>
#include <string.h>

#include "semihost.h"

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[], __stack_top[];

int main(void);
void SysTick_Handler(void);
void Reset_Handler(void);

#define FIRMWARE_FAULT_STATUS 3

static void fault(const char *what) {
  sh_puts("etkit firmware: ");
  sh_puts(what);
  sh_puts("\n");
  sh_exit(FIRMWARE_FAULT_STATUS);
}

static void NMI_Handler(void) {
  fault("NMI");
}
static void HardFault_Handler(void) {
  fault("hard fault");
}
static void MemManage_Handler(void) {
  fault("memory management fault");
}
static void BusFault_Handler(void) {
  fault("bus fault");
}
static void UsageFault_Handler(void) {
  fault("usage fault");
}
static void Default_Handler(void) {
  fault("unexpected interrupt");
}

typedef void (*vector_t)(void);

__attribute__((section(".vectors"), used)) static const vector_t vectors[16] = {
    (vector_t)(uintptr_t)__stack_top,
    Reset_Handler,
    NMI_Handler,
    HardFault_Handler,
    MemManage_Handler,
    BusFault_Handler,
    UsageFault_Handler,
    Default_Handler,
    Default_Handler,
    Default_Handler,
    Default_Handler,
    Default_Handler, /* SVC */
    Default_Handler,
    Default_Handler,
    Default_Handler, /* PendSV */
    SysTick_Handler};

void Reset_Handler(void) {
  size_t data = (size_t)((char *)__data_end - (char *)__data_start);
  if (data && (uintptr_t)__data_load != (uintptr_t)__data_start)
    memcpy(__data_start, __data_load, data);
  memset(__bss_start, 0, (size_t)((char *)__bss_end - (char *)__bss_start));
  /* vector table where the linker put it */
  *(volatile uint32_t *)0xE000ED08u = (uint32_t)(uintptr_t)vectors;
#if defined(__ARM_FP)
  /* CP10 and CP11 full access */
  *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  /* usage, bus and memory faults reported as themselves */
  *(volatile uint32_t *)0xE000ED24u |= 7u << 16;
  sh_exit(main());
}
