/*
 * The 16550 UART at COM1, polled: 115200 baud, 8N1, no interrupts. Output
 * only; QEMU's -serial stdio turns it into the terminal and the test log.
 */
#include "asm/serial.h"
#include "asm/processor.h"

#define COM1 0x3f8
enum {
	UART_DATA = 0,    /* divisor low byte when DLAB is set */
	UART_IER = 1,     /* divisor high byte when DLAB is set */
	UART_FCR = 2,
	UART_LCR = 3,
	UART_MCR = 4,
	UART_LSR = 5,
};
#define LCR_DLAB 0x80
#define LCR_8N1 0x03
#define LSR_THRE 0x20 /* transmit holding register empty */

void serial_init(void)
{
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DATA, 1); /* 115200 / 1 */
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, 0xc7); /* enable and clear FIFOs */
	outb(COM1 + UART_MCR, 0x03); /* DTR, RTS */
}

static void serial_tx(char c)
{
	while (!(inb(COM1 + UART_LSR) & LSR_THRE))
		cpu_relax();
	outb(COM1 + UART_DATA, (uint8_t)c);
}

void serial_putc(char c)
{
	if (c == '\n')
		serial_tx('\r');
	serial_tx(c);
}
