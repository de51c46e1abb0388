/* list.h: the `list` command (list.c). */
#ifndef SR_CMD_LIST_H
#define SR_CMD_LIST_H

/* `sparkreport list`: experiments, scenario fields, templates and catalog systems on stdout;
 * SR_EXIT_FAILURE when the catalog cannot be read. */
int list_command(void);

#endif
