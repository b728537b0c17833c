/* The 16550 UART at COM1: the kernel's console. */
#ifndef _ASM_X86_SERIAL_H
#define _ASM_X86_SERIAL_H

void serial_init(void);
void serial_putc(char c);

#endif
