package dev.tether.cluster;

import dev.tether.client.EndpointSource;

/**
 * Where a proxy finds its servers when the list may change while it lives (DESIGN.md 7.1). A proxy
 * made with {@code tether.proxy(identity, discovery)} reads the current endpoints before each
 * selection, so nodes added or removed are seen without recreating the proxy.
 */
public interface Discovery extends EndpointSource {}
