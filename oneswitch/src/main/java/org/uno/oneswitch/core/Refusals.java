package org.uno.oneswitch.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.error.OpenFlowException;

/**
 * What the controller sees of a virtual request that a physical switch refuses: the first error any
 * switch returns for any of the request's messages undoes the request's virtual change and is
 * reported once; later errors (the other switch refusing too, a second message of the same request)
 * are only logged. A switch answers one error per request, and a refused change is not kept.
 *
 * <p>Also counts the undos, so that a barrier can wait until the changes that undo refused requests
 * are in effect too (they are sent after the barrier that found them).
 */
final class Refusals {
    private static final Logger LOG = LoggerFactory.getLogger(Refusals.class);
    private long undone;

    /** The error listener for one request: {@code undo} takes back its virtual change, {@code report} tells the controller. */
    PhysicalNetwork.ErrorListener of(PhysicalNetwork.ErrorListener report, Runnable undo) {
        return new PhysicalNetwork.ErrorListener() {
            private boolean refused;

            @Override
            public void onError(String switchId, OpenFlowException error) {
                if (refused) {
                    LOG.info("switch {} refused a request that is already undone: {}", switchId, error.describe());
                    return;
                }
                refused = true;
                undone++;
                undo.run();
                report.onError(switchId, error);
            }
        };
    }

    /** How many requests have been undone so far. */
    long undone() {
        return undone;
    }
}
