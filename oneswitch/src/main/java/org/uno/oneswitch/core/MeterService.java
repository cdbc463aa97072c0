package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.projectfloodlight.openflow.protocol.OFMeterFlags;
import org.projectfloodlight.openflow.protocol.OFMeterModCommand;
import org.projectfloodlight.openflow.protocol.OFMeterModFailedCode;
import org.projectfloodlight.openflow.protocol.meterband.OFMeterBand;
import org.projectfloodlight.openflow.protocol.meterband.OFMeterBandDrop;
import org.projectfloodlight.openflow.protocol.meterband.OFMeterBandDscpRemark;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.error.MeterModFailedException;
import org.uno.oneswitch.model.MeterModRequest;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.stats.MeterCounters;
import org.uno.oneswitch.stats.MeterFeatures;
import org.uno.oneswitch.store.IdTable;

/**
 * Applies meter_mods (OpenFlow 1.3 §5.7) to the virtual meter table and the physical switches.
 * Every switch holds every meter with the controller's id and bands; the rules that apply a meter
 * all run on one switch, the host when their packets enter on two (see {@link MeterSites}), so one
 * copy meters them all and the rate holds exactly. The virtual switch offers what every physical
 * switch offers (the least of their meter features). Deleting a meter deletes the rules that
 * apply it, as OpenFlow says.
 */
public final class MeterService {
    private static final Logger LOG = LoggerFactory.getLogger(MeterService.class);
    private final IdTable<VirtualMeter> table;
    private final FlowService flows;
    private final PhysicalNetwork net;
    private final Topology topology;
    private final Runnable changed;
    private final Refusals refusals;
    /** Each switch's meter features, as it last reported them (absent: not known, or no meters). */
    private final Map<String, MeterFeatures> features = new HashMap<>();

    public MeterService(IdTable<VirtualMeter> table, FlowService flows, PhysicalNetwork net, Topology topology,
                        Runnable changed, Refusals refusals) {
        this.table = table;
        this.flows = flows;
        this.net = net;
        this.topology = topology;
        this.changed = changed;
        this.refusals = refusals;
    }

    public void meterMod(MeterModRequest req, PhysicalNetwork.ErrorListener onError) throws MeterModFailedException {
        VirtualMeter m = req.meter();
        switch (req.command()) {
            case ADD, MODIFY -> {
                Optional<VirtualMeter> before = table.get(m.id());
                if (req.command() == MeterModRequest.Command.ADD && before.isPresent()) {
                    throw new MeterModFailedException(OFMeterModFailedCode.METER_EXISTS, "meter " + m.id() + " exists");
                }
                if (req.command() == MeterModRequest.Command.MODIFY && before.isEmpty()) {
                    throw new MeterModFailedException(OFMeterModFailedCode.UNKNOWN_METER, "no meter " + m.id());
                }
                check(m, features());
                table.put(m);
                OFMeterModCommand command = before.isPresent() ? OFMeterModCommand.MODIFY : OFMeterModCommand.ADD;
                sendAll(command, m, refusals.of(onError, () -> undo(m, before)));
            }
            case DELETE -> {
                List<Long> ids = m.id() == MeterModRequest.ALL ? table.all().stream().map(VirtualMeter::id).toList()
                        : table.get(m.id()).map(x -> List.of(x.id())).orElse(List.of());
                for (long id : ids) {
                    flows.removeUsersOfMeter(id);
                    sendAll(OFMeterModCommand.DELETE, table.get(id).orElseThrow(), onError);
                    table.remove(id);
                }
            }
            default -> throw new IllegalStateException("command " + req.command());
        }
        changed.run();
    }

    /**
     * Takes back an add or modify a physical switch refused: the meter returns to {@code before}
     * (or is gone, with the rules that apply it), unless a later request has changed it since.
     */
    private void undo(VirtualMeter refused, Optional<VirtualMeter> before) {
        if (!table.get(refused.id()).filter(refused::equals).isPresent()) {
            return;
        }
        if (before.isPresent()) {
            table.put(before.get());
            sendAll(OFMeterModCommand.MODIFY, before.get(), PlanService::logError);
        } else {
            flows.removeUsersOfMeter(refused.id());
            sendAll(OFMeterModCommand.DELETE, refused, PlanService::logError);
            table.remove(refused.id());
        }
        changed.run();
    }

