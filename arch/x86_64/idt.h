/* The interrupt descriptor table, shared by all CPUs. */
#ifndef ARCH_IDT_H
#define ARCH_IDT_H

/* Build the table once (boot CPU), then load it on every CPU. */
void idt_init(void);
void idt_load(void);

#endif
