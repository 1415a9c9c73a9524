/**
 * Public extension points: time ({@link dev.tether.spi.Ticker}, {@link dev.tether.spi.Scheduler}),
 * payload encoding ({@link dev.tether.spi.Codec}) and where a proxy finds its servers ({@link
 * dev.tether.spi.Discovery}, with static and DNS implementations), and another protocol a server's
 * stream endpoints speak beside Tether's ({@link dev.tether.spi.WireProtocol}). Every timed
 * decision of a runtime goes through the ticker and scheduler it was given, so tests run it on a
 * fake clock. Imports only the face; exported by the module.
 */
package dev.tether.spi;
