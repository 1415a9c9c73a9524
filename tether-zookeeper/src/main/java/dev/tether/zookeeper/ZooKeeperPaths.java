package dev.tether.zookeeper;

import org.apache.curator.utils.ZKPaths;

/** Where the registry keeps what, under its root: one place so that writers and readers agree. */
record ZooKeeperPaths(String root) {
  ZooKeeperPaths {
    org.apache.zookeeper.common.PathUtils.validatePath(root);
  }

  String service(String service) {
    return ZKPaths.makePath(root, "services", service);
  }

  String server(String service, String serverId) {
    return ZKPaths.makePath(service(service), serverId);
  }

  String election(String cluster) {
    return ZKPaths.makePath(root, "clusters", cluster);
  }
}
