package dev.tether.server;

import dev.tether.protocol.Response;

/** Where the dispatcher delivers the outcome of one request; called exactly once per request. */
interface Responder {
  /** A twoway request's answer. */
  void respond(Response response);

  /** The request finished with nothing to send back: it was oneway, or the client cancelled it. */
  void onewayDone();
}
