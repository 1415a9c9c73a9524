package dev.tether.protocol;

import java.util.Map;

/**
 * Takes RESPONSE frames straight from the decoder, field by field, so a client's answers cost no
 * frame object each. Called on the channel's event loop, in frame order.
 */
public interface ResponseSink {
  void onResponse(int requestId, Status status, Map<String, String> metadata, byte[] body);
}
