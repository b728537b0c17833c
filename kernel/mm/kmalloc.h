/* Small-object allocation: kmalloc/kfree, as in Linux. */
#ifndef KMALLOC_H
#define KMALLOC_H

#include <stddef.h>

/* 16-byte aligned; NULL when memory is exhausted or size is 0. */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
/* kfree(NULL) does nothing; a double free or a pointer kmalloc did not
 * return is reported (with a call trace) and ignored. */
void kfree(void *p);

unsigned long kmalloc_bad_frees(void);

#endif
