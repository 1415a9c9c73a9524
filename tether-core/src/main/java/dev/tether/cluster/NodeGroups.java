package dev.tether.cluster;

import dev.tether.client.NodeHost;
import dev.tether.client.NodeRouter;
import dev.tether.client.ProxySettings;
import java.util.Objects;

/**
 * Makes the node group for a load-balanced proxy, with the strategy its LoadBalancing names;
 * epsilon-greedy groups learn as the runtime's {@link EpsilonGreedySettings} say.
 */
public final class NodeGroups implements NodeRouter.Factory {
  private final EpsilonGreedySettings epsilonGreedy;

  /** The RethinkDB driver's epsilon-greedy defaults. */
  public NodeGroups() {
    this(EpsilonGreedySettings.defaults());
  }

  public NodeGroups(EpsilonGreedySettings epsilonGreedy) {
    this.epsilonGreedy = Objects.requireNonNull(epsilonGreedy, "epsilonGreedy");
  }

  @Override
  public NodeRouter create(NodeHost runtime, ProxySettings settings) {
    NodeSelector strategy =
        switch (settings.loadBalancing()) {
          case PINNED, ROUND_ROBIN -> new RoundRobinSelector();
          case RANDOM -> new RandomSelector(runtime.random());
          case EPSILON_GREEDY -> new EpsilonGreedySelector(epsilonGreedy, runtime.random());
          case LEAST_LOADED -> new LeastLoadedSelector(runtime.random());
        };
    return new NodeGroup(runtime, settings, strategy);
  }
}