    private void sendAll(OFMeterModCommand command, VirtualMeter m, PhysicalNetwork.ErrorListener onError) {
        for (SwitchSpec s : topology.switches()) {
            net.meter(s.id(), command, m, onError);
        }
    }

    /**
     * Makes {@code switchId}'s meters the virtual ones, given those it reported (sent before its flow
     * entries are reconciled, which may apply them). Equal meters are left alone, with their counters.
     */
    void reconcile(String switchId, SwitchTables reported) {
        reported.meterFeatures().ifPresentOrElse(f -> features.put(switchId, f), () -> features.remove(switchId));
        Map<Long, VirtualMeter> have = new HashMap<>();
        reported.meters().forEach(m -> have.put(m.id(), m));
        int changes = 0;
        for (VirtualMeter want : table.all()) {
            VirtualMeter got = have.remove(want.id());
            if (got == null || !sameOnSwitch(got, want)) {
                net.meter(switchId, got == null ? OFMeterModCommand.ADD : OFMeterModCommand.MODIFY, want,
                        PlanService::logError);
                changes++;
            }
        }
        for (VirtualMeter stray : have.values()) {
            net.meter(switchId, OFMeterModCommand.DELETE, stray, PlanService::logError);
            changes++;
        }
        if (!table.all().isEmpty() || changes > 0) {
            LOG.info("reconciling {}: {} meters, {} changes", switchId, table.size(), changes);
        }
    }

    /**
     * Whether a switch applies {@code got} as {@code want}: without the BURST flag a band's burst size
     * is unused (Open vSwitch reports one of its own), so it is not compared.
     */
    static boolean sameOnSwitch(VirtualMeter got, VirtualMeter want) {
        if (!got.flags().equals(want.flags()) || got.bands().size() != want.bands().size()) {
            return false;
        }
        boolean burst = want.flags().contains(OFMeterFlags.BURST);
        for (int i = 0; i < want.bands().size(); i++) {
            OFMeterBand g = got.bands().get(i);
            OFMeterBand w = want.bands().get(i);
            boolean same = g instanceof OFMeterBandDrop gd && w instanceof OFMeterBandDrop wd
                    ? gd.getRate() == wd.getRate() && (!burst || gd.getBurstSize() == wd.getBurstSize())
                    : g instanceof OFMeterBandDscpRemark gr && w instanceof OFMeterBandDscpRemark wr
                    ? gr.getRate() == wr.getRate() && gr.getPrecLevel() == wr.getPrecLevel()
                            && (!burst || gr.getBurstSize() == wr.getBurstSize())
                    : g.equals(w);
            if (!same) {
                return false;
            }
        }
        return true;
    }

    /**
     * The meter features of the virtual switch: the least of every switch's (a meter lives on all
     * of them), and none while a switch's are not known.
     */
    public MeterFeatures features() {
        long max = Long.MAX_VALUE;
        long bandTypes = -1;
        long capabilities = -1;
        int bands = Short.MAX_VALUE;
        int colors = Short.MAX_VALUE;
        for (SwitchSpec s : topology.switches()) {
            MeterFeatures sf = features.get(s.id());
            if (sf == null) {
                return MeterFeatures.NONE;
            }
            max = Math.min(max, sf.maxMeter());
            bandTypes &= sf.bandTypes();
            capabilities &= sf.capabilities();
            bands = Math.min(bands, sf.maxBands());
            colors = Math.min(colors, sf.maxColor());
        }
        return new MeterFeatures(max, bandTypes, capabilities, bands, colors);
    }

