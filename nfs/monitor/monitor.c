/* monitor.c -- the monitor network function: instance, counters, commands. */
#include "monitor.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "match.h"
#include "util.h"

static const char *const counter_names[MON_N_COUNTERS] = {
    [MON_ASSETS_CREATED] = "assets_created",
    [MON_ASSET_TABLE_FULL] = "asset_table_full",
    [MON_SERVICES_FOUND] = "services_found",
    [MON_OS_FINGERPRINTS] = "os_fingerprints",
};

static void
monitor_destroy(void *m_)
{
    struct monitor *m = m_;

    if (m) {
        flow_table_destroy(m->assets);
        free(m);
    }
}

static int
monitor_create(const char *config, void **nf, char *err, size_t errlen)
{
    struct monitor *m = xzalloc(sizeof *m);
    int error = monitor_config_load(m, config, err, errlen);

    if (error) {
        monitor_destroy(m);
        return error;
    }
    m->assets = flow_table_create(m->max_assets, sizeof(struct mon_asset));
    *nf = m;
    return 0;
}

static void
asset_json(const struct flow *f, struct json *j)
{
    const struct mon_asset *a = (const struct mon_asset *) f->data;
    char buf[64];

    json_obj_open(j, NULL);
    ip_addr_format(f->key.family, f->key.src, buf, sizeof buf);
    json_str(j, "ip", buf);
    snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", a->mac[0],
             a->mac[1], a->mac[2], a->mac[3], a->mac[4], a->mac[5]);
    json_str(j, "mac", buf);
    json_u64(j, "ttl", a->ttl);
    json_str(j, "os", a->os);
    json_str(j, "fingerprint", a->fingerprint);
    json_u64(j, "packets", f->packets);
    json_u64(j, "bytes", f->bytes);
    json_arr_open(j, "services");
    for (size_t i = 0; i < a->n_services; i++) {
        const struct mon_service *s = &a->services[i];
        json_obj_open(j, NULL);
        json_u64(j, "proto", s->proto);
        json_u64(j, "port", s->port);
        json_str(j, "role", s->role == MON_SERVER ? "server" : "client");
        json_str(j, "app", s->app);
        json_obj_close(j);
    }
    json_arr_close(j);
    json_obj_close(j);
}

/* "assets": every asset with its services, as JSON. */
static int
monitor_command(void *m_, int argc, char *argv[], struct wbuf *body,
                char *err OVS_UNUSED, size_t errlen OVS_UNUSED)
{
    struct monitor *m = m_;
    struct json j;

    if (argc != 1 || strcmp(argv[0], "assets")) {
        return ENOENT;
    }
    json_init(&j, body);
    json_arr_open(&j, NULL);
    for (const struct flow *f = flow_table_first(m->assets); f;
         f = flow_table_next(m->assets, f)) {
        asset_json(f, &j);
    }
    json_arr_close(&j);
    return 0;
}

const struct nf_class monitor_class = {
    .name = "monitor",
    .summary = "passive asset monitor (PRADS-like): hosts, services, OS hints",
    .config_help =
        "  max-assets N         size of the asset table (default 65536)\n"
        "  The configuration file is optional.\n"
        "  Control command 'assets' lists the assets with their services.\n",
    .flags = 0,
    .state_kind = 4,
    .state_version = MONITOR_STATE_VERSION,
    .flow_data_size = sizeof(struct mon_flow),
    .counter_names = counter_names,
    .counters_offset = offsetof(struct monitor, counters),
    .n_counters = MON_N_COUNTERS,
    .create = monitor_create,
    .destroy = monitor_destroy,
    .process = monitor_process,
    .flow_encode = monitor_flow_encode,
    .flow_decode = monitor_flow_decode,
    .records_encode = monitor_records_encode,
    .record_decode = monitor_record_decode,
    .records_clear = monitor_records_clear,
    .command = monitor_command,
};
