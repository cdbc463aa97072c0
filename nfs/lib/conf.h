/* conf.h -- line-oriented configuration files and command words.
 *
 * A configuration file is a sequence of lines of whitespace-separated words;
 * '#' starts a comment.  Each NF interprets the words of a line; an unknown
 * keyword or a bad value is an error that names the file and line. */
#ifndef UNONF_CONF_H
#define UNONF_CONF_H 1

#include <stddef.h>

#define CONF_MAX_WORDS 32
#define CONF_MAX_LINE 1024

/* Splits 'line' in place into at most 'max' words, stopping at '#'.  Returns
 * the number of words, or -1 if there are more than 'max'. */
int conf_split(char *line, char *argv[], int max);

typedef int conf_line_func(void *aux, int argc, char *argv[],
                           char *err, size_t errlen);

/* Reads 'path' and calls 'cb' for every line that has words.  Returns 0 or
 * the first error, with "PATH:LINE: reason" in 'err'. */
int conf_load(const char *path, conf_line_func *cb, void *aux,
              char *err, size_t errlen);

#endif /* conf.h */
