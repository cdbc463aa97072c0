package org.uno.oneswitch.testing;

import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.uno.oneswitch.codec.RuleText;
import org.uno.oneswitch.plan.GroupChange;
import org.uno.oneswitch.plan.PhysicalChange;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalRule;
import org.uno.oneswitch.translate.PlanDiff;
import org.uno.oneswitch.translate.Translation;

/** Stable, readable text for translations and changes, as golden files hold them. */
public final class Render {
    private Render() {
    }

    public static String translation(Translation t) {
        return Stream.concat(t.flows().stream().map(Render::rule), t.groups().stream().map(Render::group)).sorted()
                .collect(Collectors.joining("\n")) + "\n";
    }

    public static String rules(List<PhysicalRule> rules) {
        return rules.stream().map(Render::rule).sorted().collect(Collectors.joining("\n")) + "\n";
    }

    public static String rule(PhysicalRule r) {
        return r.switchId() + " table=" + r.key().table() + " priority=" + r.key().priority() + " " + r.key().match()
                + " actions=" + RuleText.instructions(r.instructions()) + " [" + r.role().name().toLowerCase() + "]";
    }

    public static String group(PhysicalGroup g) {
        return g.switchId() + " group=" + Long.toUnsignedString(g.groupId()) + " type=" + g.type().name().toLowerCase()
                + " " + g.buckets().stream().map(RuleText::bucket).collect(Collectors.joining(" "));
    }

    public static String changes(PlanDiff diff) {
        return Stream.concat(diff.inOrder().stream().filter(c -> c instanceof PhysicalChange).map(c -> change(
                (PhysicalChange) c)), diff.inOrder().stream().filter(c -> c instanceof GroupChange)
                .map(c -> ((GroupChange) c).kind() + " " + group(((GroupChange) c).group())))
                .sorted(Comparator.naturalOrder()).collect(Collectors.joining("\n")) + "\n";
    }

    private static String change(PhysicalChange c) {
        return c.kind() + " " + c.key().switchId() + " " + c.key().key()
                + (c.kind() == PhysicalChange.Kind.DELETE ? "" : " actions=" + RuleText.instructions(c.instructions()));
    }
}
