package dev.tether.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;

/** A plain Curator client for tests that look at ZooKeeper from outside the registry. */
final class TestClients {
  private TestClients() {}

  static CuratorFramework connect(TestingServer zookeeper) throws InterruptedException {
    CuratorFramework client =
        CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryNTimes(3, 100));
    client.start();
    client.blockUntilConnected();
    return client;
  }
}
