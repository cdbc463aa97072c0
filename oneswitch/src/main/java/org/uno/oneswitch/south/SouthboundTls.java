package org.uno.oneswitch.south;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;

import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;

/**
 * SSL on the southbound, as Open vSwitch's controllers use it (keys and certificates from
 * {@code ovs-pki}): OneSwitch presents its certificate, and a switch must present one signed by the
 * switch CA. A switch is who its certificate says, not what datapath id it claims: each switch of
 * the description names the certificate it connects with, and a connection whose certificate is not
 * the one of the switch its datapath id names is closed before it can replace that switch.
 *
 * <p>With the same key and certificate OneSwitch is a client of the daemons of sNICs that are
 * machines of their own, and such a daemon must present its sNIC's certificate.
 */
public final class SouthboundTls {
    private final SslContext context;
    private final SslContext clientContext;
    private final Map<String, X509Certificate> pinned;

    private SouthboundTls(SslContext context, SslContext clientContext, Map<String, X509Certificate> pinned) {
        this.context = context;
        this.clientContext = clientContext;
        this.pinned = pinned;
    }

    /** OneSwitch's private key and certificate, the CA that signs the switches' certificates, and each switch's. */
    public static SouthboundTls load(Path privateKey, Path certificate, Path caCert, Topology topology)
            throws IOException, GeneralSecurityException {
        Map<String, X509Certificate> pinned = new HashMap<>();
        for (SwitchSpec s : topology.switches()) {
            Path file = Path.of(s.certificate().orElseThrow(() -> new GeneralSecurityException("switch " + s.id()
                    + " names no ssl_certificate in the platform description, so it could not be told from an impostor")));
            pinned.put(s.id(), read(file));
        }
        SslContext context = SslContextBuilder.forServer(certificate.toFile(), privateKey.toFile())
                .trustManager(caCert.toFile()).clientAuth(ClientAuth.REQUIRE)
                .protocols("TLSv1.3", "TLSv1.2").build();
        SslContext clientContext = SslContextBuilder.forClient().keyManager(certificate.toFile(), privateKey.toFile())
                .trustManager(caCert.toFile()).protocols("TLSv1.3", "TLSv1.2").build();
        return new SouthboundTls(context, clientContext, Map.copyOf(pinned));
    }

    private static X509Certificate read(Path file) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(file)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    SslHandler newHandler(ByteBufAllocator alloc) {
        return context.newHandler(alloc);
    }

    /** A client's end, for a connection OneSwitch opens (ovs-pki's certificates name no host: none is checked). */
    SslHandler newClientHandler(ByteBufAllocator alloc) {
        return clientContext.newHandler(alloc);
    }

    /** Whether {@code session}'s peer presented switch {@code switchId}'s own certificate. */
    boolean proves(String switchId, SSLSession session) {
        try {
            Certificate[] chain = session.getPeerCertificates();
            return chain.length > 0 && chain[0].equals(pinned.get(switchId));
        } catch (SSLPeerUnverifiedException e) {
            return false;
        }
    }

    /** The subject of the certificate {@code session}'s peer presented, for logs. */
    static Optional<String> subject(SSLSession session) {
        try {
            return Optional.of(((X509Certificate) session.getPeerCertificates()[0]).getSubjectX500Principal().getName());
        } catch (SSLPeerUnverifiedException | ClassCastException e) {
            return Optional.empty();
        }
    }
}
