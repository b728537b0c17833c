/* CPUs and cross-CPU calls. */
#ifndef SMP_H
#define SMP_H

unsigned num_online_cpus(void);

#endif
