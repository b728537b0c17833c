/*
 * The capture of a spawned program's output (see process.h). The kernel
 * caller that asks for it is not the only one that writes or reads it:
 * every process of the tree it was given to writes into it, and an orphan
 * (its parent gone, the caller done waiting) may still be writing when the
 * caller has read what it wanted. So the capture is reference-counted:
 * its creator holds one reference, each process that writes into it
 * another from spawn to exit, and the last put frees it.
 */
#include "user/process.h"
#include "mm/kmalloc.h"

struct process_output *process_output_alloc(void)
{
	struct process_output *out = kmalloc(sizeof(*out));

	if (!out)
		return 0;
	spin_lock_init(&out->lock);
	refcount_set(&out->refcount, 1);
	out->len = 0;
	out->buf[0] = 0;
	return out;
}

void process_output_get(struct process_output *out)
{
	refcount_inc(&out->refcount);
}

/* The put is a release, and the last one also an acquire
 * (refcount_dec_and_test()): every write into buf comes before the free. */
void process_output_put(struct process_output *out)
{
	if (out && refcount_dec_and_test(&out->refcount))
		kfree(out);
}

void process_output_write(struct process_output *out, const char *s,
			  size_t n)
{
	spin_lock(&out->lock);
	if (n > PROCESS_OUTPUT_MAX - 1 - out->len)
		n = PROCESS_OUTPUT_MAX - 1 - out->len;
	for (size_t i = 0; i < n; i++)
		out->buf[out->len + i] = s[i] == '\n' || (s[i] >= ' ' && s[i] < 127)
						 ? s[i] : '.';
	out->len += n;
	out->buf[out->len] = 0;
	spin_unlock(&out->lock);
}
