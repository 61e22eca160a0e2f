/* The memory routines the firmware links, checked against plain loops. */
#pragma once

/* Number of wrong results (0 when every routine is right). */
int mem_check(void);
