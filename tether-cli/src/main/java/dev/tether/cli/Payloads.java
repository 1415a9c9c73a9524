package dev.tether.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tether.Tether;
import dev.tether.spi.Codec;
import dev.tether.spi.CodecException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * How {@code tether call} turns its payload argument into request bytes and the reply back into
 * text: UTF-8 text, a file's bytes, hex, or JSON carried in the default codec (so typed services
 * such as {@code kv} can be called by hand).
 */
final class Payloads {
  private static final byte[] EMPTY = new byte[0];
  private static final ObjectMapper JSON = new ObjectMapper();
  // The codec typed services use by default; JSON text goes through its tree model.
  private static final Codec CODEC = Tether.standardCodec();

  /** What {@link #jsonArguments} takes as a string when it is not JSON. */
  private static final java.util.regex.Pattern BARE_WORD =
      java.util.regex.Pattern.compile("[\\p{L}\\p{N}_.-]+");

  private Payloads() {}

  /**
   * The bytes a payload argument stands for: none when absent; {@code @path} a file's bytes;
   * {@code @-} standard input; {@code @@text} the text {@code @text}; anything else its UTF-8.
   */
  static byte[] read(String argument, InputStream stdin) {
    if (argument == null) {
      return EMPTY;
    }
    if (argument.startsWith("@@")) {
      return argument.substring(1).getBytes(StandardCharsets.UTF_8);
    }
    if (argument.equals("@-")) {
      try {
        return stdin.readAllBytes();
      } catch (IOException e) {
        throw CliException.badInput("cannot read the payload from standard input: " + e, e);
      }
    }
    if (argument.startsWith("@")) {
      Path file = Path.of(argument.substring(1));
      try {
        return Files.readAllBytes(file);
      } catch (IOException e) {
        throw CliException.badInput("cannot read payload file " + file + ": " + e, e);
      }
    }
    return argument.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * JSON text as the arguments of a typed operation: a JSON array lists the arguments in order; any
   * other JSON value is the only argument. No payload means no arguments. (A lone argument that is
   * itself a list must be wrapped: {@code [[1,2]]}.) A bare word that is not JSON, such as {@code
   * color}, is taken as that string, so {@code kv get color} needs no shell quoting.
   */
  static byte[] jsonArguments(byte[] jsonText) {
    if (jsonText.length == 0) {
      return EMPTY;
    }
    JsonNode node;
    try {
      node = JSON.readTree(jsonText);
    } catch (IOException e) {
      String text = new String(jsonText, java.nio.charset.StandardCharsets.UTF_8).trim();
      if (!BARE_WORD.matcher(text).matches()) {
        throw CliException.badInput("the payload is not JSON: " + firstLine(e), e);
      }
      node = com.fasterxml.jackson.databind.node.TextNode.valueOf(text);
    }
    // The wire carries a lone argument as the value itself and several as one array.
    if (node.isArray() && node.size() == 1) {
      node = node.get(0);
    } else if (node.isArray() && node.size() == 0) {
      return EMPTY;
    }
    return CODEC.encodeValue(node);
  }

  /** A typed operation's result as compact JSON; an empty reply (a void operation) is "". */
  static String jsonResult(byte[] reply) {
    if (reply.length == 0) {
      return "";
    }
    try {
      JsonNode node = (JsonNode) CODEC.decodeValue(reply, JsonNode.class);
      return JSON.writeValueAsString(node);
    } catch (CodecException | JsonProcessingException e) {
      throw CliException.failed(
          "the reply is not in the default codec's format (" + firstLine(e) + "); try --hex", e);
    }
  }

  static String hex(byte[] reply) {
    return HexFormat.of().formatHex(reply);
  }

  /** The reply as UTF-8 text, or null when it is not valid UTF-8. */
  static String utf8OrNull(byte[] reply) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(reply))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /**
   * The bytes as text when they are valid UTF-8 without control characters other than tab and line
   * breaks, which a terminal shows as they are; null otherwise.
   */
  static String printableOrNull(byte[] bytes) {
    String text = utf8OrNull(bytes);
    if (text == null) {
      return null;
    }
    // A carriage return only as half of a line end: alone it rewrites the line before it.
    boolean printable =
        text.replace("\r\n", "\n")
            .codePoints()
            .allMatch(c -> !PrintableText.isUnsafe(c) || c == '\t' || c == '\n');
    return printable ? text : null;
  }

  private static String firstLine(Exception e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
