/* Torture tests (torture.c): booted with torture=GLOB by `make torture`. */
#ifndef TORTURE_H
#define TORTURE_H

/* Runs every torture type matching glob; the number that failed. */
int torture_run(const char *glob);

#endif
