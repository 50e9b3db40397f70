/* SPDX-License-Identifier: GPL-2.0 */
/* main.c: what of the batch mode is a pure function. */
#ifndef NKCTL_MAIN_H
#define NKCTL_MAIN_H


/* A -batch line into at most max words, in place (main.c): blanks separate,
 * quotes group, '#' starts a comment. The count, -E2BIG or -EINVAL (an
 * unclosed quote). */
int split_words(char *line, char **words, int max);

#endif
