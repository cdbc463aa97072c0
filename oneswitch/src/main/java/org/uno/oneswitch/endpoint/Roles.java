package org.uno.oneswitch.endpoint;

import org.projectfloodlight.openflow.protocol.OFControllerRole;
import org.projectfloodlight.openflow.protocol.OFRoleReply;
import org.projectfloodlight.openflow.protocol.OFRoleRequest;
import org.projectfloodlight.openflow.protocol.OFRoleRequestFailedCode;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.error.RoleRequestFailedException;

/**
 * Controller roles (OpenFlow 1.3 §6.3.7): each connection is equal, master or slave; there is at
 * most one master; MASTER and SLAVE requests carry a generation id that must not go backwards
 * (compared as a signed 64-bit distance, so it may wrap).
 */
final class Roles {
    private final Controllers controllers;
    private boolean generationSeen;
    private long generation;

    Roles(Controllers controllers) {
        this.controllers = controllers;
    }

    /** Applies {@code req} from {@code c} and returns the reply. */
    OFRoleReply handle(ControllerConnection c, OFRoleRequest req) throws RoleRequestFailedException {
        OFControllerRole role = req.getRole();
        if (role == OFControllerRole.ROLE_MASTER || role == OFControllerRole.ROLE_SLAVE) {
            long g = req.getGenerationId().getValue();
            if (generationSeen && g - generation < 0) {
                throw new RoleRequestFailedException(OFRoleRequestFailedCode.STALE, "generation id "
                        + Long.toUnsignedString(g) + " is older than " + Long.toUnsignedString(generation));
            }
            generationSeen = true;
            generation = g;
        }
        if (role == OFControllerRole.ROLE_MASTER) {
            for (ControllerConnection other : controllers.all()) {
                if (other != c && other.role() == OFControllerRole.ROLE_MASTER) {
                    other.setRole(OFControllerRole.ROLE_SLAVE);
                }
            }
        }
        if (role != OFControllerRole.ROLE_NOCHANGE) {
            c.setRole(role);
        }
        return c.factory().buildRoleReply().setXid(req.getXid()).setRole(c.role())
                .setGenerationId(U64.of(generation)).build();
    }
}
