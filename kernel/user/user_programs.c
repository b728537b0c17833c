/* Looking up the user programs in the image (see user_programs.h). */
#include "user/user_programs.h"
#include "string.h"

const struct user_program *user_program_find(const char *name)
{
	for (uint64_t i = 0; i < nr_user_programs; i++)
		if (!strcmp(user_programs[i].name, name))
			return &user_programs[i];
	return 0;
}
