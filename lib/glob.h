/*
 * Shell-style wildcard matching, used to select kernel tests by name
 * (ktest=boot.*,pmm.*). Supports '*', '?' and literal characters only.
 */
#ifndef GLOB_H
#define GLOB_H

#include <stdbool.h>

/* '*' matches any run (also empty), '?' any one character. */
bool glob_match(const char *pattern, const char *str);

/* True if any element of the comma-separated pattern list matches. */
bool glob_match_list(const char *patterns, const char *str);

#endif
