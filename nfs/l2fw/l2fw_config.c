/* l2fw_config.c -- the rule file. */
#include "l2fw.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "util.h"

static int
parse_action(const char *word, enum l2fw_action *action)
{
    if (!strcmp(word, "allow")) {
        *action = L2FW_ALLOW;
    } else if (!strcmp(word, "deny")) {
        *action = L2FW_DENY;
    } else {
        return EINVAL;
    }
    return 0;
}

static int
config_line(void *fw_, int argc, char *argv[], char *err, size_t errlen)
{
    struct l2fw *fw = fw_;
    enum l2fw_action action;

    if (!strcmp(argv[0], "default")) {
        if (argc != 2 || parse_action(argv[1], &fw->default_action)) {
            snprintf(err, errlen, "usage: default allow|deny");
            return EINVAL;
        }
        return 0;
    }
    if (parse_action(argv[0], &action)) {
        snprintf(err, errlen, "unknown keyword '%s' (allow, deny or "
                 "default)", argv[0]);
        return EINVAL;
    }
    if (fw->n_rules >= L2FW_MAX_RULES) {
        snprintf(err, errlen, "more than %d rules", L2FW_MAX_RULES);
        return EINVAL;
    }
    struct l2fw_rule *rule = &fw->rules[fw->n_rules];
    memset(rule, 0, sizeof *rule);
    rule->action = action;
    int error = flow_match_parse(argc - 1, argv + 1, &rule->match,
                                 err, errlen);
    if (!error) {
        fw->n_rules++;
    }
    return error;
}

int
l2fw_config_load(struct l2fw *fw, const char *path, char *err, size_t errlen)
{
    fw->rules = xcalloc(L2FW_MAX_RULES, sizeof *fw->rules);
    fw->default_action = L2FW_DENY;
    return conf_load(path, config_line, fw, err, errlen);
}
