package dev.tether.bench;

import java.util.function.BiConsumer;

/** Hands the outcome of a call whose future completes with the reply's bytes to the benchmark. */
record BytesCompletion(ResponseHandler handler) implements BiConsumer<byte[], Throwable> {
  @Override
  public void accept(byte[] response, Throwable failure) {
    if (failure != null) {
      handler.onFailure(failure);
    } else {
      handler.onResponse(response);
    }
  }
}
