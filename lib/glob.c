/*
 * Iterative wildcard matching with single-star backtracking: O(n*m) time,
 * constant stack, so a hostile pattern from the command line cannot blow
 * the kernel stack.
 */
#include <stdbool.h>
#include <stddef.h>

#include "glob.h"
#include "string.h"

/*
 * Match the first plen bytes of pat against all of str. On a mismatch,
 * retry from the most recent '*' with that star swallowing one more
 * character. Earlier stars never need revisiting: whatever they could
 * absorb, the latest star can absorb too.
 */
static bool match_n(const char *pat, size_t plen, const char *str)
{
	size_t p = 0, star_p = 0;
	const char *star_s = NULL;

	while (*str) {
		if (p < plen && pat[p] == '*') {
			star_p = ++p;
			star_s = str;
		} else if (p < plen && (pat[p] == '?' || pat[p] == *str)) {
			p++;
			str++;
		} else if (star_s) {
			p = star_p;
			str = ++star_s;
		} else {
			return false;
		}
	}
	/* The string is used up: only trailing stars may remain. */
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}

bool glob_match(const char *pattern, const char *str)
{
	return match_n(pattern, strlen(pattern), str);
}

bool glob_match_list(const char *patterns, const char *str)
{
	for (;;) {
		const char *comma = strchr(patterns, ',');
		size_t len = comma ? (size_t)(comma - patterns)
				   : strlen(patterns);

		if (match_n(patterns, len, str))
			return true;
		if (!comma)
			return false;
		patterns = comma + 1;
	}
}
