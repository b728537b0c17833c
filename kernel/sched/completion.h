/* Completions, as in Linux: wait until some event has happened (once, or
 * a number of times). */
#ifndef COMPLETION_H
#define COMPLETION_H

#include <stdbool.h>
#include "sched/wait.h"

struct completion {
	unsigned done;          /* events not yet consumed; under wait.lock */
	struct wait_queue_head wait;
};

#define COMPLETION_ALL (~0u >> 1)

void init_completion(struct completion *c);
void reinit_completion(struct completion *c);
void complete(struct completion *c);     /* one waiter's worth */
void complete_all(struct completion *c); /* every waiter, now and later */
void wait_for_completion(struct completion *c);
/* True if completed within timeout_ns. */
bool wait_for_completion_timeout(struct completion *c, uint64_t timeout_ns);
bool completion_done(struct completion *c);

#endif
