package dev.tether.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tether.Tether;
import dev.tether.TetherServer;
import dev.tether.observe.TetherEvent;
import dev.tether.observe.TetherListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class TetherAutoConfigurationTest {
  private static final String LOOPBACK = "tcp -h 127.0.0.1 -p 0";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(TetherAutoConfiguration.class));

  private final ApplicationContextRunner server =
      runner.withBean(GreeterBean.class).withPropertyValues("tether.server.endpoints=" + LOOPBACK);

  @Test
  void servesAnnotatedBeanToAPlainTetherCall() {
    server.run(
        context -> {
          TetherServer s = context.getBean(TetherServer.class);
          assertThat(s.serviceNames()).containsExactly("greeter");
          try (Tether client = Tether.create()) {
            assertThat(client.proxy(s.proxyString("greeter")).as(Greeter.class).greet("ada"))
                .isEqualTo("hello ada");
          }
        });
  }

  @Test
  void injectsAConfiguredProxyThatCallsAnotherContext() {
    server.run(
        serving -> {
          String proxy = serving.getBean(TetherServer.class).proxyString("greeter");
          runner
              .withPropertyValues(
                  "tether.clients.greeterClient.proxy=" + proxy,
                  "tether.clients.greeterClient.interface=" + Greeter.class.getName())
              .run(
                  calling -> {
                    assertThat(calling).doesNotHaveBean(TetherServer.class);
                    Greeter greeter = calling.getBean("greeterClient", Greeter.class);
                    assertThat(greeter.greet("grace")).isEqualTo("hello grace");
                  });
        });
  }

  @Test
  void handsTheRuntimesEventsToListenerBeans() {
    List<TetherEvent.Kind> seen = new CopyOnWriteArrayList<>();
    TetherListener listener = event -> seen.add(event.kind());
    server
        .withBean(TetherListener.class, () -> listener)
        .run(
            context -> {
              TetherServer s = context.getBean(TetherServer.class);
              context
                  .getBean(Tether.class)
                  .proxy(s.proxyString("greeter"))
                  .as(Greeter.class)
                  .greet("ev");
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> seen.contains(TetherEvent.Kind.CONNECTED));
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> seen.contains(TetherEvent.Kind.ACCEPTED));
            });
  }

  @Test
  void passesTetherKeysToTheRuntimeAsCoreSpellsThem() {
    runner
        .withPropertyValues("tether.heartbeat.readerIdle=soon")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasStackTraceContaining("tether.heartbeat.readerIdle");
            });
  }

  @Test
  void refusesAClientWhoseInterfaceIsMissing() {
    runner
        .withPropertyValues("tether.clients.lost.proxy=greeter:" + LOOPBACK)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasStackTraceContaining("tether.clients.lost.interface");
            });
  }

  @Test
  void asksWhichInterfaceToServeWhenABeanImplementsSeveral() {
    runner
        .withBean(TwoFaced.class)
        .withPropertyValues("tether.server.endpoints=" + LOOPBACK)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasStackTraceContaining("name the one to serve with serviceInterface");
            });
  }

  @Test
  void servesTheNamedInterfaceOfABeanThatImplementsSeveral() {
    runner
        .withBean(NamedFace.class)
        .withPropertyValues("tether.server.endpoints=" + LOOPBACK)
        .run(
            context -> {
              TetherServer s = context.getBean(TetherServer.class);
              try (Tether client = Tether.create()) {
                assertThat(client.proxy(s.proxyString("named")).as(Greeter.class).greet("bo"))
                    .isEqualTo("named bo");
              }
            });
  }

  @TetherService("two")
  static class TwoFaced implements Greeter, Gate {
    @Override
    public String greet(String name) {
      return name;
    }

    @Override
    public String pass(String who) {
      return who;
    }
  }

  @TetherService(value = "named", serviceInterface = Greeter.class)
  static class NamedFace extends TwoFaced {
    @Override
    public String greet(String name) {
      return "named " + name;
    }
  }

  @Test
  void leavesHealthAndMetersOutWhenTheApplicationHasNeither() {
    server
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(
            context -> {
              assertThat(context).hasSingleBean(TetherServer.class);
              assertThat(context).doesNotHaveBean(TetherHealthIndicator.class);
              assertThat(context).doesNotHaveBean(TetherMeterBinding.class);
            });
  }

  @Test
  void startsNoServerWithoutEndpoints() {
    runner
        .withBean(GreeterBean.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(Tether.class);
              assertThat(context).doesNotHaveBean(TetherServer.class);
            });
  }

  @Test
  void reportsHealthUpThenDownWhenTheGroupsServersStop() {
    server.run(
        first ->
            server.run(
                second -> {
                  String group =
                      "greeter:"
                          + first.getBean(TetherServer.class).endpoints().get(0)
                          + ":"
                          + second.getBean(TetherServer.class).endpoints().get(0);
                  runner
                      .withPropertyValues(
                          "tether.clients.balanced.proxy=" + group,
                          "tether.clients.balanced.interface=" + Greeter.class.getName(),
                          "tether.clients.balanced.load-balancing=ROUND_ROBIN")
                      .run(
                          calling -> {
                            HealthIndicator health =
                                calling.getBean("tetherHealthIndicator", HealthIndicator.class);
                            Greeter greeter = calling.getBean("balanced", Greeter.class);
                            assertThat(greeter.greet("a")).isEqualTo("hello a");
                            await()
                                .atMost(Duration.ofSeconds(10))
                                .until(() -> health.health().getStatus(), Status.UP::equals);
                            first.getBean(TetherServer.class).close();
                            second.getBean(TetherServer.class).close();
                            await()
                                .atMost(Duration.ofSeconds(20))
                                .until(() -> health.health().getStatus(), Status.DOWN::equals);
                            assertThat(health.health().getDetails())
                                .containsKey("balanced")
                                .doesNotContainKey("server");
                          });
                }));
  }

  @Test
  void bindsTheMetersOnTheApplicationsRegistry() {
    server
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              TetherServer s = context.getBean(TetherServer.class);
              context
                  .getBean(Tether.class)
                  .proxy(s.proxyString("greeter"))
                  .as(Greeter.class)
                  .greet("x");
              assertThat(registry.find("tether.server.calls").functionCounter()).isNotNull();
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(
                      () -> registry.find("tether.server.calls").functionCounter().count(),
                      n -> n >= 1);
              assertThat(
                      registry.find("tether.client.calls").tag("outcome", "ok").functionCounter())
                  .isNotNull();
              assertThat(registry.find("tether.client.nodes").gauges()).isNotEmpty();
              assertThat(context.getBean(TetherHealthIndicator.class).health().getDetails())
                  .containsEntry("server", "RUNNING");
            });
  }
}
