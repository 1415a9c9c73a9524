package dev.tether.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Who may resume a client's streams: the certificate itself, not only the name in it. */
class PeerTest {
  @Test
  void aCertificateForTheSameSubjectWithAnotherKeyIsAnotherStreamOwner() throws Exception {
    X509Bundle owner = selfSigned("CN=orders-client");
    X509Bundle sameName = selfSigned("CN=orders-client");

    Peer first = new Peer(null, List.of(owner.getCertificate()), "a");
    Peer again = new Peer(null, List.of(owner.getCertificate()), "b");
    Peer other = new Peer(null, List.of(sameName.getCertificate()), "a");

    assertThat(again.streamIdentity()).isEqualTo(first.streamIdentity());
    assertThat(other.streamIdentity()).isNotEqualTo(first.streamIdentity());
    assertThat(first.streamIdentity()).startsWith("subject CN=orders-client key ");
  }

  @Test
  void withoutACertificateTheOwnerIsTheClientIdItsHelloGave() {
    assertThat(new Peer(null, List.of(), "runtime-1").streamIdentity())
        .isEqualTo("client runtime-1")
        .isNotEqualTo(new Peer(null, List.of(), "runtime-2").streamIdentity());
  }

  private static X509Bundle selfSigned(String subject) throws Exception {
    return new CertificateBuilder()
        .subject(subject)
        .setIsCertificateAuthority(true)
        .buildSelfSigned();
  }
}
