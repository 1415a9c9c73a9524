package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TypedCallTest {
  public record Point(int x, int y, String label) {}

  public interface Geometry {
    Point translate(Point p, int dx, int dy);

    CompletableFuture<List<Point>> corners(int size);

    byte[] reverse(byte[] raw);

    @Idempotent
    int area(Point a, Point b);

    void reset();

    String fail(String why);

    String crash(String why);
  }

  static final class GeometryImpl implements Geometry {
    volatile int resets;

    @Override
    public Point translate(Point p, int dx, int dy) {
      return new Point(p.x() + dx, p.y() + dy, p.label());
    }

    @Override
    public CompletableFuture<List<Point>> corners(int size) {
      return CompletableFuture.supplyAsync(
          () ->
              List.of(
                  new Point(0, 0, "a"),
                  new Point(size, 0, "b"),
                  new Point(size, size, "c"),
                  new Point(0, size, "d")));
    }

    @Override
    public byte[] reverse(byte[] raw) {
      byte[] out = new byte[raw.length];
      for (int i = 0; i < raw.length; i++) {
        out[i] = raw[raw.length - 1 - i];
      }
      return out;
    }

    @Override
    public int area(Point a, Point b) {
      return Math.abs((b.x() - a.x()) * (b.y() - a.y()));
    }

    @Override
    public void reset() {
      resets++;
    }

    @Override
    public String fail(String why) {
      throw new IllegalArgumentException(why);
    }

    @Override
    public String crash(String why) {
      throw new AssertionError(why);
    }
  }

  /** Only one method, to see what a typed stub sends for a method the server does not have. */
  public interface Extended {
    String notThere();
  }

  private final GeometryImpl impl = new GeometryImpl();
  private final Map<String, Boolean> idempotentByOperation = new ConcurrentHashMap<>();
  private TetherServer server;
  private Tether tether;

  @BeforeEach
  void start() {
    server =
        TetherServer.builder()
            .endpoints("tcp -h 127.0.0.1 -p 0")
            .service("geometry", Geometry.class, impl)
            .service(
                "recorder",
                (op, payload, ctx) -> {
                  idempotentByOperation.put(op, ctx.isIdempotent());
                  return op.equals("area")
                      ? new dev.tether.codec.JacksonCodec().encodeValue(0)
                      : new byte[0];
                })
            .build()
            .start();
    tether = Tether.create();
  }

  @AfterEach
  void stop() {
    tether.close();
    server.close();
  }

  @Test
  void recordsTravelThroughTheDefaultCodec() {
    Geometry g = tether.proxy(server.proxyString("geometry")).as(Geometry.class);
    assertThat(g.translate(new Point(1, 2, "p"), 10, 20)).isEqualTo(new Point(11, 22, "p"));
    assertThat(g.area(new Point(0, 0, ""), new Point(3, 4, ""))).isEqualTo(12);
  }

  @Test
  void methodReturningCompletableFutureCompletesWithTheDecodedResult() throws Exception {
    Geometry g = tether.proxy(server.proxyString("geometry")).as(Geometry.class);
    assertThat(g.corners(5).get(5, TimeUnit.SECONDS)).hasSize(4).contains(new Point(5, 5, "c"));
  }

  @Test
  void byteArraysPassThroughUntouched() {
    Geometry g = tether.proxy(server.proxyString("geometry")).as(Geometry.class);
    assertThat(g.reverse(new byte[] {1, 2, 3, (byte) 0xFF})).containsExactly((byte) 0xFF, 3, 2, 1);
  }

  @Test
  void voidMethodRunsOnTheServer() {
    Geometry g = tether.proxy(server.proxyString("geometry")).as(Geometry.class);
    g.reset();
    g.reset();
    assertThat(impl.resets).isEqualTo(2);
  }

  @Test
  void serviceExceptionArrivesAsRemoteExceptionWithTypeAndMessage() {
    Geometry g = tether.proxy(server.proxyString("geometry")).as(Geometry.class);
    assertThatThrownBy(() -> g.fail("no way"))
        .isInstanceOfSatisfying(
            RemoteException.class,
            e -> {
              assertThat(e.remoteType()).isEqualTo("java.lang.IllegalArgumentException");
              assertThat(e.remoteMessage()).isEqualTo("no way");
            });
  }

  @Test
  void serviceErrorArrivesAsRemoteExceptionWithItsOwnType() {
    Geometry g = tether.proxy(server.proxyString("geometry")).as(Geometry.class);
    assertThatThrownBy(() -> g.crash("broken invariant"))
        .isInstanceOfSatisfying(
            RemoteException.class,
            e -> {
              assertThat(e.remoteType()).isEqualTo("java.lang.AssertionError");
              assertThat(e.remoteMessage()).isEqualTo("broken invariant");
            });
  }

  @Test
  void missingOperationRaisesOperationNotFound() {
    Extended e = tether.proxy(server.proxyString("geometry")).as(Extended.class);
    assertThatThrownBy(e::notThere)
        .isInstanceOf(OperationNotFoundException.class)
        .hasMessageContaining("notThere");
  }

  @Test
  void idempotentAnnotationTravelsInTheRequestFlags() {
    Geometry g = tether.proxy(server.proxyString("recorder")).as(Geometry.class);
    g.area(new Point(0, 0, ""), new Point(1, 1, ""));
    g.reset();
    assertThat(idempotentByOperation).containsEntry("area", true).containsEntry("reset", false);
  }

  @Test
  void untypedIdempotencyTravelsInTheRequestFlags() {
    Proxy p = tether.proxy(server.proxyString("recorder"));
    p.invoke("setAddress", new byte[0], Idempotency.IDEMPOTENT);
    p.invoke("withdraw", new byte[0]);
    assertThat(idempotentByOperation)
        .containsEntry("setAddress", true)
        .containsEntry("withdraw", false);
  }

  @Test
  void stubToStringNamesInterfaceAndProxy() {
    Geometry g = tether.proxy(server.proxyString("geometry")).as(Geometry.class);
    assertThat(g.toString()).startsWith("Geometry[geometry:tcp -h 127.0.0.1 -p ");
  }
}
