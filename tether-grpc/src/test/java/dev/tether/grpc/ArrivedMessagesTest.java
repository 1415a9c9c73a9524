package dev.tether.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArrivedMessagesTest {
  private final List<String> heard = new ArrayList<>();
  private boolean stopped;

  private final ArrivedMessages arrived =
      new ArrivedMessages(
          new ArrivedMessages.Receiver() {
            @Override
            public void message(MessageDeframer.Message message) {
              heard.add("message " + new String(message.bytes()));
            }

            @Override
            public void halfClose() {
              heard.add("half-close");
            }

            @Override
            public void malformed(Status status) {
              heard.add("malformed " + status.getCode());
            }

            @Override
            public void consumed(long bytes) {
              heard.add("consumed " + bytes);
            }

            @Override
            public boolean stopped() {
              return stopped;
            }
          });

  private static InboundMessages.Rest rest(Status tail, String... messages) {
    ArrayDeque<MessageDeframer.Message> queue = new ArrayDeque<>();
    for (String m : messages) {
      queue.add(new MessageDeframer.Message(m.getBytes(), false));
    }
    return new InboundMessages.Rest(queue, tail);
  }

  @Test
  void handsOutOnlyWhatTheServiceAskedForThenTheHalfCloseAndTheirCredit() {
    arrived.arrive(rest(null, "one", "two"));
    assertThat(heard).isEmpty();

    arrived.request(1);
    assertThat(heard).containsExactly("message one", "consumed 8");

    arrived.request(5);
    assertThat(heard)
        .containsExactly("message one", "consumed 8", "message two", "half-close", "consumed 8");
  }

  @Test
  void aRequestBeforeTheMessagesArriveIsAnsweredWhenTheyDo() {
    arrived.request(2);
    assertThat(heard).isEmpty();

    arrived.arrive(rest(null, "only"));

    assertThat(heard).containsExactly("message only", "half-close", "consumed 9");
  }

  @Test
  void aBrokenLastMessageFailsTheCallOnlyOnceTheServiceAsksForIt() {
    arrived.arrive(rest(Status.INTERNAL, "whole"));
    arrived.request(1);
    assertThat(heard).containsExactly("message whole", "consumed 10");

    arrived.request(1);
    assertThat(heard).containsExactly("message whole", "consumed 10", "malformed INTERNAL");
  }

  @Test
  void handsOutNothingOnceTheCallStopped() {
    arrived.arrive(rest(null, "late"));
    stopped = true;

    arrived.request(1);

    assertThat(heard).isEmpty();
  }
}
