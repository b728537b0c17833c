/*
 * Lab 5's drivers (tests/labs/lab5_drivers.c, docs/labs/lab5.md): seven small
 * kernel users of locks and per-CPU data, as a driver would be. Each
 * runs its workload from the calling test task and returns the number of
 * its results that came out wrong (0: all right); the lock validator
 * judges the rest.
 */
#ifndef LAB5_DRIVERS_H
#define LAB5_DRIVERS_H

long lab5_devtable_run(void);   /* devices in a table, each with a lock */
long lab5_pktstats_run(void);   /* per-CPU packet statistics */
long lab5_hwlog_run(void);      /* device registers and a message log */
long lab5_events_run(void);     /* events posted by an interrupt */
long lab5_workqueue_run(void);  /* per-CPU work queues */
long lab5_rxcount_run(void);    /* a per-CPU count bumped by an interrupt */
long lab5_config_run(void);     /* a configuration worker thread */

#endif