    /** Refuses what one of the switches would refuse, as Open vSwitch does (so the switches agree). */
    static void check(VirtualMeter m, MeterFeatures f) throws MeterModFailedException {
        if (m.id() > f.maxMeter()) {
            throw new MeterModFailedException(OFMeterModFailedCode.OUT_OF_METERS, "meter " + m.id() + " is above "
                    + "the switches' largest meter id, " + f.maxMeter());
        }
        if (m.bands().size() > f.maxBands()) {
            throw new MeterModFailedException(OFMeterModFailedCode.OUT_OF_BANDS, m.bands().size() + " bands; the "
                    + "switches take " + f.maxBands());
        }
        for (OFMeterBand b : m.bands()) {
            if ((f.bandTypes() & (1L << b.getType())) == 0) {
                throw new MeterModFailedException(OFMeterModFailedCode.BAD_BAND, "band type " + b.getType()
                        + " is not supported by every switch");
            }
        }
        for (OFMeterFlags flag : m.flags()) {
            if ((f.capabilities() & (1L << flag.ordinal())) == 0) {
                throw new MeterModFailedException(OFMeterModFailedCode.BAD_FLAGS, "flag " + flag
                        + " is not supported by every switch");
            }
        }
    }

    /** Meter {@code id} ({@link MeterModRequest#ALL}: every meter), for METER_CONFIG. */
    public List<VirtualMeter> configs(long id) {
        return selected(id);
    }

    /**
     * The counters of meter {@code id} ({@link MeterModRequest#ALL}: every meter): the sum of its
     * copies' (only one copy meters packets); its flow count is the virtual rules that apply it.
     */
    public CompletableFuture<List<MeterCounters>> stats(long id) {
        List<VirtualMeter> wanted = selected(id);
        List<CompletableFuture<List<MeterCounters>>> replies = new ArrayList<>();
        for (SwitchSpec s : topology.switches()) {
            if (net.connected(s.id()) && !wanted.isEmpty()) {
                replies.add(net.meterCounters(s.id(), id).exceptionally(t -> List.of()));
            }
        }
        return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).thenApply(v -> {
            Map<Long, List<MeterCounters>> copies = new HashMap<>();
            for (CompletableFuture<List<MeterCounters>> f : replies) {
                f.join().forEach(c -> copies.computeIfAbsent(c.meter(), x -> new ArrayList<>()).add(c));
            }
            List<MeterCounters> out = new ArrayList<>();
            for (VirtualMeter m : wanted) {
                long users = flows.usersOfMeter(m.id()).size();
                out.add(sum(m, copies.getOrDefault(m.id(), List.of()), users));
            }
            return out;
        });
    }

    /** One meter's counters from its copies': packets and bytes in and per band add up; the oldest copy's age. */
    static MeterCounters sum(VirtualMeter m, List<MeterCounters> copies, long flowCount) {
        Counts in = copies.stream().map(MeterCounters::in).reduce(Counts.ZERO, Counts::plus);
        List<Counts> bands = Counts.sumEach(m.bands().size(), copies.stream().map(MeterCounters::bands).toList());
        MeterCounters oldest = copies.stream().max(java.util.Comparator.comparingLong(MeterCounters::durationSec))
                .orElse(null);
        return new MeterCounters(m.id(), flowCount, in, bands, oldest == null ? 0 : oldest.durationSec(),
                oldest == null ? 0 : oldest.durationNsec());
    }

    private List<VirtualMeter> selected(long id) {
        return id == MeterModRequest.ALL ? new ArrayList<>(table.all()) : table.get(id).map(List::of).orElse(List.of());
    }

    /** Whether meter {@code id} exists. */
    public boolean exists(long id) {
        return table.get(id).isPresent();
    }

    /** Puts back a saved meter (before the rules that apply it). */
    void restore(VirtualMeter m) {
        table.put(m);
    }

    /** Makes meter {@code id} what the state file holds, {@code durable} or nothing, and the switches follow. */
    void revert(long id, VirtualMeter durable) {
        if (durable == null) {
            table.get(id).ifPresent(m -> sendAll(OFMeterModCommand.DELETE, m, PlanService::logError));
            table.remove(id);
        } else {
            sendAll(table.get(id).isPresent() ? OFMeterModCommand.MODIFY : OFMeterModCommand.ADD, durable,
                    PlanService::logError);
            table.put(durable);
        }
    }

    /** Every meter, by id. */
    public List<VirtualMeter> all() {
        return new ArrayList<>(table.all());
    }
}
