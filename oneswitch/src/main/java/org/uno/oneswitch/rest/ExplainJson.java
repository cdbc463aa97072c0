package org.uno.oneswitch.rest;

import java.util.List;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.uno.oneswitch.codec.RuleText;
import org.uno.oneswitch.core.ExplainService;
import org.uno.oneswitch.core.VirtualSwitch;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.translate.Owner;

/** The JSON of the explain view (documented in oneswitch/README.md, "Explain"). */
final class ExplainJson {
    private ExplainJson() {
    }

    static ObjectNode rules(List<ExplainService.RuleView> views, List<ExplainService.GroupView> groups) {
        ObjectNode out = RestServer.JSON.createObjectNode();
        ArrayNode rules = out.putArray("rules");
        for (ExplainService.RuleView v : views) {
            ObjectNode r = rule(rules.addObject(), v.rule());
            counts(r, v.counts());
            entries(r.putArray("physical"), v.entries());
            groups(r.putArray("physical_groups"), v.groups());
        }
        ArrayNode gs = out.putArray("groups");
        for (ExplainService.GroupView v : groups) {
            VirtualGroup g = v.group();
            ObjectNode o = gs.addObject().put("group_id", g.id()).put("type", g.type().name().toLowerCase());
            ArrayNode buckets = o.putArray("buckets");
            g.buckets().forEach(b -> buckets.add(RuleText.bucket(b)));
            entries(o.putArray("physical"), v.entries());
            groups(o.putArray("physical_groups"), v.groups());
        }
        return out;
    }

    static ObjectNode entry(ExplainService.Entry e, VirtualSwitch vs) {
        ObjectNode out = RestServer.JSON.createObjectNode();
        entry(out.putObject("physical"), e);
        ArrayNode from = out.putArray("from");
        for (Owner o : e.owners()) {
            ObjectNode x = from.addObject().put("kind", o.kind().name().toLowerCase());
            switch (o.kind()) {
                case RULE -> vs.flows().rule(o.id()).ifPresent(r -> rule(x, r));
                case GROUP -> x.put("group_id", o.id());
                case RETIRED -> x.put("remap", o.id());
                default -> {
                }
            }
        }
        return out;
    }

    private static ObjectNode rule(ObjectNode o, VirtualRule r) {
        return o.put("id", r.id()).put("table", r.table()).put("priority", r.priority())
                .put("match", r.match().toString()).put("instructions", RuleText.instructions(r.instructions()))
                .put("cookie", String.format("0x%x", r.cookie().getValue()));
    }

    private static void entries(ArrayNode out, List<ExplainService.Entry> entries) {
        entries.forEach(e -> entry(out.addObject(), e));
    }

    private static void entry(ObjectNode o, ExplainService.Entry e) {
        o.put("switch", e.entry().key().switchId()).put("table", e.entry().key().key().table())
                .put("priority", e.entry().key().key().priority()).put("match", e.entry().key().key().match().toString())
                .put("instructions", RuleText.instructions(e.entry().instructions()))
                .put("cookie", String.format("0x%x", e.entry().cookie().getValue()))
                .put("role", e.role().name().toLowerCase()).put("shared_by", e.owners().size());
        counts(o, e.counts());
    }

    private static void groups(ArrayNode out, List<PhysicalGroup> groups) {
        for (PhysicalGroup g : groups) {
            ObjectNode o = out.addObject().put("switch", g.switchId()).put("group_id", g.groupId())
                    .put("type", g.type().name().toLowerCase());
            if (g.tag() != 0) {
                o.put("flow_id_tag", g.tag());
            }
            ArrayNode buckets = o.putArray("buckets");
            g.buckets().forEach(b -> buckets.add(RuleText.bucket(b)));
        }
    }

    private static void counts(ObjectNode o, Counts c) {
        o.put("n_packets", c.packets()).put("n_bytes", c.bytes());
    }
}
