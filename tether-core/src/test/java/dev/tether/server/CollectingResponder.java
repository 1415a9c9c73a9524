package dev.tether.server;

import dev.tether.protocol.Response;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A connection's stand-in for dispatch tests: keeps every answer (any thread), ignores oneway ends.
 */
final class CollectingResponder implements Responder {
  final List<Response> answers = new CopyOnWriteArrayList<>();

  @Override
  public void respond(Response response) {
    answers.add(response);
  }

  @Override
  public void onewayDone() {}
}
