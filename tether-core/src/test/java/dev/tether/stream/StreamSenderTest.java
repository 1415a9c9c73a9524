package dev.tether.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.ManualPublisher;
import dev.tether.protocol.Response;
import dev.tether.protocol.Status;
import dev.tether.protocol.StreamEnd;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sending half in isolation: a publisher driven by hand, links that record what would leave,
 * tasks run at once on the test's thread. Credit bounds what the publisher is asked for and what is
 * written; acknowledged items leave the resume buffer; a new link gets what the peer lacks.
 */
class StreamSenderTest {
  private static final long RESUME_BUFFER_BYTES = 1 << 20;

  private final ManualPublisher publisher = new ManualPublisher();
  private final RecordingLink link = new RecordingLink(7);
  private int endsTold;

  @Test
  void asksThePublisherForNothingBeforeThePeerGivesCredit() {
    attachedSender(RESUME_BUFFER_BYTES);

    assertThat(publisher.requested()).isZero();
    assertThat(link.frames()).isEmpty();
  }

  @Test
  void thePeersCreditBecomesDemandOnThePublisherAndNeverMore() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);

    sender.onCredit(0, 3);
    assertThat(publisher.requested()).isEqualTo(3);
    sender.onCredit(0, 3);
    sender.onCredit(0, 2);
    assertThat(publisher.requested()).as("a repeated or older limit asks for nothing").isEqualTo(3);
    sender.onCredit(0, 5);

    assertThat(publisher.requested()).isEqualTo(5);
    assertThat(sender.requested()).isEqualTo(5);
  }

  @Test
  void aHugeCreditAsksThePublisherForAFewItemsAtATime() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);

    sender.onCredit(0, 1L << 62);
    assertThat(publisher.requested()).isEqualTo(StreamSender.ASK_AHEAD);
    publisher.emitSized(StreamSender.ASK_AHEAD / 2 - 1, 8);
    assertThat(publisher.requested()).as("more than half still to come").isEqualTo(32);
    publisher.emitSized(1, 8);

    assertThat(publisher.requested()).isEqualTo(StreamSender.ASK_AHEAD + 16);
    assertThat(sender.requested() - sender.produced()).isEqualTo(StreamSender.ASK_AHEAD);
  }

  @Test
  void aFullConnectionStopsTheAskingUntilItDrains() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 1L << 62);
    link.fillUp();

    publisher.emitSized(StreamSender.ASK_AHEAD, 8);
    assertThat(publisher.requested()).as("nothing more while full").isEqualTo(32);
    assertThat(link.items()).hasSize(StreamSender.ASK_AHEAD);
    link.drain();

    assertThat(publisher.requested()).isEqualTo(2L * StreamSender.ASK_AHEAD);
    assertThat(sender.produced()).isEqualTo(StreamSender.ASK_AHEAD);
  }

  @Test
  void anItemLargerThanThePeerAcceptsIsNeverWrittenNorKeptAndEndsTheDirectionNamingBothSizes() {
    link.peerAccepts(1024);
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 10);

    publisher.emitSized(1, 1000);
    publisher.emitSized(1, 1024);

    assertThat(link.items()).hasSize(1);
    assertThat(publisher.isCancelled()).isTrue();
    StreamEnd end = onlyEnd();
    assertThat(end.status()).isEqualTo(Status.REMOTE_ERROR);
    assertThat(end.finalPosition()).as("the item was not counted").isEqualTo(1);
    assertThat(end.metadata())
        .containsEntry(Response.ERROR_TYPE, "dev.tether.RequestTooLargeException")
        .containsEntry(
            Response.ERROR_MESSAGE,
            "stream item 2 of 1024 bytes is a frame of 1031 bytes, over the 1024 bytes the peer"
                + " accepts; it was not sent");
    assertThat(sender.canResumeFrom(1)).as("nothing kept to replay past the first").isTrue();
    assertThat(endsTold).isEqualTo(1);
  }

  @Test
  void itemsAreNumberedFromOneOnTheStreamsIdInTheOrderThePublisherSentThem() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 3);

    publisher.emit("a", "b", "c");

    assertThat(link.positions()).containsExactly(1L, 2L, 3L);
    assertThat(link.bodies()).containsExactly("a", "b", "c");
    assertThat(link.items()).allSatisfy(i -> assertThat(i.streamId()).isEqualTo(7));
    assertThat(sender.produced()).isEqualTo(3);
  }

  @Test
  void anItemThePublisherWasNotAskedForIsNeverSentAndEndsTheDirectionWithAFailure() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 2);

    publisher.emit("a", "b", "past the credit", "and another");

    assertThat(link.positions()).containsExactly(1L, 2L);
    assertThat(publisher.isCancelled()).isTrue();
    StreamEnd end = onlyEnd();
    assertThat(end.status()).isEqualTo(Status.REMOTE_ERROR);
    assertThat(end.finalPosition()).isEqualTo(2);
    assertThat(end.metadata())
        .containsEntry(Response.ERROR_TYPE, IllegalStateException.class.getName())
        .extractingByKey(Response.ERROR_MESSAGE)
        .asString()
        .contains("more than the 2 items");
  }

  @Test
  void completionEndsTheDirectionAfterTheLastItemAndTellsTheOwnerOnce() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 10);
    publisher.emit("a", "b");

    publisher.complete();
    publisher.complete();

    assertThat(link.frames().get(link.frames().size() - 1)).isInstanceOf(StreamEnd.class);
    StreamEnd end = onlyEnd();
    assertThat(end.status()).isEqualTo(Status.OK);
    assertThat(end.finalPosition()).isEqualTo(2);
    assertThat(end.streamId()).isEqualTo(7);
    assertThat(endsTold).isEqualTo(1);
    assertThat(sender.hasEnded()).isTrue();
  }

  @Test
  void aFinishedDirectionIsOneWhosePeerAcknowledgedEveryItemAfterTheEnd() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 10);
    publisher.emit("a", "b");
    publisher.complete();
    assertThat(sender.isFinished()).as("two items not acknowledged").isFalse();

    sender.onCredit(1, 10);
    assertThat(sender.isFinished()).isFalse();
    sender.onCredit(2, 10);

    assertThat(sender.isFinished()).isTrue();
  }

  @Test
  void aPublisherFailureTravelsAsARemoteErrorWithItsTypeAndMessage() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 10);
    publisher.emit("a");

    publisher.fail(new IllegalArgumentException("no such symbol"));

    StreamEnd end = onlyEnd();
    assertThat(end.status()).isEqualTo(Status.REMOTE_ERROR);
    assertThat(end.finalPosition()).isEqualTo(1);
    assertThat(end.metadata())
        .isEqualTo(
            Map.of(
                Response.ERROR_TYPE,
                IllegalArgumentException.class.getName(),
                Response.ERROR_MESSAGE,
                "no such symbol"));
  }

  @Test
  void aFailureWithoutAMessageTravelsWithAnEmptyOne() {
    attachedSender(RESUME_BUFFER_BYTES);

    publisher.fail(new IllegalStateException());

    assertThat(onlyEnd().metadata()).containsEntry(Response.ERROR_MESSAGE, "");
  }

  @Test
  void cancelCancelsThePublisherAndNothingItSendsAfterwardsIsWritten() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 10);
    publisher.emit("a");

    sender.cancel();
    publisher.emit("b");
    publisher.complete();

    assertThat(publisher.isCancelled()).isTrue();
    assertThat(link.bodies()).containsExactly("a");
    assertThat(link.ends()).isEmpty();
    assertThat(endsTold).isZero();
  }

  @Test
  void aSecondSubscriptionIsCancelledAndTheFirstKeepsGoing() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    ManualPublisher second = new ManualPublisher();

    second.subscribe(sender);
    sender.onCredit(0, 4);

    assertThat(second.isCancelled()).isTrue();
    assertThat(second.requested()).isZero();
    assertThat(publisher.requested()).isEqualTo(4);
  }

  @Test
  void itemsWrittenWhileDetachedAreReplayedOnTheNextLinkFromWhatThePeerHolds() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 10);
    publisher.emit("a", "b", "c");
    sender.detach();
    publisher.emit("d", "e");
    RecordingLink next = new RecordingLink(9);

    sender.attach(next, 2, 10);

    assertThat(next.positions()).containsExactly(3L, 4L, 5L);
    assertThat(next.bodies()).containsExactly("c", "d", "e");
    assertThat(next.items()).allSatisfy(i -> assertThat(i.streamId()).isEqualTo(9));
    assertThat(link.positions()).as("nothing went to the old link once detached").hasSize(3);
  }

  @Test
  void anEndMadeWhileDetachedFollowsTheReplayOnTheNextLink() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 10);
    publisher.emit("a", "b");
    sender.detach();
    publisher.complete();
    RecordingLink next = new RecordingLink(9);

    sender.attach(next, 1, 10);

    assertThat(next.frames()).hasSize(2);
    assertThat(next.positions()).containsExactly(2L);
    StreamEnd end = next.ends().get(0);
    assertThat(end.streamId()).isEqualTo(9);
    assertThat(end.status()).isEqualTo(Status.OK);
    assertThat(end.finalPosition()).isEqualTo(2);
  }

  @Test
  void theNewLinksLimitAsksThePublisherForMore() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 2);
    publisher.emit("a", "b");
    sender.detach();

    sender.attach(new RecordingLink(9), 2, 6);

    assertThat(publisher.requested()).isEqualTo(6);
  }

  @Test
  void acknowledgedItemsLeaveTheResumeBuffer() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 10);
    publisher.emit("a", "b", "c", "d");

    sender.onCredit(3, 10);

    assertThat(sender.canResumeFrom(2)).as("items 1-3 are gone").isFalse();
    assertThat(sender.canResumeFrom(3)).isTrue();
    RecordingLink next = new RecordingLink(9);
    sender.detach();
    sender.attach(next, 3, 10);
    assertThat(next.bodies()).containsExactly("d");
  }

  @Test
  void aPeerClaimingItemsNeverSentCannotResume() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 10);
    publisher.emit("a", "b");

    assertThat(sender.canResumeFrom(2)).isTrue();
    assertThat(sender.canResumeFrom(3)).isFalse();
  }

  @Test
  void aResumeBufferThatOverflowsRefusesResumesUntilThePeerAcknowledgesEverything() {
    StreamSender sender = attachedSender(10);
    sender.onCredit(0, 10);

    publisher.emitSized(3, 4); // 12 bytes kept against a buffer of 10

    assertThat(link.positions()).as("the items still leave").containsExactly(1L, 2L, 3L);
    assertThat(sender.canResumeFrom(0)).isFalse();
    assertThat(sender.canResumeFrom(2)).isFalse();
    sender.onCredit(3, 10);
    assertThat(sender.canResumeFrom(3)).isTrue();
    publisher.emitSized(2, 4);
    assertThat(sender.canResumeFrom(3)).as("kept again once emptied").isTrue();
  }

  @Test
  void aResumeThatWouldReplayAnItemTooLargeForTheNewLinkIsRefusedNamingIt() {
    StreamSender sender = attachedSender(RESUME_BUFFER_BYTES);
    sender.onCredit(0, 10);
    publisher.emitSized(1, 10);
    publisher.emitSized(1, 2000);

    assertThat(sender.resumeRefusal(0, 1024))
        .isEqualTo(
            "stream item 2 of 2000 bytes is a frame of 2007 bytes, over the 1024 bytes the peer"
                + " accepts on the connection it resumes on; it cannot be replayed");
    assertThat(sender.resumeRefusal(2, 1024)).as("the peer holds it already").isNull();
    assertThat(sender.resumeRefusal(0, 1 << 20)).isNull();
    assertThat(sender.resumeRefusal(3, 1 << 20))
        .isEqualTo("the items to replay outgrew the resume buffer");
  }

  @Test
  void aRefusedItemTellsTheOwnerWhyOnceAfterTheEnd() {
    List<String> told = new ArrayList<>();
    StreamSender sender =
        new StreamSender(
            new StreamContext(Runnable::run),
            RESUME_BUFFER_BYTES,
            new StreamSender.Owner() {
              @Override
              public void senderEnded() {
                told.add("ended");
              }

              @Override
              public void senderRefused(Throwable why) {
                told.add(why.getClass().getSimpleName() + ": " + why.getMessage());
              }
            });
    link.peerAccepts(1024);
    sender.attach(link, 0, 0);
    publisher.subscribe(sender);
    sender.onCredit(0, 10);

    publisher.emitSized(2, 2000);

    assertThat(told)
        .containsExactly(
            "ended",
            "RequestTooLargeException: stream item 1 of 2000 bytes is a frame of 2007 bytes, over"
                + " the 1024 bytes the peer accepts; it was not sent");
  }

  private StreamSender attachedSender(long resumeBufferBytes) {
    StreamSender sender =
        new StreamSender(new StreamContext(Runnable::run), resumeBufferBytes, () -> endsTold++);
    sender.attach(link, 0, 0);
    publisher.subscribe(sender);
    return sender;
  }

  private StreamEnd onlyEnd() {
    List<StreamEnd> ends = link.ends();
    assertThat(ends).hasSize(1);
    return ends.get(0);
  }
}
