package dev.tether.server;

import dev.tether.protocol.Response;

/** Where the dispatcher delivers the outcome of one request; called exactly once per request. */
interface Responder {
  /** A twoway request's answer. */
  void respond(Response response);

  /** A oneway request finished (or failed); nothing goes back to the client. */
  void onewayDone();
}
