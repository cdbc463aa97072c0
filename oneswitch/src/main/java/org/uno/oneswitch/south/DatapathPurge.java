package org.uno.oneswitch.south;

import java.util.concurrent.CompletableFuture;

/** What purges one switch's cached datapath flows (see {@code PhysicalSwitches.revalidated}). */
interface DatapathPurge {
    /**
     * Pauses the switch daemon's revalidators, purges every datapath flow and resumes them, all
     * asked for at once (so the daemon resumes them even if OneSwitch dies meanwhile); completes when
     * the daemon answered.
     */
    CompletableFuture<Void> purge();

    void close();
}
