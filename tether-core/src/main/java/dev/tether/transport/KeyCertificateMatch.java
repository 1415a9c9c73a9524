package dev.tether.transport;

import dev.tether.TlsConfig.Pem;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.PSSParameterSpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Refuses PEM material whose parts do not belong together before a TLS context is built from it: a
 * private key that is not the key of the chain's first certificate, or a certificate in the chain
 * that its successor did not sign. JSSE installs either without a word, and every handshake then
 * fails, so a server would start, or a reload succeed, into refusing every peer.
 *
 * <p>The key is proved by signing a fixed message with it and verifying the signature with the
 * certificate's public key, which works for every key type that signs (RSA, RSASSA-PSS, EC, EdDSA,
 * DSA).
 */
final class KeyCertificateMatch {
  /**
   * The first block whose label ends in PRIVATE KEY, whatever comes before it ("EC", "RSA"), as
   * Netty's PEM reader finds it: the check must prove the key Netty installs, not another one later
   * in the file.
   */
  private static final Pattern FIRST_KEY_BLOCK =
      Pattern.compile(
          "-----BEGIN ([A-Z ]*)PRIVATE\\s+KEY-----([A-Za-z0-9+/=\\s]+)-----END",
          Pattern.CASE_INSENSITIVE);

  private static final String PSS = "RSASSA-PSS";

  private static final byte[] CHALLENGE =
      "tether: does this key belong to this certificate?".getBytes(StandardCharsets.US_ASCII);

  private KeyCertificateMatch() {}

  /**
   * @throws IllegalArgumentException naming both files when the key is not the certificate's, or
   *     the chain file when one certificate is not signed by the next
   */
  static void require(X509Certificate[] chain, Pem chainPem, byte[] key, Pem keyPem) {
    requireChainLinks(chain, chainPem);
    PublicKey certified = chain[0].getPublicKey();
    String signature = signatureAlgorithm(certified.getAlgorithm());
    if (signature == null) {
      return; // a key type that cannot sign (none that TLS uses): left to the handshake
    }
    PrivateKey privateKey = parse(key, keyPem, certified.getAlgorithm(), chainPem, chain[0]);
    if (!signsFor(privateKey, certified, signature)) {
      throw mismatch(keyPem, chainPem, chain[0]);
    }
  }

  private static void requireChainLinks(X509Certificate[] chain, Pem chainPem) {
    for (int i = 0; i + 1 < chain.length; i++) {
      try {
        chain[i].verify(chain[i + 1].getPublicKey());
      } catch (GeneralSecurityException e) {
        throw new IllegalArgumentException(
            "TLS "
                + chainPem.origin()
                + ": certificate "
                + (i + 1)
                + " ("
                + chain[i].getSubjectX500Principal().getName()
                + ") is not signed by the next one ("
                + chain[i + 1].getSubjectX500Principal().getName()
                + "); a chain lists each certificate before its issuer",
            e);
      }
    }
  }

  /** The key as the certificate's algorithm reads it; any other kind of key is a mismatch. */
  private static PrivateKey parse(
      byte[] key, Pem keyPem, String algorithm, Pem chainPem, X509Certificate certificate) {
    Matcher m = FIRST_KEY_BLOCK.matcher(new String(key, StandardCharsets.US_ASCII));
    if (!m.find()) {
      throw new IllegalArgumentException(
          "TLS " + keyPem.origin() + " holds no unencrypted PKCS#8 PEM private key");
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(2));
    try {
      return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (GeneralSecurityException notThatKind) {
      String label = m.group(1).trim();
      if (!label.isEmpty()) {
        throw new IllegalArgumentException(
            "TLS "
                + keyPem.origin()
                + " starts with a "
                + label
                + " PRIVATE KEY block, not an unencrypted PKCS#8 one (BEGIN PRIVATE KEY):"
                + " convert it with openssl pkcs8 -topk8 -nocrypt",
            notThatKind);
      }
      throw mismatch(keyPem, chainPem, certificate);
    }
  }

  private static boolean signsFor(PrivateKey key, PublicKey certified, String algorithm) {
    try {
      Signature signer = signature(algorithm);
      signer.initSign(key);
      signer.update(CHALLENGE);
      byte[] signed = signer.sign();
      Signature verifier = signature(algorithm);
      verifier.initVerify(certified);
      verifier.update(CHALLENGE);
      return verifier.verify(signed);
    } catch (GeneralSecurityException unusable) {
      return false;
    }
  }

  /** RSASSA-PSS signs only once told its parameters: those TLS 1.3 uses with SHA-256. */
  private static Signature signature(String algorithm) throws GeneralSecurityException {
    Signature signature = Signature.getInstance(algorithm);
    if (algorithm.equals(PSS)) {
      signature.setParameter(
          new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, 32, 1));
    }
    return signature;
  }

  /** How to sign with a key of {@code keyAlgorithm}, or null for a kind that cannot sign. */
  private static String signatureAlgorithm(String keyAlgorithm) {
    return switch (keyAlgorithm) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
      case "DSA" -> "SHA256withDSA";
      case PSS -> PSS;
      default -> null;
    };
  }

  private static IllegalArgumentException mismatch(
      Pem keyPem, Pem chainPem, X509Certificate certificate) {
    return new IllegalArgumentException(
        "TLS "
            + keyPem.origin()
            + " is not the private key of the certificate in "
            + chainPem.origin()
            + " ("
            + certificate.getSubjectX500Principal().getName()
            + "): the two files do not belong together");
  }
}
