/*
 * Completions reused: reinit_completion() forgets what was completed, as
 * Linux's does, so one completion can signal a second round of events.
 */
#include "completion.h"
#include "ktest.h"

KTEST(completion, reinit_forgets_complete_all)
{
	struct completion c;

	init_completion(&c);
	complete_all(&c);
	KEXPECT_TRUE(completion_done(&c));
	wait_for_completion(&c);         /* does not consume complete_all */
	KEXPECT_TRUE(completion_done(&c));

	reinit_completion(&c);
	KEXPECT_FALSE(completion_done(&c));
	/* Nobody completes it: the wait ends by its timeout, whatever the
	 * host's speed. */
	KEXPECT_FALSE(wait_for_completion_timeout(&c, 1000000));

	complete(&c);
	KEXPECT_TRUE(completion_done(&c));
	KEXPECT_TRUE(wait_for_completion_timeout(&c, 1000000));
	KEXPECT_FALSE(completion_done(&c)); /* the one event was consumed */
}
