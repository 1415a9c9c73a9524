package dev.tether.bench.jmh;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A JMH worker pool whose threads are Netty {@link FastThreadLocalThread}s, like the event-loop
 * threads on which Tether encodes and decodes frames. Netty's pooled allocator and its object
 * recycler behave differently on other threads: on a plain JMH worker, every pooled buffer costs a
 * new buffer object (about 100 bytes), which Tether's event loops never pay. A benchmark selects
 * this pool with {@code @Fork(jvmArgsPrepend = {"-Djmh.executor=CUSTOM",
 * "-Djmh.executor.class=dev.tether.bench.jmh.EventLoopLikeExecutor"})}.
 */
public final class EventLoopLikeExecutor extends ThreadPoolExecutor {

  /** The constructor JMH's CUSTOM executor type calls. */
  public EventLoopLikeExecutor(int maxThreads, String prefix) {
    super(
        maxThreads,
        maxThreads,
        0,
        TimeUnit.MILLISECONDS,
        new LinkedBlockingQueue<>(),
        new DefaultThreadFactory(prefix, true));
  }
}
