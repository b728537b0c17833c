/*
 * The boot information the core keeps (bootinfo.h): the arch's copy of
 * what the boot loader said. The options on its command line are read
 * through cmdline.c.
 */
#include "bootinfo.h"

struct boot_info boot_info;
