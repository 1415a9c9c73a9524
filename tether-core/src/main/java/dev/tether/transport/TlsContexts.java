package dev.tether.transport;

import dev.tether.ClientAuth;
import dev.tether.TlsConfig;
import dev.tether.TlsConfig.Pem;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Builds Netty {@link SslContext}s from {@link TlsConfig}s, for the ssl transport. Contexts use the
 * JDK's TLS implementation, so behaviour does not change when a native library happens to be on the
 * class path.
 *
 * <p>Every problem with the configuration surfaces here, as an {@link IllegalArgumentException}
 * naming the file or setting at fault: unreadable or empty PEM, a private key that is not the key
 * of its certificate, a chain whose certificates do not sign one another, a server without a
 * certificate, a protocol the JDK does not support. Building reads PEM files anew, so call it when
 * a server or client starts, not per connection.
 *
 * <p>Client handlers must be made with {@link
 * SslContext#newHandler(io.netty.buffer.ByteBufAllocator, String, int)} and the dialled host:
 * hostname verification checks the server's certificate against that host.
 */
public final class TlsContexts {
  private static final String HOSTNAME_VERIFICATION = "HTTPS";

  private TlsContexts() {}

  /**
   * A server context: the config's certificate and key, its client authentication checked against
   * its trusted certificates, its protocols.
   *
   * @throws IllegalArgumentException when the config has no certificate of its own, or its material
   *     cannot be read or used
   */
  public static SslContext forServer(TlsConfig config) {
    return forServer(config, List.of());
  }

  /**
   * As {@link #forServer(TlsConfig)}, accepting the ALPN names {@code applicationProtocols} (the
   * other protocols a server speaks, such as gRPC's "h2", and Tether's own): a client that names
   * one gets it, one that names none (Tether's) or only others goes on without ALPN.
   */
  public static SslContext forServer(TlsConfig config, List<String> applicationProtocols) {
    Keyed keyed = serverKeyed(config);
    keyed.builder().clientAuth(toNetty(config.clientAuth()));
    if (!applicationProtocols.isEmpty()) {
      keyed
          .builder()
          .applicationProtocolConfig(
              new ApplicationProtocolConfig(
                  ApplicationProtocolConfig.Protocol.ALPN,
                  ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                  ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                  applicationProtocols));
    }
    return keyed.remembered(build(keyed.builder(), config, "server", true));
  }

  /**
   * A client context: the config's certificate and key if it has them, its trusted certificates,
   * its protocols, and hostname verification when the config asks for it.
   *
   * @throws IllegalArgumentException when the config's material cannot be read or used
   */
  public static SslContext forClient(TlsConfig config) {
    SslContextBuilder builder = SslContextBuilder.forClient();
    config.keyManagerFactory().ifPresent(builder::keyManager);
    Keyed keyed = new Keyed(builder, null, null);
    if (config.certificateChain().isPresent()) {
      keyed = withPemKey(config, builder::keyManager);
    }
    builder.endpointIdentificationAlgorithm(
        config.hostnameVerification() ? HOSTNAME_VERIFICATION : null);
    if (config.hostnameVerification()) {
      X509ExtendedTrustManager jdk = jdkTrustManager(config);
      if (jdk != null) {
        builder.trustManager(new NameReportingTrustManager(jdk));
        return keyed.remembered(build(builder, config, "client", false));
      }
    }
    return keyed.remembered(build(builder, config, "client", true));
  }

  /**
   * A builder holding the config's own certificate, and the chain it was given from PEM (null with
   * a key manager factory), which the built context keeps for a later reload to compare with.
   */
  private record Keyed(SslContextBuilder builder, X509Certificate[] chain, Pem chainPem) {
    SslContext remembered(SslContext context) {
      if (chain != null) {
        ChainCompleteness.remember(context, chain, chainPem);
      }
      return context;
    }
  }

  /**
   * The JDK trust manager the config describes (its factory's, one over its PEM CAs, or the JDK's
   * default trust store), or null when a custom factory offers none that can see the engine.
   */
  private static X509ExtendedTrustManager jdkTrustManager(TlsConfig config) {
    TrustManagerFactory factory = config.trustManagerFactory().orElse(null);
    if (config.revocationLists().isPresent()) {
      factory = RevocationTrust.factory(config, TlsContexts::keyStoreOf);
    }
    try {
      if (factory == null) {
        factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(config.trustedCertificates().map(TlsContexts::keyStoreOf).orElse(null));
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot build a TLS trust manager from " + config + ": " + e.getMessage(), e);
    }
    for (TrustManager tm : factory.getTrustManagers()) {
      if (tm instanceof X509ExtendedTrustManager extended) {
        return extended;
      }
    }
    return null;
  }

  private static KeyStore keyStoreOf(Pem trusted) {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      X509Certificate[] certificates = parseCertificates(trusted);
      for (int i = 0; i < certificates.length; i++) {
        store.setCertificateEntry("trusted-" + i, certificates[i]);
      }
      return store;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException(
          "cannot hold the TLS " + trusted.origin() + " in a key store: " + e.getMessage(), e);
    }
  }

  private static Keyed serverKeyed(TlsConfig config) {
    if (config.keyManagerFactory().isPresent()) {
      return new Keyed(SslContextBuilder.forServer(config.keyManagerFactory().get()), null, null);
    }
    if (config.certificateChain().isPresent()) {
      return withPemKey(config, SslContextBuilder::forServer);
    }
    throw new IllegalArgumentException(
        "a TLS server needs a certificate and private key of its own: " + config);
  }

  /**
   * Reads the config's PEM certificate chain and private key and hands them to {@code install}. The
   * chain is parsed here first, so that a failure inside Netty can only be the key's; then the key
   * must prove it belongs to the certificate, which Netty never checks.
   */
  private static Keyed withPemKey(
      TlsConfig config, BiFunction<InputStream, InputStream, SslContextBuilder> install) {
    Pem chainPem = config.certificateChain().orElseThrow();
    Pem keyPem = config.privateKey().orElseThrow();
    byte[] chain = chainPem.read();
    byte[] key = keyPem.read();
    X509Certificate[] certificates = parseCertificates(chainPem, chain);
    SslContextBuilder builder;
    try {
      builder = install.apply(new ByteArrayInputStream(chain), new ByteArrayInputStream(key));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "TLS " + keyPem.origin() + " holds no unencrypted PKCS#8 PEM private key", e);
    }
    KeyCertificateMatch.require(certificates, chainPem, key, keyPem);
    return new Keyed(builder, certificates, chainPem);
  }

  /**
   * @param applyTrust false when the caller already installed the trust manager
   */
  private static SslContext build(
      SslContextBuilder builder, TlsConfig config, String side, boolean applyTrust) {
    if (applyTrust && config.revocationLists().isPresent()) {
      builder.trustManager(RevocationTrust.factory(config, TlsContexts::keyStoreOf));
    } else if (applyTrust) {
      config.trustManagerFactory().ifPresent(builder::trustManager);
      config.trustedCertificates().ifPresent(pem -> builder.trustManager(parseCertificates(pem)));
    }
    builder.sslProvider(SslProvider.JDK).protocols(config.protocols());
    SslContext context;
    try {
      context = builder.build();
    } catch (SSLException | RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot build a TLS " + side + " context from " + config + ": " + e.getMessage(), e);
    }
    requireSupported(config.protocols(), (JdkSslContext) context);
    return context;
  }

  /** Netty builds a context with an unknown protocol, then fails each engine made from it. */
  private static void requireSupported(List<String> protocols, JdkSslContext context) {
    List<String> supported =
        Arrays.asList(context.context().getSupportedSSLParameters().getProtocols());
    for (String protocol : protocols) {
      if (!supported.contains(protocol)) {
        throw new IllegalArgumentException(
            "TLS protocol " + protocol + " is not supported here; supported: " + supported);
      }
    }
  }

  private static X509Certificate[] parseCertificates(Pem pem) {
    return parseCertificates(pem, pem.read());
  }

  private static X509Certificate[] parseCertificates(Pem pem, byte[] text) {
    X509Certificate[] certificates;
    try {
      certificates =
          CertificateFactory.getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(text))
              .toArray(new X509Certificate[0]);
    } catch (CertificateException e) {
      throw new IllegalArgumentException(
          "TLS " + pem.origin() + " holds no valid PEM certificates: " + e.getMessage(), e);
    }
    if (certificates.length == 0) {
      throw new IllegalArgumentException("TLS " + pem.origin() + " holds no PEM certificate");
    }
    return certificates;
  }

  private static io.netty.handler.ssl.ClientAuth toNetty(ClientAuth clientAuth) {
    return switch (clientAuth) {
      case NONE -> io.netty.handler.ssl.ClientAuth.NONE;
      case OPTIONAL -> io.netty.handler.ssl.ClientAuth.OPTIONAL;
      case REQUIRE -> io.netty.handler.ssl.ClientAuth.REQUIRE;
    };
  }
}
