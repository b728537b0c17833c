/*
 * What tree.c's grace periods need of tree_cb.c's callbacks, and back:
 * moving a CPU's callbacks along as grace periods start and end, and
 * running the ready ones.
 */
#ifndef RCU_TREE_CB_H
#define RCU_TREE_CB_H

#include <stdbool.h>
#include "rcu/tree.h"

/* At boot, for every possible CPU. */
void rcu_init_cpu_data(struct rcu_data *rdp, int cpu);
/* rdp's callbacks whose grace period ended are ready (lock held). */
void rcu_advance_cbs(struct rcu_data *rdp);
/* rdp's new callbacks get the grace period that will cover them, and it
 * is asked for (lock held). True when the kthread must be woken. */
bool rcu_accelerate_cbs(struct rcu_data *rdp);
/* rdp's CPU has ready callbacks: its rcuc thread runs them. */
void invoke_rcu_core_kthread(struct rcu_data *rdp);

/* tree.c */
bool rcu_start_this_gp(unsigned long seq);   /* lock held */
void rcu_wait_gp(unsigned long s);           /* sleeps */

#endif
